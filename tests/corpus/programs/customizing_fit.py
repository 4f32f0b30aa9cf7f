"""Keras's guide to customizing what happens in fit(): a Model subclass overriding train_step (its own loss
metric, compute_loss, the optimizer's apply), metrics listed by the model, test_step for evaluate, and sample
weights unpacked in train_step."""

import numpy as np
import tensorflow as tf
from tensorflow import keras

loss_tracker = keras.metrics.Mean(name="loss")
mae_metric = keras.metrics.MeanAbsoluteError(name="mae")


class CustomModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = keras.losses.MeanSquaredError()(y, y_pred)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        loss_tracker.update_state(loss)
        mae_metric.update_state(y, y_pred)
        return {"loss": loss_tracker.result(), "mae": mae_metric.result()}

    @property
    def metrics(self):
        return [loss_tracker, mae_metric]


def seeded(model):
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
    return model


x = np.random.default_rng(1).random((64, 32)).astype("float32")
y = np.random.default_rng(2).random((64, 1)).astype("float32")
inputs = keras.Input(shape=(32,))
outputs = keras.layers.Dense(1)(inputs)
model = seeded(CustomModel(inputs, outputs))
model.compile(optimizer="adam")
history = model.fit(x, y, epochs=3, batch_size=16, shuffle=False, verbose=0)
print({k: [round(float(v), 3) for v in vs] for k, vs in history.history.items()})


class CustomModel2(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


inputs = keras.Input(shape=(32,))
outputs = keras.layers.Dense(1)(inputs)
model = seeded(CustomModel2(inputs, outputs))
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
history = model.fit(x, y, epochs=2, batch_size=16, shuffle=False, verbose=0)
print(sorted(history.history), [round(v, 3) for v in history.history["loss"]])


class CustomModel3(keras.Model):
    def train_step(self, data):
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(gradients, self.trainable_variables)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


inputs = keras.Input(shape=(32,))
outputs = keras.layers.Dense(1)(inputs)
model = seeded(CustomModel3(inputs, outputs))
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
sw = np.random.default_rng(3).random((64, 1))
history = model.fit(x, y, sample_weight=sw, epochs=2, batch_size=16, shuffle=False, verbose=0)
print([round(v, 3) for v in history.history["loss"]])
print(np.round(model.evaluate(x, y, verbose=0), 3))
