"""Keras's guide to training and evaluation with the built-in methods: fit with validation data, evaluate and
predict, a custom loss function and a custom loss class, a custom metric, class weights, sample weights, a
model with losses added by its layers, callbacks (EarlyStopping, a LearningRateScheduler, a custom callback)."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

rng = np.random.default_rng(5)
x_train = rng.random((200, 16)).astype("float32")
y_train = (x_train[:, :4].sum(axis=1) * 2).astype("int64") % 10
x_val, y_val = x_train[-40:], y_train[-40:]
x_train, y_train = x_train[:-40], y_train[:-40]


def get_uncompiled_model():
    inputs = keras.Input(shape=(16,), name="digits")
    x = layers.Dense(32, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(32, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)
    model.set_weights([np.random.default_rng(9).normal(0, 0.2, w.shape).astype("float32") for w in model.get_weights()])
    return model


def get_compiled_model():
    model = get_uncompiled_model()
    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
    )
    return model


def rounded(logs):
    return {key: [round(float(v), 2) for v in values] for key, values in logs.items()}


model = get_compiled_model()
history = model.fit(x_train, y_train, batch_size=32, epochs=2, validation_data=(x_val, y_val), verbose=0, shuffle=False)
print(rounded(history.history))
results = model.evaluate(x_val, y_val, batch_size=16, verbose=0)
print("test loss, test acc:", np.round(results, 3))
predictions = model.predict(x_val[:3], verbose=0)
print("predictions shape:", predictions.shape)
print(model.metrics_names)
print(model.evaluate(x_val, y_val, verbose=0, return_dict=True).keys())


def custom_mean_squared_error(y_true, y_pred):
    return tf.math.reduce_mean(tf.square(y_true - y_pred), axis=-1)


model = get_uncompiled_model()
model.compile(optimizer=keras.optimizers.Adam(), loss=custom_mean_squared_error)
y_train_one_hot = tf.one_hot(y_train, depth=10)
history = model.fit(x_train, y_train_one_hot, batch_size=64, epochs=1, verbose=0, shuffle=False)
print(rounded(history.history))


class CustomMSE(keras.losses.Loss):
    def __init__(self, regularization_factor=0.1, name="custom_mse"):
        super().__init__(name=name)
        self.regularization_factor = regularization_factor

    def call(self, y_true, y_pred):
        mse = tf.math.reduce_mean(tf.square(y_true - y_pred), axis=-1)
        reg = tf.math.reduce_mean(tf.square(0.5 - y_pred), axis=-1)
        return mse + reg * self.regularization_factor


model = get_uncompiled_model()
model.compile(optimizer=keras.optimizers.Adam(), loss=CustomMSE())
print(rounded(model.fit(x_train, y_train_one_hot, batch_size=64, epochs=1, verbose=0, shuffle=False).history))


class CategoricalTruePositives(keras.metrics.Metric):
    def __init__(self, name="categorical_true_positives", **kwargs):
        super().__init__(name=name, **kwargs)
        self.true_positives = self.add_variable(shape=(), name="ctp", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.reshape(tf.argmax(y_pred, axis=1), shape=(-1, 1))
        values = tf.cast(tf.reshape(y_true, (-1, 1)), "int32") == tf.cast(y_pred, "int32")
        values = tf.cast(values, "float32")
        if sample_weight is not None:
            sample_weight = tf.cast(sample_weight, "float32")
            values = tf.multiply(values, sample_weight)
        self.true_positives.assign_add(tf.reduce_sum(values))

    def result(self):
        return self.true_positives

    def reset_state(self):
        self.true_positives.assign(0.0)


model = get_uncompiled_model()
model.compile(
    optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
    loss=keras.losses.SparseCategoricalCrossentropy(),
    metrics=[CategoricalTruePositives()],
)
print(rounded(model.fit(x_train, y_train, batch_size=64, epochs=2, verbose=0, shuffle=False).history))


class ActivityRegularizationLayer(layers.Layer):
    def call(self, inputs):
        self.add_loss(tf.reduce_sum(inputs) * 0.1)
        return inputs


inputs = keras.Input(shape=(16,), name="digits")
x = layers.Dense(32, activation="relu", name="dense_1")(inputs)
x = ActivityRegularizationLayer()(x)
x = layers.Dense(32, activation="relu", name="dense_2")(x)
outputs = layers.Dense(10, name="predictions")(x)
model = keras.Model(inputs=inputs, outputs=outputs)
model.set_weights([np.random.default_rng(9).normal(0, 0.2, w.shape).astype("float32") for w in model.get_weights()])
model.compile(
    optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
print(rounded(model.fit(x_train, y_train, batch_size=64, epochs=1, verbose=0, shuffle=False).history))

model = get_compiled_model()
model.fit(x_train, y_train, batch_size=64, validation_split=0.2, epochs=1, verbose=0, shuffle=False)
train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(64)
val_dataset = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(64)
print(rounded(model.fit(train_dataset, epochs=2, validation_data=val_dataset, verbose=0, shuffle=False).history))
print(round(model.evaluate(val_dataset, verbose=0)[0], 3))
model = get_compiled_model()
repeated = tf.data.Dataset.from_tensor_slices((x_train, y_train)).repeat().batch(64)
history = model.fit(repeated, epochs=3, steps_per_epoch=2, verbose=0, shuffle=False)
print(rounded(history.history), history.params)
history = model.fit(train_dataset, epochs=1, validation_data=val_dataset, validation_steps=1, verbose=0, shuffle=False)
print(rounded(history.history))

class_weight = {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 2.0, 6: 1.0, 7: 1.0, 8: 1.0, 9: 1.0}
model = get_compiled_model()
print(
    rounded(
        model.fit(
            x_train, y_train, class_weight=class_weight, batch_size=64, epochs=1, verbose=0, shuffle=False
        ).history
    )
)
sample_weight = np.ones(shape=(len(y_train),))
sample_weight[y_train == 5] = 2.0
model = get_compiled_model()
print(
    rounded(
        model.fit(
            x_train, y_train, sample_weight=sample_weight, batch_size=64, epochs=1, verbose=0, shuffle=False
        ).history
    )
)
train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train, sample_weight)).batch(64)
model = get_compiled_model()
print(rounded(model.fit(train_dataset, epochs=1, verbose=0, shuffle=False).history))
print(round(model.evaluate(x_val, y_val, sample_weight=np.linspace(0, 1, 40), verbose=0)[0], 3))
model = get_uncompiled_model()
model.compile(
    optimizer="rmsprop",
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
    weighted_metrics=["accuracy"],
)
history = model.fit(x_train, y_train, sample_weight=sample_weight, batch_size=64, epochs=1, verbose=0, shuffle=False)
print(rounded(history.history))

model = get_compiled_model()
callbacks = [keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=1e-2, patience=2, verbose=1)]
history = model.fit(
    x_train, y_train, epochs=20, batch_size=64, callbacks=callbacks, validation_split=0.2, verbose=0, shuffle=False
)
print(len(history.history["loss"]), history.epoch)


class LossHistory(keras.callbacks.Callback):
    def on_train_begin(self, logs):
        self.per_batch_losses = []

    def on_batch_end(self, batch, logs):
        self.per_batch_losses.append(logs.get("loss"))


loss_history = LossHistory()
model = get_compiled_model()
model.fit(x_train, y_train, epochs=1, batch_size=64, callbacks=[loss_history], verbose=0, shuffle=False)
print(len(loss_history.per_batch_losses), [round(v, 3) for v in loss_history.per_batch_losses])


def scheduler(epoch, lr):
    return lr if epoch < 1 else lr * 0.5


model = get_compiled_model()
history = model.fit(
    x_train,
    y_train,
    epochs=3,
    batch_size=64,
    callbacks=[keras.callbacks.LearningRateScheduler(scheduler)],
    verbose=0,
    shuffle=False,
)
print(rounded(history.history))
initial_learning_rate = 0.1
lr_schedule = keras.optimizers.schedules.ExponentialDecay(
    initial_learning_rate, decay_steps=100000, decay_rate=0.96, staircase=True
)
optimizer = keras.optimizers.RMSprop(learning_rate=lr_schedule)
print(type(optimizer.learning_rate).__name__, round(float(optimizer.learning_rate), 4))
