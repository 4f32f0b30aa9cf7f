"""Keras's guide to writing callbacks: a callback that reports every hook of fit, evaluate and predict with the
keys of its logs, one that prints the loss of each batch and epoch, early stopping at the minimum loss through
`self.model.stop_training` and `get_weights`/`set_weights`, and a learning-rate schedule set through
`keras.backend.get_value` and an assignment to the optimizer's learning rate."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def get_model():
    model = keras.Sequential()
    model.add(keras.layers.Dense(1, input_dim=784))
    rng = np.random.default_rng(1)
    model.set_weights([rng.normal(0, 0.05, w.shape).astype("float32") for w in model.get_weights()])
    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate=0.1),
        loss="mean_squared_error",
        metrics=["mean_absolute_error"],
    )
    return model


rng = np.random.default_rng(0)
x_train = (rng.integers(0, 256, size=(320, 784)) / 255.0).astype("float32")
y_train = rng.integers(0, 10, size=320).astype("uint8")
x_test, y_test = x_train[:256], y_train[:256]


class CustomCallback(keras.callbacks.Callback):
    def on_train_begin(self, logs=None):
        print(f"Starting training; got log keys: {list(logs.keys())}")

    def on_train_end(self, logs=None):
        print(f"Stop training; got log keys: {list(logs.keys())}")

    def on_epoch_begin(self, epoch, logs=None):
        print(f"Start epoch {epoch} of training; got log keys: {list(logs.keys())}")

    def on_epoch_end(self, epoch, logs=None):
        print(f"End epoch {epoch} of training; got log keys: {list(logs.keys())}")

    def on_test_begin(self, logs=None):
        print(f"Start testing; got log keys: {list(logs.keys())}")

    def on_test_end(self, logs=None):
        print(f"Stop testing; got log keys: {list(logs.keys())}")

    def on_predict_begin(self, logs=None):
        print(f"Start predicting; got log keys: {list(logs.keys())}")

    def on_predict_end(self, logs=None):
        print(f"Stop predicting; got log keys: {list(logs.keys())}")

    def on_train_batch_begin(self, batch, logs=None):
        print(f"...Training: start of batch {batch}; got log keys: {list(logs.keys())}")

    def on_train_batch_end(self, batch, logs=None):
        print(f"...Training: end of batch {batch}; got log keys: {list(logs.keys())}")

    def on_test_batch_begin(self, batch, logs=None):
        print(f"...Evaluating: start of batch {batch}; got log keys: {list(logs.keys())}")

    def on_test_batch_end(self, batch, logs=None):
        print(f"...Evaluating: end of batch {batch}; got log keys: {list(logs.keys())}")

    def on_predict_batch_begin(self, batch, logs=None):
        print(f"...Predicting: start of batch {batch}; got log keys: {list(logs.keys())}")

    def on_predict_batch_end(self, batch, logs=None):
        print(f"...Predicting: end of batch {batch}; got log keys: {list(logs.keys())}")


model = get_model()
model.fit(
    x_train,
    y_train,
    batch_size=128,
    epochs=1,
    verbose=0,
    validation_split=0.5,
    shuffle=False,
    callbacks=[CustomCallback()],
)
res = model.evaluate(x_test, y_test, batch_size=128, verbose=0, callbacks=[CustomCallback()])
print([round(float(r), 2) for r in res])
res = model.predict(x_test, batch_size=128, verbose=0, callbacks=[CustomCallback()])
print(res.shape, res.dtype)


class LossAndErrorPrintingCallback(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print("For batch {}, loss is {:7.2f}.".format(batch, logs["loss"]))

    def on_test_batch_end(self, batch, logs=None):
        print("For batch {}, loss is {:7.2f}.".format(batch, logs["loss"]))

    def on_epoch_end(self, epoch, logs=None):
        print(
            "The average loss for epoch {} is {:7.2f} and mean absolute error is {:7.2f}.".format(
                epoch, logs["loss"], logs["mean_absolute_error"]
            )
        )


model = get_model()
model.fit(
    x_train, y_train, batch_size=128, epochs=2, verbose=0, shuffle=False, callbacks=[LossAndErrorPrintingCallback()]
)
res = model.evaluate(x_test, y_test, batch_size=128, verbose=0, callbacks=[LossAndErrorPrintingCallback()])


class EarlyStoppingAtMinLoss(keras.callbacks.Callback):
    def __init__(self, patience=0):
        super().__init__()
        self.patience = patience
        self.best_weights = None

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf

    def on_epoch_end(self, epoch, logs=None):
        current = logs.get("loss")
        if np.less(current, self.best):
            self.best = current
            self.wait = 0
            self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")


model = get_model()
history = model.fit(
    x_train,
    y_train,
    batch_size=64,
    steps_per_epoch=5,
    epochs=30,
    verbose=0,
    shuffle=False,
    callbacks=[LossAndErrorPrintingCallback(), EarlyStoppingAtMinLoss()],
)
print(len(history.epoch), model.stop_training)


class CustomLearningRateScheduler(keras.callbacks.Callback):
    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        lr = float(tf.keras.backend.get_value(self.model.optimizer.learning_rate))
        scheduled_lr = self.schedule(epoch, lr)
        self.model.optimizer.learning_rate = scheduled_lr
        print(f"\nEpoch {epoch:05d}: Learning rate is {scheduled_lr:6.4f}.")


LR_SCHEDULE = [(3, 0.05), (6, 0.01), (9, 0.005), (12, 0.001)]


def lr_schedule(epoch, lr):
    if epoch < LR_SCHEDULE[0][0] or epoch > LR_SCHEDULE[-1][0]:
        return lr
    for i in range(len(LR_SCHEDULE)):
        if epoch == LR_SCHEDULE[i][0]:
            return LR_SCHEDULE[i][1]
    return lr


model = get_model()
model.fit(
    x_train,
    y_train,
    batch_size=64,
    steps_per_epoch=5,
    epochs=8,
    verbose=0,
    shuffle=False,
    callbacks=[LossAndErrorPrintingCallback(), CustomLearningRateScheduler(lr_schedule)],
)
print(round(float(model.optimizer.learning_rate.numpy()), 4), hasattr(model.optimizer, "lr"))
print(model.optimizer.iterations.numpy())
