"""TensorFlow's basic training loops guide: synthetic data of a line with noise, a tf.Module model with two
variables, a loss, a training step written with GradientTape and assign_sub, epochs of training, and the same
model as a Keras Model trained with compile and fit."""

import numpy as np
import tensorflow as tf

TRUE_W, TRUE_B = 3.0, 2.0
NUM_EXAMPLES = 201
rng = np.random.default_rng(7)
x = tf.constant(np.linspace(-2, 2, NUM_EXAMPLES, dtype=np.float32))
noise = tf.constant(rng.normal(size=NUM_EXAMPLES).astype(np.float32))
y = x * TRUE_W + TRUE_B + noise
print(x.shape, y.dtype, round(float(tf.reduce_mean(y)), 4))


class MyModel(tf.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


model = MyModel()
print("Variables:", [v.numpy() for v in model.variables])
print(len(model.trainable_variables), model.w.name, model.b.name)


def loss(target_y, predicted_y):
    return tf.reduce_mean(tf.square(target_y - predicted_y))


print(f"Current loss: {loss(y, model(x)).numpy():1.4f}")


def train(model, x, y, learning_rate):
    with tf.GradientTape() as t:
        current_loss = loss(y, model(x))
    dw, db = t.gradient(current_loss, [model.w, model.b])
    model.w.assign_sub(learning_rate * dw)
    model.b.assign_sub(learning_rate * db)


weights, biases = [], []
for epoch in range(10):
    train(model, x, y, learning_rate=0.1)
    weights.append(model.w.numpy())
    biases.append(model.b.numpy())
    current_loss = loss(y, model(x))
    print(f"Epoch {epoch:2d}: W={weights[-1]:1.2f} b={biases[-1]:1.2f}, loss={current_loss:2.5f}")


@tf.function
def train_step(model, x, y):
    with tf.GradientTape() as t:
        current_loss = loss(y, model(x))
    grads = t.gradient(current_loss, model.trainable_variables)
    for g, v in zip(grads, model.trainable_variables):
        v.assign_sub(0.1 * g)
    return current_loss


traced_model = MyModel()
for _ in range(5):
    last = train_step(traced_model, x, y)
print(round(float(last), 4), round(float(traced_model.w), 4), round(float(traced_model.b), 4))


class MyKerasModel(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def call(self, x):
        return self.w * x + self.b


keras_model = MyKerasModel()
keras_model.compile(run_eagerly=False, optimizer=tf.keras.optimizers.SGD(learning_rate=0.1), loss="mse")
history = keras_model.fit(x, y, epochs=5, batch_size=len(x), verbose=0)
print([round(v, 4) for v in history.history["loss"]])
print(round(float(keras_model.w), 4), round(float(keras_model.b), 4))
print(len(keras_model.trainable_variables))
