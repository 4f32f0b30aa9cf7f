"""TensorFlow's autodiff guide: gradients of tensors and variables, persistent tapes, watching, stopping the
recording, gradients through control flow, None gradients and unconnected_gradients."""

import tensorflow as tf

x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = x**2
print(tape.gradient(y, x).numpy())

w = tf.Variable(tf.reshape(tf.range(6, dtype=tf.float32), (3, 2)), name="w")
b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
x = [[1.0, 2.0, 3.0]]
with tf.GradientTape(persistent=True) as tape:
    y = x @ w + b
    loss = tf.reduce_mean(y**2)
[dl_dw, dl_db] = tape.gradient(loss, [w, b])
print(w.shape, dl_dw.shape)
print(dl_dw, dl_db)
print(tape.gradient(loss, {"w": w, "b": b})["b"])
del tape

x0 = tf.Variable(3.0, name="x0")
x1 = tf.Variable(3.0, name="x1", trainable=False)
x2 = tf.Variable(2.0, name="x2") + 1.0
x3 = tf.constant(3.0, name="x3")
with tf.GradientTape() as tape:
    y = (x0**2) + (x1**2) + (x2**2)
print([var.name for var in tape.watched_variables()])
print(tape.gradient(y, [x0, x1, x2, x3]))

x = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
print(tape.gradient(y, x))

x = tf.constant([1.0, 3.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
    z = y * y
print(tape.gradient(z, x).numpy(), tape.gradient(y, x).numpy())

x = tf.Variable(2.0)
y = tf.Variable(3.0)
with tf.GradientTape() as t:
    x_sq = x * x
    with t.stop_recording():
        y_sq = y * y
    z = x_sq + y_sq
print(t.gradient(z, {"x": x, "y": y}))

x = tf.constant(1.0)
v0 = tf.Variable(2.0)
v1 = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    if x > 0.0:
        result = v0
    else:
        result = v1**2
dv0, dv1 = tape.gradient(result, [v0, v1])
print(dv0, dv1)

x = tf.Variable([2.0, 2.0])
y = tf.Variable(3.0)
with tf.GradientTape() as tape:
    z = y**2
print(tape.gradient(z, x))
with tf.GradientTape() as tape:
    z = y**2
print(tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO))
