"""Keras's guide to the Sequential model: a stack of layers called on a tensor, the same layers called by hand,
`add` and `pop`, names, weights created on the first call, the summary of a model given its input shape (by
`keras.Input` or `input_shape=`), the add-then-summary workflow on a stack of convolutions, feature extraction
from the layers' outputs, and freezing all layers but the last before training."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

model = keras.Sequential(
    [
        layers.Dense(2, activation="relu", name="layer1"),
        layers.Dense(3, activation="relu", name="layer2"),
        layers.Dense(4, name="layer3"),
    ]
)
x = tf.ones((3, 3))
y = model(x)
print(y.shape, y.dtype)

layer1 = layers.Dense(2, activation="relu", name="layer1")
layer2 = layers.Dense(3, activation="relu", name="layer2")
layer3 = layers.Dense(4, name="layer3")
y = layer3(layer2(layer1(x)))
print(y.shape)

model = keras.Sequential([layers.Dense(2, activation="relu"), layers.Dense(3, activation="relu"), layers.Dense(4)])
print(model.layers)
print(len(model.layers), model.built)

model = keras.Sequential()
model.add(layers.Dense(2, activation="relu"))
model.add(layers.Dense(3, activation="relu"))
model.add(layers.Dense(4))
model.pop()
print(len(model.layers))

model = keras.Sequential(name="my_sequential")
model.add(layers.Dense(2, activation="relu", name="layer1"))
model.add(layers.Dense(3, activation="relu", name="layer2"))
model.add(layers.Dense(4, name="layer3"))
print(model.name, [layer.name for layer in model.layers])

layer = layers.Dense(3)
print(layer.weights)
y = layer(tf.ones((1, 4)))
print([(w.name, tuple(w.shape)) for w in layer.weights])

model = keras.Sequential([layers.Dense(2, activation="relu"), layers.Dense(3, activation="relu"), layers.Dense(4)])
y = model(tf.ones((1, 4)))
print("Number of weights after calling the model:", len(model.weights))
model.summary()

model = keras.Sequential()
model.add(keras.Input(shape=(4,)))
model.add(layers.Dense(2, activation="relu"))
model.summary()
print(model.layers)

model = keras.Sequential()
model.add(layers.Dense(2, activation="relu", input_shape=(4,)))
model.summary()
print(model.input_shape, model.output_shape)

model = keras.Sequential()
model.add(keras.Input(shape=(64, 64, 3)))
model.add(layers.Conv2D(8, 5, strides=2, activation="relu"))
model.add(layers.Conv2D(8, 3, activation="relu"))
model.add(layers.MaxPooling2D(3))
model.summary()
model.add(layers.Conv2D(8, 3, activation="relu"))
model.add(layers.Conv2D(8, 3, activation="relu"))
model.add(layers.MaxPooling2D(2))
model.summary()
model.add(layers.GlobalMaxPooling2D())
model.add(layers.Dense(10))
print(model.output_shape, model.count_params())

initial_model = keras.Sequential(
    [
        keras.Input(shape=(32, 32, 3)),
        layers.Conv2D(4, 5, strides=2, activation="relu"),
        layers.Conv2D(4, 3, activation="relu", name="my_intermediate_layer"),
        layers.Conv2D(4, 3, activation="relu"),
    ]
)
feature_extractor = keras.Model(
    inputs=initial_model.inputs,
    outputs=[layer.output for layer in initial_model.layers],
)
features = feature_extractor(tf.ones((1, 32, 32, 3)))
print([tuple(f.shape) for f in features])
feature_extractor = keras.Model(
    inputs=initial_model.inputs,
    outputs=initial_model.get_layer(name="my_intermediate_layer").output,
)
print(feature_extractor(tf.ones((1, 32, 32, 3))).shape)

model = keras.Sequential(
    [
        keras.Input(shape=(16,)),
        layers.Dense(8, activation="relu"),
        layers.Dense(8, activation="relu"),
        layers.Dense(3),
    ]
)
rng = np.random.default_rng(0)
model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
for layer in model.layers[:-1]:
    layer.trainable = False
print(len(model.trainable_weights), len(model.non_trainable_weights))
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
frozen = [w.copy() for w in model.layers[0].get_weights()]
x_train = rng.random((64, 16)).astype("float32")
y_train = rng.integers(3, size=64)
history = model.fit(x_train, y_train, batch_size=16, epochs=2, verbose=0, shuffle=False)
print({k: [round(v, 3) for v in vs] for k, vs in history.history.items()})
print(all(np.array_equal(a, b) for a, b in zip(frozen, model.layers[0].get_weights())))
model.summary()
