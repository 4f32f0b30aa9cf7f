"""TensorFlow's beginner quickstart: a Sequential classifier of 28x28 images, compiled with Adam and a sparse
categorical cross-entropy on logits, fitted, evaluated, then wrapped with a softmax."""

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
x_train = rng.random((256, 28, 28)).astype("float32")
y_train = (x_train.mean(axis=(1, 2)) * 20).astype("int64") % 10
x_test, y_test = x_train[:64], y_train[:64]

model = tf.keras.models.Sequential(
    [
        tf.keras.layers.Flatten(input_shape=(28, 28)),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(10),
    ]
)
model.set_weights([rng.normal(0, 0.05, w.shape).astype("float32") for w in model.get_weights()])
predictions = model(x_train[:1]).numpy()
print(predictions.shape, predictions.dtype)
print(tf.nn.softmax(predictions).numpy().sum().round(4))

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
print(round(float(loss_fn(y_train[:1], predictions)), 3))
model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])
history = model.fit(x_train, y_train, epochs=2, batch_size=32, verbose=0, shuffle=False)
print(sorted(history.history), len(history.history["loss"]))
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
print(round(loss, 2), round(accuracy, 2))

probability_model = tf.keras.Sequential([model, tf.keras.layers.Softmax()])
print(probability_model(x_test[:5]).shape, np.round(probability_model(x_test[:5]).numpy().sum(axis=1), 4))
