"""Keras's functional API guide: a model from keras.Input through layers, its summary, models inside models, a
model with several inputs and outputs (losses and loss weights per output, by list and by name), shared layers,
reusing a graph of layers, and the inputs and outputs a model keeps."""

import numpy as np
from tensorflow import keras
from tensorflow.keras import layers


def set_seeded_weights(model, seed=0):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0, 0.1, w.shape).astype("float32") for w in model.get_weights()])


inputs = keras.Input(shape=(784,))
print(inputs.shape, inputs.dtype)
img_inputs = keras.Input(shape=(32, 32, 3))
print(img_inputs.shape)
dense = layers.Dense(64, activation="relu")
x = dense(inputs)
x = layers.Dense(64, activation="relu")(x)
outputs = layers.Dense(10)(x)
model = keras.Model(inputs=inputs, outputs=outputs, name="mnist_model")
model.summary()
print(len(model.layers), [layer.name for layer in model.layers])

rng = np.random.default_rng(0)
x_train = rng.random((128, 784)).astype("float32")
y_train = (x_train[:, :10].sum(axis=1)).astype("int64") % 10
set_seeded_weights(model)
model.compile(
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer=keras.optimizers.RMSprop(),
    metrics=["accuracy"],
)
history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.25, verbose=0, shuffle=False)
print({k: [round(v, 2) for v in vs] for k, vs in history.history.items()})
test_scores = model.evaluate(x_train[:32], y_train[:32], verbose=0)
print("Test loss:", round(test_scores[0], 2))

encoder_input = keras.Input(shape=(28, 28, 1), name="img")
x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
x = layers.Conv2D(32, 3, activation="relu")(x)
x = layers.MaxPooling2D(3)(x)
x = layers.Conv2D(32, 3, activation="relu")(x)
x = layers.Conv2D(16, 3, activation="relu")(x)
encoder_output = layers.GlobalMaxPooling2D()(x)
encoder = keras.Model(encoder_input, encoder_output, name="encoder")
encoder.summary()
x = layers.Reshape((4, 4, 1))(encoder_output)
x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
x = layers.UpSampling2D(3)(x)
x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
decoder_output = layers.Conv2DTranspose(1, 3, activation="relu")(x)
autoencoder = keras.Model(encoder_input, decoder_output, name="autoencoder")
autoencoder.summary()

decoder_input = keras.Input(shape=(16,), name="encoded_img")
x = layers.Reshape((4, 4, 1))(decoder_input)
x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
x = layers.UpSampling2D(3)(x)
x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
decoder_output = layers.Conv2DTranspose(1, 3, activation="relu")(x)
decoder = keras.Model(decoder_input, decoder_output, name="decoder")
autoencoder_input = keras.Input(shape=(28, 28, 1), name="img")
encoded_img = encoder(autoencoder_input)
decoded_img = decoder(encoded_img)
autoencoder = keras.Model(autoencoder_input, decoded_img, name="autoencoder")
autoencoder.summary()


def get_model():
    inputs = keras.Input(shape=(128,))
    outputs = layers.Dense(1)(inputs)
    return keras.Model(inputs, outputs)


model1, model2, model3 = get_model(), get_model(), get_model()
inputs = keras.Input(shape=(128,))
y1, y2, y3 = model1(inputs), model2(inputs), model3(inputs)
outputs = layers.average([y1, y2, y3])
ensemble_model = keras.Model(inputs=inputs, outputs=outputs)
print(ensemble_model.output_shape, len(ensemble_model.layers))

num_tags, num_words, num_departments = 12, 100, 4
title_input = keras.Input(shape=(None,), name="title")
body_input = keras.Input(shape=(None,), name="body")
tags_input = keras.Input(shape=(num_tags,), name="tags")
title_features = layers.Embedding(num_words, 8)(title_input)
body_features = layers.Embedding(num_words, 8)(body_input)
title_features = layers.LSTM(16)(title_features)
body_features = layers.LSTM(8)(body_features)
x = layers.concatenate([title_features, body_features, tags_input])
priority_pred = layers.Dense(1, name="priority")(x)
department_pred = layers.Dense(num_departments, name="department")(x)
model = keras.Model(
    inputs=[title_input, body_input, tags_input],
    outputs={"priority": priority_pred, "department": department_pred},
)
model.summary()
set_seeded_weights(model, 3)
model.compile(
    optimizer=keras.optimizers.RMSprop(1e-3),
    loss={
        "priority": keras.losses.BinaryCrossentropy(from_logits=True),
        "department": keras.losses.CategoricalCrossentropy(from_logits=True),
    },
    loss_weights={"priority": 1.0, "department": 0.2},
)
title_data = rng.integers(num_words, size=(64, 10))
body_data = rng.integers(num_words, size=(64, 20))
tags_data = rng.integers(2, size=(64, num_tags)).astype("float32")
priority_targets = rng.random(size=(64, 1))
dept_targets = np.eye(num_departments)[rng.integers(num_departments, size=64)]
history = model.fit(
    {"title": title_data, "body": body_data, "tags": tags_data},
    {"priority": priority_targets, "department": dept_targets},
    epochs=2,
    batch_size=32,
    verbose=0,
    shuffle=False,
)
print({k: [round(v, 2) for v in vs] for k, vs in history.history.items()})
outputs = model.predict({"title": title_data[:2], "body": body_data[:2], "tags": tags_data[:2]}, verbose=0)
print(sorted(outputs), outputs["priority"].shape, outputs["department"].shape)

inputs = keras.Input(shape=(32, 32, 3), name="img")
x = layers.Conv2D(32, 3, activation="relu")(inputs)
x = layers.Conv2D(64, 3, activation="relu")(x)
block_1_output = layers.MaxPooling2D(3)(x)
x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_1_output)
x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
block_2_output = layers.add([x, block_1_output])
x = layers.Conv2D(64, 3, activation="relu")(block_2_output)
x = layers.GlobalAveragePooling2D()(x)
x = layers.Dense(256, activation="relu")(x)
x = layers.Dropout(0.5)(x)
outputs = layers.Dense(10)(x)
model = keras.Model(inputs, outputs, name="toy_resnet")
model.summary()

shared_embedding = layers.Embedding(1000, 128)
text_input_a = keras.Input(shape=(None,), dtype="int32")
text_input_b = keras.Input(shape=(None,), dtype="int32")
encoded_input_a = shared_embedding(text_input_a)
encoded_input_b = shared_embedding(text_input_b)
print(encoded_input_a.shape, encoded_input_b.shape, len(shared_embedding.weights))

vgg_input = keras.Input((8,))
vgg_like = keras.Model(vgg_input, layers.Dense(2, name="b")(layers.Dense(4, name="a")(vgg_input)))
features_list = [layer.output for layer in vgg_like.layers]
feat_extraction_model = keras.Model(inputs=vgg_like.input, outputs=features_list)
print([tuple(o.shape) for o in feat_extraction_model(np.ones((3, 8), "float32"))])
print(vgg_like.get_layer("b").output.shape, vgg_like.input.shape)
