"""Keras's guide to recurrent layers: Embedding then LSTM, GRU and SimpleRNN stacks and their summaries, an
encoder's LSTM states as a decoder's initial state (in a functional model and called on arrays), Bidirectional
wrappers (also over a padded, masked sequence), `RNN(LSTMCell)` computing what `LSTM` computes, and a short fit of
an LSTM classifier with BatchNormalization. (The guide's stateful layers are left out of minitf.)"""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def set_seeded_weights(model, seed=0):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0, 0.1, w.shape).astype("float32") for w in model.get_weights()])


model = keras.Sequential()
model.add(layers.Embedding(input_dim=1000, output_dim=64))
model.add(layers.LSTM(128))
model.add(layers.Dense(10))
model.summary()

model = keras.Sequential()
model.add(keras.Input((None,)))
model.add(layers.Embedding(input_dim=1000, output_dim=64))
model.add(layers.GRU(256, return_sequences=True))
model.add(layers.SimpleRNN(128))
model.add(layers.Dense(10))
model.summary()

encoder_input = layers.Input(shape=(None,))
encoder_embedded = layers.Embedding(input_dim=1000, output_dim=16)(encoder_input)
output, state_h, state_c = layers.LSTM(16, return_state=True, name="encoder")(encoder_embedded)
encoder_state = [state_h, state_c]
print(output.shape, state_h.shape, state_c.shape)
decoder_input = layers.Input(shape=(None,))
decoder_embedded = layers.Embedding(input_dim=2000, output_dim=16)(decoder_input)
decoder_output = layers.LSTM(16, name="decoder")(decoder_embedded, initial_state=encoder_state)
output = layers.Dense(10)(decoder_output)
model = keras.Model([encoder_input, decoder_input], output)
model.summary()
set_seeded_weights(model, 1)
rng = np.random.default_rng(0)
encoder_tokens, decoder_tokens = rng.integers(1000, size=(2, 7)), rng.integers(2000, size=(2, 5))
print(np.round(model.predict([encoder_tokens, decoder_tokens], verbose=0), 4))

paragraph = rng.random((4, 6, 5)).astype(np.float32)
lstm_layer = layers.LSTM(8, return_state=True)
output, *existing_state = lstm_layer(paragraph)
new_lstm_layer = layers.LSTM(8)
new_output = new_lstm_layer(paragraph, initial_state=existing_state)
print(new_output.shape, [tuple(s.shape) for s in existing_state])

model = keras.Sequential()
model.add(layers.Bidirectional(layers.LSTM(64, return_sequences=True), input_shape=(5, 10)))
model.add(layers.Bidirectional(layers.LSTM(32)))
model.add(layers.Dense(10))
model.summary()
set_seeded_weights(model, 2)
print(np.round(model(rng.random((2, 5, 10)).astype("float32")).numpy(), 4))

inputs = keras.Input((None,), dtype="int32")
x = layers.Embedding(50, 4, mask_zero=True)(inputs)
x = layers.Bidirectional(layers.GRU(3, return_sequences=True), merge_mode="sum")(x)
print(x.shape, getattr(x, "_keras_mask", None) is not None)
outputs = layers.GlobalAveragePooling1D()(x)
masked_model = keras.Model(inputs, outputs)
set_seeded_weights(masked_model, 3)
padded = keras.utils.pad_sequences([[5, 9, 2], [7, 1, 3, 8, 4]], padding="post")
print(np.round(masked_model(padded).numpy(), 4))
print(np.allclose(masked_model(padded[:1]).numpy(), masked_model(padded[:1, :3]).numpy(), atol=1e-6))

cell_layer = layers.RNN(layers.LSTMCell(6))
lstm = layers.LSTM(6)
sequence = rng.random((3, 4, 2)).astype("float32")
cell_layer(sequence)
lstm(sequence)
lstm.set_weights(cell_layer.get_weights())
print(np.allclose(cell_layer(sequence).numpy(), lstm(sequence).numpy(), atol=1e-6))
print([w.name for w in cell_layer.weights], [w.name for w in lstm.weights])


def build_model(allow_cudnn_kernel=True):
    if allow_cudnn_kernel:
        lstm_layer = keras.layers.LSTM(16, input_shape=(None, 28))
    else:
        lstm_layer = keras.layers.RNN(keras.layers.LSTMCell(16), input_shape=(None, 28))
    return keras.models.Sequential([lstm_layer, keras.layers.BatchNormalization(), keras.layers.Dense(10)])


x_train = rng.random((64, 28, 28)).astype("float32")
y_train = rng.integers(10, size=64)
model = build_model(allow_cudnn_kernel=True)
set_seeded_weights(model, 4)
model.compile(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer="sgd", metrics=["accuracy"])
history = model.fit(x_train, y_train, validation_data=(x_train[:16], y_train[:16]), batch_size=32, epochs=2, verbose=0)
print(
    sorted(history.history), [round(v, 2) for v in history.history["accuracy"]], round(history.history["loss"][-1], 1)
)
noncudnn_model = build_model(allow_cudnn_kernel=False)
noncudnn_model.set_weights(model.get_weights())
result = tf.argmax(noncudnn_model.predict_on_batch(tf.expand_dims(x_train[0], 0)), axis=1)
print(f"Predicted result is: {result.numpy()}, target result is: {y_train[0]}")
