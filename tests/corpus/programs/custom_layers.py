"""TensorFlow's custom layers tutorial and Keras's guide to making new layers by subclassing: a Dense-like
layer that builds its weights from the input shape, a layer with a non-trainable weight, a block composed of
layers, and the weights and variables they track."""

import numpy as np
import tensorflow as tf


class MyDenseLayer(tf.keras.layers.Layer):
    def __init__(self, num_outputs):
        super().__init__()
        self.num_outputs = num_outputs

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(int(input_shape[-1]), self.num_outputs), initializer="ones")

    def call(self, inputs):
        return tf.matmul(inputs, self.kernel)


layer = MyDenseLayer(10)
print(layer(tf.ones([10, 5])).numpy()[0])
print([var.name for var in layer.trainable_variables], [tuple(v.shape) for v in layer.weights])


class ComputeSum(tf.keras.layers.Layer):
    def __init__(self, input_dim):
        super().__init__()
        self.total = self.add_weight(initializer="zeros", shape=(input_dim,), trainable=False)

    def call(self, inputs):
        self.total.assign_add(tf.reduce_sum(inputs, axis=0))
        return self.total


my_sum = ComputeSum(2)
x = tf.ones((2, 2))
print(my_sum(x).numpy(), my_sum(x).numpy())
print(len(my_sum.weights), len(my_sum.non_trainable_weights), len(my_sum.trainable_weights))


class Linear(tf.keras.layers.Layer):
    def __init__(self, units=32):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="zeros", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class MLPBlock(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.linear_1 = Linear(32)
        self.linear_2 = Linear(32)
        self.linear_3 = Linear(1)

    def call(self, inputs):
        x = tf.nn.relu(self.linear_1(inputs))
        x = tf.nn.relu(self.linear_2(x))
        return self.linear_3(x)


mlp = MLPBlock()
y = mlp(tf.ones(shape=(3, 64)))
print(y.shape, len(mlp.weights), len(mlp.trainable_weights))
rng = np.random.default_rng(0)
mlp.set_weights([rng.normal(0, 0.1, w.shape).astype("float32") for w in mlp.get_weights()])
print(np.round(mlp(tf.ones(shape=(3, 64))).numpy().ravel(), 4))
