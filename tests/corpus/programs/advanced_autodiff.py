"""TensorFlow's advanced autodiff guide: stopping and resetting a tape, stop_gradient, custom gradients (gradient
clipping), several tapes and higher-order gradients, jacobians (scalar and tensor sources, batch jacobians) and a
Hessian by nested tapes."""

import numpy as np
import tensorflow as tf

x = tf.Variable(2.0)
y = tf.Variable(3.0)
with tf.GradientTape() as t:
    x_sq = x * x
    with t.stop_recording():
        y_sq = y * y
    z = x_sq + y_sq
grad = t.gradient(z, {"x": x, "y": y})
print("dz/dx:", grad["x"], "dz/dy:", grad["y"])

reset = True
with tf.GradientTape() as t:
    y_sq = y * y
    if reset:
        t.reset()
    z = x * x + y_sq
grad = t.gradient(z, {"x": x, "y": y})
print("dz/dx:", grad["x"], "dz/dy:", grad["y"])

with tf.GradientTape() as t:
    z = x**2 + tf.stop_gradient(y**2)
print([g.numpy() if g is not None else None for g in t.gradient(z, [x, y])])


@tf.custom_gradient
def clip_gradients(value):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)

    return value, backward


v = tf.Variable(2.0)
with tf.GradientTape() as t:
    output = clip_gradients(v * v)
print(t.gradient(output, v))


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return tf.math.log(1 + e), grad


big = tf.constant(100.0)
with tf.GradientTape() as t:
    t.watch(big)
    out = log1pexp(big)
print(out, t.gradient(out, big))

x0 = tf.constant(0.0)
x1 = tf.constant(0.0)
with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
    tape0.watch(x0)
    tape1.watch(x1)
    y0 = tf.math.sin(x0)
    y1 = tf.nn.sigmoid(x1)
    y = y0 + y1
    ys = tf.reduce_sum(y)
print(tape0.gradient(ys, x0).numpy(), tape1.gradient(ys, x1).numpy())

x = tf.Variable(1.0)
with tf.GradientTape() as t2:
    with tf.GradientTape() as t1:
        y = x * x * x
    dy_dx = t1.gradient(y, x)
d2y_dx2 = t2.gradient(dy_dx, x)
print("dy_dx:", dy_dx.numpy(), "d2y_dx2:", d2y_dx2.numpy())

x = tf.constant(np.linspace(-1.0, 1.0, 35, dtype=np.float32).reshape(7, 5))
layer = tf.keras.layers.Dense(8, activation=tf.nn.relu)
layer.build([None, 5])
layer.kernel.assign(np.linspace(-0.5, 0.5, 40, dtype=np.float32).reshape(5, 8))
with tf.GradientTape() as t2:
    t2.watch(x)
    with tf.GradientTape() as t1:
        t1.watch(x)
        result = layer(x)
        loss = tf.reduce_mean(result**2)
    g1 = t1.gradient(loss, x)
    g1_mag = tf.norm(g1)
dg1_mag = t2.gradient(g1_mag, x)
print(np.round(dg1_mag.numpy(), 4).shape, np.round(float(g1_mag), 4))

x = tf.linspace(-10.0, 10.0, 9)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.nn.sigmoid(x)
dy_dx = tape.jacobian(y, x)
print(dy_dx.shape, np.round(np.diag(dy_dx.numpy()), 5))

w = tf.Variable(np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(3, 2))
inputs = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
with tf.GradientTape(persistent=True) as tape:
    y = tf.nn.tanh(inputs @ w)
j = tape.jacobian(y, w)
print(j.shape, np.round(tf.reduce_sum(j, axis=[0, 1]).numpy(), 4))
del tape

x = tf.constant(np.linspace(0.1, 1.0, 8, dtype=np.float32).reshape(2, 4))
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.nn.softmax(x * 2.0)
jb = tape.batch_jacobian(y, x)
print(jb.shape, np.round(jb[0].numpy(), 4))
del tape

w1 = tf.Variable(np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3))
sample = tf.constant([[1.0, -2.0]])
with tf.GradientTape() as t2:
    with tf.GradientTape() as t1:
        loss = tf.reduce_sum(tf.nn.sigmoid(sample @ w1) ** 2)
    g = t1.gradient(loss, w1)
hessian = t2.jacobian(g, w1)
print(hessian.shape, np.round(tf.reshape(hessian, [6, 6]).numpy()[0], 4))

print(tf.GradientTape().__class__.__name__)
with tf.GradientTape() as tape:
    tape.watch(big)
    unrelated = tf.constant(1.0) * 2
print(tape.gradient(unrelated, big), tape.__class__.__name__)
