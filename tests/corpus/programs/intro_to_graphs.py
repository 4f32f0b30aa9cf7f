"""TensorFlow's introduction to graphs and tf.function: a Python function and its tf.function, graphs of nested
functions, polymorphism and retracing, print versus tf.print, and eager execution switched on for debugging."""

import numpy as np
import tensorflow as tf


def a_regular_function(x, y, b):
    x = tf.matmul(x, y)
    x = x + b
    return x


a_function_that_uses_a_graph = tf.function(a_regular_function)
x1 = tf.constant([[1.0, 2.0]])
y1 = tf.constant([[2.0], [3.0]])
b1 = tf.constant(4.0)
orig_value = a_regular_function(x1, y1, b1).numpy()
tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
print(orig_value, tf_function_value, orig_value == tf_function_value)


def inner_function(x, y, b):
    x = tf.matmul(x, y)
    x = x + b
    return x


@tf.function
def outer_function(x):
    y = tf.constant([[2.0], [3.0]])
    b = tf.constant(4.0)
    return inner_function(x, y, b)


print(outer_function(tf.constant([[1.0, 2.0]])).numpy())


def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


tf_simple_relu = tf.function(simple_relu)
print("First branch, with graph:", tf_simple_relu(tf.constant(1)).numpy())
print("Second branch, with graph:", tf_simple_relu(tf.constant(-1)).numpy())
print(type(tf_simple_relu).__name__)


@tf.function
def my_relu(x):
    return tf.maximum(0.0, x)


print(my_relu(tf.constant(5.5)))
print(my_relu([1, -1]))
print(my_relu(tf.constant([3.0, -3.0])))
print(my_relu(tf.constant(-2.5)))
print(my_relu(tf.constant([-1.0, 1.0])))
print(my_relu.experimental_get_tracing_count())
print(my_relu.get_concrete_function(tf.constant(3.0)).structured_input_signature)
print(my_relu.get_concrete_function(tf.constant(3.0)).structured_outputs)

x = tf.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=tf.dtypes.int32)


def get_MSE(y_true, y_pred):
    sq_diff = tf.pow(y_true - y_pred, 2)
    return tf.reduce_mean(sq_diff)


y_true = tf.constant(np.arange(100).reshape(10, 10) % 3 - 1, dtype=tf.int32)
y_pred = tf.constant(np.arange(100).reshape(10, 10) % 4 - 1, dtype=tf.int32)
print(get_MSE(y_true, y_pred))
get_MSE_graph = tf.function(get_MSE)
print(get_MSE_graph(y_true, y_pred))
tf.config.run_functions_eagerly(True)
print(get_MSE_graph(y_true, y_pred))
tf.config.run_functions_eagerly(False)


@tf.function
def get_MSE_printing(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = tf.pow(y_true - y_pred, 2)
    return tf.reduce_mean(sq_diff)


error = get_MSE_printing(y_true, y_pred)
error = get_MSE_printing(y_true, y_pred)
error = get_MSE_printing(y_true, y_pred)
tf.config.run_functions_eagerly(True)
error = get_MSE_printing(y_true, y_pred)
error = get_MSE_printing(y_true, y_pred)
tf.config.run_functions_eagerly(False)


def unused_return_eager(x):
    tf.gather(x, [1])
    return x


try:
    print(unused_return_eager(tf.constant([0.0])))
except tf.errors.InvalidArgumentError as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0][:60]}")


@tf.function
def traced(x):
    print("Tracing with", x)
    tf.print("Executing with", x)
    return x * 2


print(traced(tf.constant(1)).numpy())
print(traced(tf.constant(2)).numpy())
print(traced(tf.constant([1, 2])).numpy())
print(traced(3), traced(3), traced(4))
print(traced.experimental_get_tracing_count())
print(traced.pretty_printed_concrete_signatures())
v = tf.Variable(1.0)


@tf.function
def add_v(x):
    return x + v


print(add_v(tf.constant(2.0)), add_v.get_concrete_function(tf.constant(2.0)).variables)
