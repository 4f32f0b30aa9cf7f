"""TensorFlow's Keras regression tutorial and Keras's guides on training with built-in methods, callbacks and
saving: a Normalization layer adapted to the features, a Dense model compiled with "mean_absolute_error", fitted
with a validation split and a callback that records each epoch, evaluated, saved as .keras and loaded back."""

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(2)
features = rng.normal(3.0, 2.0, size=(200, 3)).astype("float32")
labels = (features @ np.array([1.5, -2.0, 0.5], "float32") + 4.0).astype("float32")

normalizer = tf.keras.layers.Normalization(axis=-1)
normalizer.adapt(features)
print(np.round(normalizer(features[:2]).numpy(), 3))

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), normalizer, tf.keras.layers.Dense(1)])
model.set_weights(model.get_weights()[:3] + [np.full((3, 1), 0.1, "float32"), np.zeros(1, "float32")])
model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=0.1), loss="mean_absolute_error")


class Recorder(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print(epoch, sorted(logs), round(logs["loss"], 1))


history = model.fit(features, labels, epochs=3, verbose=0, validation_split=0.2, shuffle=False, callbacks=[Recorder()])
print(sorted(history.history), history.epoch)
print(round(model.evaluate(features, labels, verbose=0), 1))

model.save("regression.keras")
restored = tf.keras.models.load_model("regression.keras")
print(np.allclose(restored.predict(features[:4], verbose=0), model.predict(features[:4], verbose=0)))
print([type(layer).__name__ for layer in restored.layers])
