"""Keras's guide to masking and padding: `pad_sequences`, the masks Embedding(mask_zero=True) and Masking attach
to their outputs (`_keras_mask`), mask propagation through Sequential and functional models, passing
`compute_mask` to an LSTM by hand, custom layers that split, generate, pass along or consume a mask."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def set_seeded_weights(model, seed=0):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0, 0.1, w.shape).astype("float32") for w in model.get_weights()])


raw_inputs = [[711, 632, 71], [73, 8, 3215, 55, 927], [83, 91, 1, 645, 1253, 927]]
padded_inputs = tf.keras.preprocessing.sequence.pad_sequences(raw_inputs, padding="post")
print(padded_inputs)
print(padded_inputs.dtype, tf.keras.preprocessing.sequence.pad_sequences(raw_inputs, maxlen=4))

embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
masked_output = embedding(padded_inputs)
print(masked_output._keras_mask)

masking_layer = layers.Masking()
unmasked_embedding = tf.cast(tf.tile(tf.expand_dims(padded_inputs, axis=-1), [1, 1, 10]), tf.float32)
masked_embedding = masking_layer(unmasked_embedding)
print(masked_embedding._keras_mask)

model = keras.Sequential([layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True), layers.LSTM(32)])
print(model(padded_inputs).shape)

inputs = keras.Input(shape=(None,), dtype="int32")
x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
outputs = layers.LSTM(32)(x)
model = keras.Model(inputs, outputs)
set_seeded_weights(model)
print(np.round(model(padded_inputs).numpy()[:, :4], 4))
# the padded steps change nothing: the last sequence's outputs equal those of the same sequence without padding
print(np.allclose(model(padded_inputs[:1]).numpy(), model(padded_inputs[:1, :3]).numpy(), atol=1e-6))


class MyLayer(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
        self.lstm = layers.LSTM(32)

    def call(self, inputs):
        x = self.embedding(inputs)
        mask = self.embedding.compute_mask(inputs)
        return self.lstm(x, mask=mask)


layer = MyLayer()
x = (np.random.default_rng(1).random((32, 10)) * 100).astype("int32")
print(layer(x).shape, len(layer.weights))


class TemporalSplit(keras.layers.Layer):
    def call(self, inputs):
        return tf.split(inputs, 2, axis=1)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        return tf.split(mask, 2, axis=1)


first_half, second_half = TemporalSplit()(masked_embedding)
print(first_half._keras_mask)
print(second_half._keras_mask)


class CustomEmbedding(keras.layers.Layer):
    def __init__(self, input_dim, output_dim, mask_zero=False, **kwargs):
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.mask_zero = mask_zero

    def build(self, input_shape):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim), initializer="random_normal")

    def call(self, inputs):
        return tf.nn.embedding_lookup(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return tf.not_equal(inputs, 0)


layer = CustomEmbedding(10, 32, mask_zero=True)
x = (np.random.default_rng(2).random((3, 10)) * 9).astype("int32")
y = layer(x)
mask = layer.compute_mask(x)
print(mask)
print(y._keras_mask.shape, y.shape)


class MyActivation(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return tf.nn.relu(inputs)


inputs = keras.Input(shape=(None,), dtype="int32")
x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
x = MyActivation()(x)
print("Mask found:", x._keras_mask)
outputs = layers.LSTM(32)(x)
model = keras.Model(inputs, outputs)
print(model.output_shape)


class TemporalSoftmax(keras.layers.Layer):
    def call(self, inputs, mask=None):
        broadcast_float_mask = tf.expand_dims(tf.cast(mask, "float32"), -1)
        inputs_exp = tf.exp(inputs) * broadcast_float_mask
        inputs_sum = tf.reduce_sum(inputs_exp, axis=1, keepdims=True)
        return inputs_exp / inputs_sum


inputs = keras.Input(shape=(None,), dtype="int32")
x = layers.Embedding(input_dim=10, output_dim=32, mask_zero=True)(inputs)
x = layers.Dense(1)(x)
outputs = TemporalSoftmax()(x)
model = keras.Model(inputs, outputs)
set_seeded_weights(model, 3)
tokens = np.random.default_rng(4).integers(0, 10, size=(4, 12))
y = model(tokens)
print(y.shape, np.round(y.numpy()[0, :, 0], 4))
print(np.round(y.numpy().sum(axis=1).ravel(), 4))
