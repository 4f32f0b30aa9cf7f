"""Keras's guide to transfer learning and fine-tuning: trainable and non-trainable weights of Dense and
BatchNormalization, `trainable = False` moving weights (and the optimizer leaving them alone), freezing a whole
model recursively, a frozen base called with `training=False` under a new head, training the head, then unfreezing
the base and fine-tuning with a small learning rate (in Keras 3 the model's `training` flag reaches the base
then, so its BatchNormalization updates its moving statistics)."""

import numpy as np
from tensorflow import keras

layer = keras.layers.Dense(3)
layer.build((None, 4))
print("weights:", len(layer.weights))
print("trainable_weights:", len(layer.trainable_weights))
print("non_trainable_weights:", len(layer.non_trainable_weights))

layer = keras.layers.BatchNormalization()
layer.build((None, 4))
print("weights:", len(layer.weights))
print("trainable_weights:", len(layer.trainable_weights))
print("non_trainable_weights:", len(layer.non_trainable_weights))
print([w.name for w in layer.non_trainable_weights])

layer = keras.layers.Dense(3)
layer.build((None, 4))
layer.trainable = False
print("weights:", len(layer.weights))
print("trainable_weights:", len(layer.trainable_weights))
print("non_trainable_weights:", len(layer.non_trainable_weights))

layer1 = keras.layers.Dense(3, activation="relu")
layer2 = keras.layers.Dense(3, activation="sigmoid")
model = keras.Sequential([keras.Input(shape=(3,)), layer1, layer2])
rng = np.random.default_rng(0)
model.set_weights([rng.normal(0, 0.5, w.shape).astype("float32") for w in model.get_weights()])
layer1.trainable = False
initial_layer1_weights_values = layer1.get_weights()
model.compile(optimizer="adam", loss="mse")
model.fit(rng.random((2, 3)), rng.random((2, 3)), verbose=0)
final_layer1_weights_values = layer1.get_weights()
print(all(np.array_equal(a, b) for a, b in zip(initial_layer1_weights_values, final_layer1_weights_values)))
print(np.round(layer2.get_weights()[1], 4))

inner_model = keras.Sequential(
    [keras.Input(shape=(3,)), keras.layers.Dense(3, activation="relu"), keras.layers.Dense(3)]
)
model = keras.Sequential([keras.Input(shape=(3,)), inner_model, keras.layers.Dense(3, activation="sigmoid")])
model.trainable = False
print(len(model.trainable_weights), inner_model.trainable, inner_model.layers[0].trainable)

base_model = keras.Sequential(
    [
        keras.Input(shape=(8, 8, 3)),
        keras.layers.Conv2D(4, 3, activation="relu"),
        keras.layers.BatchNormalization(),
        keras.layers.GlobalAveragePooling2D(),
    ],
    name="base",
)
base_model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in base_model.get_weights()])
base_model.layers[1].set_weights(
    [np.ones(4, "float32"), np.zeros(4, "float32"), np.zeros(4, "float32"), np.ones(4, "float32")]
)
base_model.trainable = False
inputs = keras.Input(shape=(8, 8, 3))
x = base_model(inputs, training=False)
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)
model.layers[-1].set_weights([rng.normal(0, 0.3, (4, 1)).astype("float32"), np.zeros(1, "float32")])
model.summary(show_trainable=True)
images = rng.random((32, 8, 8, 3)).astype("float32")
labels = rng.integers(2, size=(32, 1)).astype("float32")
model.compile(
    optimizer=keras.optimizers.Adam(),
    loss=keras.losses.BinaryCrossentropy(from_logits=True),
    metrics=[keras.metrics.BinaryAccuracy()],
)
history = model.fit(images, labels, epochs=2, batch_size=16, shuffle=False, verbose=0)
print({k: [round(v, 3) for v in vs] for k, vs in history.history.items()})
print(np.round(base_model.layers[1].get_weights()[2], 4))

base_model.trainable = True
model.summary(show_trainable=True)
model.compile(
    optimizer=keras.optimizers.Adam(1e-5),
    loss=keras.losses.BinaryCrossentropy(from_logits=True),
    metrics=[keras.metrics.BinaryAccuracy()],
)
history = model.fit(images, labels, epochs=1, batch_size=16, shuffle=False, verbose=0)
print({k: [round(v, 3) for v in vs] for k, vs in history.history.items()})
print(np.round(base_model.layers[1].get_weights()[2], 4), len(model.trainable_weights))
