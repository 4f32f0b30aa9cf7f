"""TensorFlow's tf.function guide: tracing and retracing (Python values, shapes, dtypes, input_signature,
reduce_retracing), concrete functions and their graphs, Python side effects that run only while tracing,
AutoGraph's loops and conditionals, variables created on the first call only, and the errors it raises."""

import sys

import numpy as np
import tensorflow as tf


@tf.function
def add(a, b):
    print("Tracing add with", a, b)
    return a + b


print(add(tf.constant(1), tf.constant(2)))
print(add(tf.constant(3), tf.constant(4)))
print(add(tf.constant(1.5), tf.constant(2.5)))
print(add(tf.constant([1, 2]), tf.constant([3, 4])))
print(add(1, 2), add(1, 2), add(3, 2))
print(add.experimental_get_tracing_count())


@tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
def doubled(x):
    print("Tracing doubled", x.shape)
    return x * 2


print(doubled(tf.constant([1, 2, 3])))
print(doubled(tf.constant([4, 5])))
print(doubled(np.array([6, 7, 8, 9], dtype=np.int64)))
print(doubled.experimental_get_tracing_count())
try:
    doubled(tf.constant([1.0]))
except TypeError as e:
    print("TypeError", str(e).split("\n")[0][:60])


@tf.function(reduce_retracing=True)
def total(x):
    return tf.reduce_sum(x)


for n in range(1, 5):
    total(tf.ones([n]))
print(total.experimental_get_tracing_count())

concrete = add.get_concrete_function(tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32))
print(concrete(tf.constant(1.0), tf.constant(2.0)))
print([op.type for op in concrete.graph.get_operations()])
print(concrete.structured_input_signature)
print(concrete.structured_outputs)
try:
    concrete(tf.constant(1), tf.constant(2))
except (TypeError, tf.errors.InvalidArgumentError) as e:
    print(type(e).__name__)

calls = []


@tf.function
def side_effects(x):
    calls.append(1)
    tf.print("running with", x, output_stream=sys.stdout)
    return x + 1


side_effects(tf.constant(1))
side_effects(tf.constant(2))
side_effects(tf.constant(3.0))
print("traced", len(calls), "times")


@tf.function
def collatz(n):
    steps = tf.constant(0)
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


print(collatz(tf.constant(27)))


@tf.function
def running_sum(xs):
    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    acc = tf.constant(0.0)
    for i in tf.range(tf.shape(xs)[0]):
        acc += xs[i]
        out = out.write(i, acc)
    return out.stack()


print(running_sum(tf.constant([1.0, 2.0, 3.0, 4.0])))


class Counter(tf.Module):
    def __init__(self):
        self.count = None

    @tf.function
    def __call__(self, x):
        if self.count is None:
            self.count = tf.Variable(0)
        self.count.assign_add(x)
        return self.count.read_value()


counter = Counter()
print(counter(tf.constant(2)), counter(tf.constant(3)))


@tf.function
def make_variable(x):
    v = tf.Variable(1.0)
    return v + x


try:
    make_variable(tf.constant(1.0))
    make_variable(tf.constant(2.0))
except ValueError as e:
    print("ValueError", "singleton tf.Variable" in str(e))


@tf.function
def not_a_number(x):
    return x.numpy()


try:
    not_a_number(tf.constant(1.0))
except AttributeError as e:
    print("AttributeError", str(e).split("\n")[-1][-50:])

tf.config.run_functions_eagerly(True)
print(add(tf.constant(10), tf.constant(20)))
tf.config.run_functions_eagerly(False)
print(collatz(tf.constant(6)), collatz.experimental_get_tracing_count())
