"""TensorFlow's basic classification tutorial (Fashion-MNIST): 28x28 images scaled to [0, 1], a Sequential model of
Flatten and Dense layers, fit with its progress bar, evaluate, predict, and a single image's prediction."""

import numpy as np
import tensorflow as tf

print(tf.__version__ >= "2.8")
rng = np.random.default_rng(1)
train_images = rng.integers(0, 256, (300, 28, 28)).astype("uint8")
train_labels = (train_images.mean(axis=(1, 2)) > 127.5).astype("uint8") * 3 + (train_images[:, 0, 0] % 2)
test_images, test_labels = train_images[:100], train_labels[:100]
class_names = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
print(train_images.shape, len(train_labels), train_labels.dtype, test_images.shape)
train_images = train_images / 255.0
test_images = test_images / 255.0
print(train_images.dtype, train_images.max() <= 1.0)

model = tf.keras.Sequential(
    [
        tf.keras.layers.Flatten(input_shape=(28, 28)),
        tf.keras.layers.Dense(32, activation="relu"),
        tf.keras.layers.Dense(10),
    ]
)
model.summary()
model.set_weights([rng.normal(0, 0.05, w.shape).astype("float32") for w in model.get_weights()])
model.compile(
    optimizer="adam",
    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
history = model.fit(train_images, train_labels, epochs=2, batch_size=100, shuffle=False, verbose=2)
print({k: [round(v, 2) for v in vs] for k, vs in history.history.items()})
test_loss, test_acc = model.evaluate(test_images, test_labels, verbose=2)
print("\nTest accuracy:", round(test_acc, 2))
print(history.params)

probability_model = tf.keras.Sequential([model, tf.keras.layers.Softmax()])
predictions = probability_model.predict(test_images, verbose=0)
print(predictions.shape, predictions.dtype, np.argmax(predictions[0]), test_labels[0])
print(class_names[np.argmax(predictions[0])])
img = test_images[1]
print(img.shape)
img = np.expand_dims(img, 0)
print(img.shape)
predictions_single = probability_model.predict(img, verbose=0)
print(np.round(predictions_single, 2), np.argmax(predictions_single[0]))
model.summary()
probability_model.summary()
