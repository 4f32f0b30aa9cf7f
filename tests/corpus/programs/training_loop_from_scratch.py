"""Keras's guide to writing a training loop from scratch and TensorFlow's custom training walkthrough: a
functional model, an optimizer, a loss and metrics, a loop over a tf.data pipeline with a GradientTape, the same
step compiled with tf.function, and a validation pass."""

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(1)
x = rng.normal(size=(120, 4)).astype("float32")
y = (x[:, 0] + x[:, 1] > 0).astype("int32") + (x[:, 2] > 1).astype("int32")

inputs = tf.keras.Input(shape=(4,), name="features")
hidden = tf.keras.layers.Dense(10, activation="relu")(inputs)
outputs = tf.keras.layers.Dense(3, name="predictions")(hidden)
model = tf.keras.Model(inputs=inputs, outputs=outputs)
model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])

optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_acc_metric = tf.keras.metrics.SparseCategoricalAccuracy()
loss_avg = tf.keras.metrics.Mean()

train_dataset = tf.data.Dataset.from_tensor_slices((x[:96], y[:96])).batch(32)
val_dataset = tf.data.Dataset.from_tensor_slices((x[96:], y[96:])).batch(32)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss_value = loss_fn(y, logits)
    grads = tape.gradient(loss_value, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    train_acc_metric.update_state(y, logits)
    return loss_value


for epoch in range(3):
    for x_batch, y_batch in train_dataset:
        loss_avg.update_state(train_step(x_batch, y_batch))
    print(f"epoch {epoch}: loss {float(loss_avg.result()):.3f}, accuracy {float(train_acc_metric.result()):.3f}")
    loss_avg.reset_state()
    train_acc_metric.reset_state()

val_acc_metric = tf.keras.metrics.SparseCategoricalAccuracy()
for x_batch, y_batch in val_dataset:
    val_acc_metric.update_state(y_batch, model(x_batch, training=False))
print(f"validation accuracy {float(val_acc_metric.result()):.3f}")
print(int(optimizer.iterations.numpy()))
