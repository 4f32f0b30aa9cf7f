"""TensorFlow's quickstart for experts: a subclassed model (Conv2D, Flatten, Dense), datasets from tensor slices
shuffled and batched, a GradientTape training step compiled with tf.function, and Keras metrics reset each epoch."""

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
x_train = rng.random((96, 28, 28)).astype("float32")
y_train = (x_train.mean(axis=(1, 2)) * 20).astype("int64") % 10
x_test, y_test = x_train[:32], y_train[:32]

x_train = x_train[..., tf.newaxis].astype("float32")
x_test = x_test[..., tf.newaxis].astype("float32")
print(x_train.shape, x_test.dtype)

train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(10000, seed=1).batch(32)
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(32)
print(train_ds.element_spec)
print(test_ds)


class MyModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv1 = tf.keras.layers.Conv2D(4, 3, activation="relu")
        self.flatten = tf.keras.layers.Flatten()
        self.d1 = tf.keras.layers.Dense(16, activation="relu")
        self.d2 = tf.keras.layers.Dense(10)

    def call(self, x):
        x = self.conv1(x)
        x = self.flatten(x)
        x = self.d1(x)
        return self.d2(x)


model = MyModel()
model(x_test[:1])
model.set_weights([rng.normal(0, 0.05, w.shape).astype("float32") for w in model.get_weights()])
print([tuple(w.shape) for w in model.get_weights()])
print([v.name for v in model.trainable_variables])

loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.Adam()

train_loss = tf.keras.metrics.Mean(name="train_loss")
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
test_loss = tf.keras.metrics.Mean(name="test_loss")
test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")
print(train_loss.name, train_accuracy.name, train_loss.result().numpy())


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = loss_object(labels, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    train_loss(loss)
    train_accuracy(labels, predictions)


@tf.function
def test_step(images, labels):
    predictions = model(images, training=False)
    t_loss = loss_object(labels, predictions)
    test_loss(t_loss)
    test_accuracy(labels, predictions)


EPOCHS = 2
for epoch in range(EPOCHS):
    train_loss.reset_state()
    train_accuracy.reset_state()
    test_loss.reset_state()
    test_accuracy.reset_state()
    for images, labels in train_ds:
        train_step(images, labels)
    for test_images, test_labels in test_ds:
        test_step(test_images, test_labels)
    print(
        f"Epoch {epoch + 1}, "
        f"Loss: {train_loss.result():.2f}, "
        f"Accuracy: {train_accuracy.result() * 100:.0f}, "
        f"Test Loss: {test_loss.result():.2f}, "
        f"Test Accuracy: {test_accuracy.result() * 100:.0f}"
    )
print(int(optimizer.iterations), train_step.experimental_get_tracing_count())
