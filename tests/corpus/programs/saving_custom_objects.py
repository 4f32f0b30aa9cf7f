"""Keras's guide on serialization and saving, for custom objects: a subclassed model with `get_config`, a custom
layer registered with `register_keras_serializable`, a custom activation and a custom loss as plain functions; the
whole model saved as .keras and loaded with `custom_objects` or inside `custom_object_scope`, its weights alone
saved as .weights.h5 and loaded into a new model, and the error when the loader does not know a class."""

import numpy as np
import tensorflow as tf

keras = tf.keras
rng = np.random.default_rng(5)
inputs_array = rng.normal(size=(16, 5)).astype("float32")
targets = (inputs_array.sum(axis=1, keepdims=True) > 0).astype("float32")


@keras.utils.register_keras_serializable(package="guide")
class Linear(keras.layers.Layer):
    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones", name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")

    def call(self, inputs):
        return tf.matmul(inputs, self.w) / 5.0 + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


def squashed(x):
    return tf.nn.tanh(x) ** 2


def halved_squared_error(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1) / 2.0


@keras.utils.register_keras_serializable(package="guide")
class Classifier(keras.Model):
    def __init__(self, hidden_units=(6, 4), **kwargs):
        super().__init__(**kwargs)
        self.hidden_units = list(hidden_units)
        self.features = Linear(8)
        self.hidden = [keras.layers.Dense(u, activation=squashed, kernel_initializer="ones") for u in hidden_units]
        self.head = keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones")

    def call(self, inputs):
        x = self.features(inputs)
        for layer in self.hidden:
            x = layer(x)
        return self.head(x)

    def get_config(self):
        return {**super().get_config(), "hidden_units": self.hidden_units}


model = Classifier((6, 4))
model.compile(optimizer=keras.optimizers.SGD(0.1), loss=halved_squared_error, metrics=["mae"])
model.fit(inputs_array, targets, epochs=2, batch_size=8, shuffle=False, verbose=0)
before = model.predict(inputs_array, verbose=0)
print("trained:", np.round(before[:3, 0], 4))

model.save("classifier.keras")
restored = keras.models.load_model(
    "classifier.keras", custom_objects={"squashed": squashed, "halved_squared_error": halved_squared_error}
)
print(type(restored).__name__, restored.hidden_units, [type(layer).__name__ for layer in restored.layers])
print("same predictions:", np.allclose(restored.predict(inputs_array, verbose=0), before, atol=1e-6))
print("compiled again:", [round(value, 4) for value in restored.evaluate(inputs_array, targets, verbose=0)])

with keras.utils.custom_object_scope({"squashed": squashed, "halved_squared_error": halved_squared_error}):
    scoped = keras.models.load_model("classifier.keras")
print("loaded in a scope:", np.allclose(scoped(inputs_array).numpy(), before, atol=1e-6))

model.save_weights("classifier.weights.h5")
fresh = Classifier((6, 4))
fresh(inputs_array[:1])
fresh.load_weights("classifier.weights.h5")
print("weights only:", np.allclose(fresh(inputs_array).numpy(), before, atol=1e-6))

inputs = keras.Input((5,))
outputs = keras.layers.Activation(squashed)(Linear(3)(inputs))
functional = keras.Model(inputs, outputs)
functional.save("functional.keras")
reloaded = keras.models.load_model("functional.keras", custom_objects={"squashed": squashed})
print("functional:", np.allclose(reloaded(inputs_array).numpy(), functional(inputs_array).numpy(), atol=1e-6))

registered = keras.utils.get_custom_objects()
kept = dict(registered)
registered.clear()
try:
    keras.models.load_model("classifier.keras")
except TypeError as error:
    print(type(error).__name__, str(error).split(". ")[0])
registered.update(kept)
print(keras.utils.get_registered_name(Linear), keras.utils.get_registered_name(squashed))
