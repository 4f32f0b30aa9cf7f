"""TensorFlow's overfit-and-underfit tutorial: a learning-rate schedule, models of several sizes compiled and fitted
on a batched dataset with validation data, weight regularization (L2), dropout, their summaries and histories."""

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers, regularizers

FEATURES = 28
rng = np.random.default_rng(3)
features = rng.normal(size=(400, FEATURES)).astype("float32")
labels = (features[:, :3].sum(axis=1, keepdims=True) > 0).astype("float32")
packed_ds = tf.data.Dataset.from_tensor_slices((features, labels))
for f, l in packed_ds.batch(400).take(1):
    print(f.shape, l.dtype, l[:5].numpy())

N_VALIDATION, N_TRAIN, BATCH_SIZE = 100, 300, 50
STEPS_PER_EPOCH = N_TRAIN // BATCH_SIZE
validate_ds = packed_ds.take(N_VALIDATION).cache()
train_ds = packed_ds.skip(N_VALIDATION).take(N_TRAIN).cache()
print(train_ds)
validate_ds = validate_ds.batch(BATCH_SIZE)
train_ds = train_ds.shuffle(400, seed=0).repeat().batch(BATCH_SIZE)
print(validate_ds.element_spec)

lr_schedule = tf.keras.optimizers.schedules.InverseTimeDecay(
    0.001, decay_steps=STEPS_PER_EPOCH * 1000, decay_rate=1, staircase=False
)
print([round(float(lr_schedule(step)), 8) for step in (0, 6000, 60000)])
print(lr_schedule.get_config())


def get_optimizer():
    return tf.keras.optimizers.Adam(lr_schedule)


def compile_and_fit(model, name, optimizer=None, max_epochs=3):
    if optimizer is None:
        optimizer = get_optimizer()
    model.compile(
        optimizer=optimizer,
        loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[tf.keras.metrics.BinaryCrossentropy(from_logits=True, name="binary_crossentropy"), "accuracy"],
    )
    model.set_weights([np.random.default_rng(7).normal(0, 0.1, w.shape).astype("float32") for w in model.get_weights()])
    model.summary()
    history = model.fit(
        train_ds,
        steps_per_epoch=STEPS_PER_EPOCH,
        epochs=max_epochs,
        validation_data=validate_ds,
        callbacks=[tf.keras.callbacks.EarlyStopping(monitor="val_binary_crossentropy", patience=200)],
        verbose=0,
    )
    print(name, sorted(history.history), len(history.history["loss"]), history.epoch)
    return history


tiny_model = tf.keras.Sequential([layers.Dense(16, activation="elu", input_shape=(FEATURES,)), layers.Dense(1)])
size_histories = {"Tiny": compile_and_fit(tiny_model, "sizes/Tiny")}
small_model = tf.keras.Sequential(
    [layers.Dense(16, activation="elu", input_shape=(FEATURES,)), layers.Dense(16, activation="elu"), layers.Dense(1)]
)
size_histories["Small"] = compile_and_fit(small_model, "sizes/Small")
large_model = tf.keras.Sequential(
    [
        layers.Dense(64, activation="elu", input_shape=(FEATURES,)),
        layers.Dense(64, activation="elu"),
        layers.Dense(64, activation="elu"),
        layers.Dense(1),
    ]
)
size_histories["large"] = compile_and_fit(large_model, "sizes/large")
print(list(size_histories))

l2_model = tf.keras.Sequential(
    [
        layers.Dense(32, activation="elu", kernel_regularizer=regularizers.l2(0.001), input_shape=(FEATURES,)),
        layers.Dense(32, activation="elu", kernel_regularizer=regularizers.l2(0.001)),
        layers.Dense(1),
    ]
)
compile_and_fit(l2_model, "regularizers/l2")
print(len(l2_model.losses), [round(float(loss), 2) for loss in l2_model.losses])
print(regularizers.l2(0.001).get_config(), regularizers.L1L2(l1=0.01, l2=0.02).get_config())
result = l2_model(features[:3])
print(result.shape, result.dtype)

dropout_model = tf.keras.Sequential(
    [
        layers.Dense(32, activation="elu", input_shape=(FEATURES,)),
        layers.Dropout(0.5),
        layers.Dense(32, activation="elu"),
        layers.Dropout(0.5),
        layers.Dense(1),
    ]
)
compile_and_fit(dropout_model, "regularizers/dropout")
print(np.allclose(dropout_model(features[:4], training=False), dropout_model.predict(features[:4], verbose=0)))
print(dropout_model.layers[1].get_config())
combined_model = tf.keras.Sequential(
    [
        layers.Dense(32, kernel_regularizer=regularizers.l2(0.0001), activation="elu", input_shape=(FEATURES,)),
        layers.Dropout(0.5),
        layers.Dense(1),
    ]
)
history = compile_and_fit(combined_model, "regularizers/combined")
print(history.params)
