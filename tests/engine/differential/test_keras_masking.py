"""Masks on both engines, with the same weights: `Embedding(mask_zero=True)` and `Masking` make them
(`compute_mask`, the `_keras_mask` of the output), Dense and activation layers pass them on, recurrent layers keep
their states over masked steps (and repeat or zero their outputs there), a layer that does not support masks drops
them with Keras's warning, and a custom layer's `call(..., mask=...)` receives them."""

from __future__ import annotations

import warnings
from typing import Any

import keras as real_keras  # Keras 3 itself, which tf.keras is
import numpy as np
import pytest

import minitf

pytestmark = [pytest.mark.tf, pytest.mark.usefixtures("fresh_keras_names")]

ENGINES = {"minitf": minitf.keras, "keras": real_keras}


IDS = np.array([[3, 1, 0, 0], [2, 4, 5, 0], [0, 0, 0, 0]], "int32")
FEATURES = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [5.0, 5.0]]], "float32")


def both(case: Any) -> list[Any]:
    """`case(keras)` on each engine, its arrays as NumPy (masks as booleans)."""
    results = []
    for keras in ENGINES.values():
        results.append([None if value is None else np.asarray(value) for value in case(keras)])
    return results


def assert_same(results: list[Any]) -> None:
    ours, theirs = results
    assert len(ours) == len(theirs)
    for mine, expected in zip(ours, theirs, strict=True):
        if expected is None:
            assert mine is None
            continue
        assert mine is not None and mine.dtype == expected.dtype and mine.shape == expected.shape
        np.testing.assert_allclose(mine, expected, rtol=1e-5, atol=1e-6)


def test_embedding_with_mask_zero_masks_the_padding() -> None:
    def case(keras: Any) -> list[Any]:
        embedding = keras.layers.Embedding(6, 3, mask_zero=True)
        plain = keras.layers.Embedding(6, 3)
        return [embedding.compute_mask(IDS), embedding(IDS)._keras_mask, plain.compute_mask(IDS)]

    assert_same(both(case))


def test_masking_layer_zeroes_and_masks_steps_equal_to_the_mask_value() -> None:
    def case(keras: Any) -> list[Any]:
        layer = keras.layers.Masking(mask_value=0.0)
        out = layer(FEATURES)
        shifted = keras.layers.Masking(mask_value=5.0)(FEATURES)
        return [out, out._keras_mask, layer.compute_mask(FEATURES), shifted, shifted._keras_mask]

    assert_same(both(case))
    assert ENGINES["minitf"].layers.Masking(2.5).get_config()["mask_value"] == 2.5


def test_dense_and_activations_pass_the_mask_on() -> None:
    def case(keras: Any) -> list[Any]:
        embedded = keras.layers.Embedding(6, 3, mask_zero=True)(IDS)
        dense = keras.layers.Dense(2)(embedded)
        activated = keras.layers.Activation("relu")(dense)
        dropped = keras.layers.Dropout(0.5)(activated)
        return [dense._keras_mask, activated._keras_mask, dropped._keras_mask]

    assert_same(both(case))


@pytest.mark.parametrize("cell", ["SimpleRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("sequences", [False, True], ids=["last", "sequences"])
@pytest.mark.parametrize("backwards", [False, True], ids=["forwards", "backwards"])
def test_recurrent_layers_skip_masked_steps(cell: str, sequences: bool, backwards: bool) -> None:
    weights: list[np.ndarray] = []

    def case(keras: Any) -> list[Any]:
        layer = getattr(keras.layers, cell)(3, return_sequences=sequences, go_backwards=backwards)
        model = keras.Sequential(
            [keras.Input((4,), dtype="int32"), keras.layers.Embedding(6, 2, mask_zero=True), layer]
        )
        if not weights:
            rng = np.random.default_rng(7)
            weights.extend(rng.normal(size=w.shape).astype("float32") for w in model.get_weights())
        model.set_weights(weights)
        out = model(IDS)
        return [out, getattr(out, "_keras_mask", None)]

    assert_same(both(case))


@pytest.mark.parametrize("cell", ["SimpleRNN", "GRU"])
def test_masked_steps_give_zeros_with_zero_output_for_mask(cell: str) -> None:
    def case(keras: Any) -> list[Any]:
        embedded = keras.layers.Embedding(6, 2, mask_zero=True, embeddings_initializer="ones")(IDS)
        layer = getattr(keras.layers, cell)(
            2,
            return_sequences=True,
            zero_output_for_mask=True,
            kernel_initializer="ones",
            recurrent_initializer="zeros",
        )
        return [layer(embedded, mask=embedded._keras_mask)]

    assert_same(both(case))


def test_masks_travel_through_a_functional_model() -> None:
    weights: list[np.ndarray] = []

    def case(keras: Any) -> list[Any]:
        inputs = keras.Input((4,), dtype="int32")
        hidden = keras.layers.Dense(3)(keras.layers.Embedding(6, 2, mask_zero=True)(inputs))
        outputs = keras.layers.LSTM(2)(hidden)
        model = keras.Model(inputs, outputs)
        if not weights:
            rng = np.random.default_rng(3)
            weights.extend(rng.normal(size=w.shape).astype("float32") for w in model.get_weights())
        model.set_weights(weights)
        return [model(IDS)]

    assert_same(both(case))


def test_a_custom_layer_receives_the_mask_and_supports_masking_by_compute_mask() -> None:
    def case(keras: Any) -> list[Any]:
        cast, total = (
            (real_keras.ops.cast, real_keras.ops.sum) if keras is real_keras else (minitf.cast, minitf.reduce_sum)
        )

        class MaskedMean(keras.layers.Layer):
            def call(self, inputs: Any, mask: Any = None) -> Any:
                weights = cast(mask, inputs.dtype)[..., None]
                return total(inputs * weights, axis=1) / total(weights, axis=1)

        class KeepsMask(keras.layers.Layer):
            def call(self, inputs: Any) -> Any:
                return inputs

            def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
                return previous_mask

        embedding = keras.layers.Embedding(6, 2, mask_zero=True)
        embedding.build((None, 4))
        embedding.set_weights([np.arange(12, dtype="float32").reshape(6, 2)])
        embedded = embedding(IDS[:2])
        flags = np.asarray([KeepsMask().supports_masking, MaskedMean().supports_masking])
        return [MaskedMean()(embedded), KeepsMask()(embedded)._keras_mask, flags]

    assert_same(both(case))


def test_a_layer_without_mask_support_drops_the_mask_with_a_warning() -> None:
    seen = []
    for keras in ENGINES.values():
        embedded = keras.layers.Embedding(6, 2, mask_zero=True)(IDS)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = keras.layers.Flatten()(embedded)
        messages = [str(w.message) for w in caught if "does not support masking" in str(w.message)]
        seen.append((getattr(out, "_keras_mask", None) is None, [m.split("'")[0] for m in messages]))
    assert seen[0] == seen[1]
    assert seen[0][1], "Keras warns"


def test_masked_steps_do_not_count_in_the_loss_and_metrics_of_fit_and_evaluate() -> None:
    ids = np.array([[3, 1, 0, 0], [2, 4, 5, 0], [1, 1, 1, 1], [5, 0, 0, 0]], "int32")
    labels = np.array([[1, 0, 0, 0], [0, 1, 2, 0], [2, 2, 1, 0], [1, 0, 0, 0]], "int32")
    weights: list[np.ndarray] = []
    seen = []
    for keras in ENGINES.values():
        model = keras.Sequential(
            [
                keras.Input((4,), dtype="int32"),
                keras.layers.Embedding(6, 3, mask_zero=True),
                keras.layers.GRU(4, return_sequences=True),
                keras.layers.Dense(3),
            ]
        )
        if not weights:
            rng = np.random.default_rng(1)
            weights.extend(rng.normal(size=w.shape).astype("float32") * 0.5 for w in model.get_weights())
        model.set_weights(weights)
        model.compile(
            optimizer=keras.optimizers.SGD(0.1),
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["sparse_categorical_accuracy"],
        )
        evaluated = model.evaluate(ids, labels, verbose=0)
        history = model.fit(ids, labels, epochs=2, batch_size=2, shuffle=False, verbose=0).history
        seen.append((evaluated, history["loss"], history["sparse_categorical_accuracy"]))
    for ours, theirs in zip(seen[0], seen[1], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def _symbolic_masks(keras: Any) -> list[str]:
    """What a functional graph says of its masks: each KerasTensor's `_keras_mask` (or its absence) after layers
    that make, pass on, change or drop a mask, and `compute_mask` called on a KerasTensor."""
    layers, seen = keras.layers, []

    class SplitInTime(layers.Layer):
        def call(self, inputs):
            return [inputs[:, :2], inputs[:, 2:]]

        def compute_mask(self, inputs, mask=None):
            return None if mask is None else [mask[:, :2], mask[:, 2:]]

    def look(tensor: Any) -> None:
        seen.append(f"{tensor} mask={getattr(tensor, '_keras_mask', 'none')}")

    inputs = keras.Input((4,), dtype="int32")
    look(inputs)
    embedding = layers.Embedding(10, 3, mask_zero=True)
    x = embedding(inputs)
    look(x)
    seen.append(str(embedding.compute_mask(inputs)))
    look(layers.Dense(2)(x))
    dropped = layers.Dropout(0.5)(x)  # a call that returns its input unchanged still makes a new KerasTensor
    look(dropped)
    seen.append(f"{dropped is x} {dropped._keras_history[0].name}")
    look(layers.Activation("relu")(x))
    look(layers.LSTM(2, return_sequences=True)(x))
    look(layers.LSTM(2)(x))
    for half in SplitInTime()(x):
        look(half)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        look(layers.Flatten()(x))
    look(layers.Masking()(keras.Input((5, 2))))
    return seen


def test_keras_tensors_carry_the_masks_keras_gives_them_in_a_functional_graph() -> None:
    assert _symbolic_masks(minitf.keras) == _symbolic_masks(real_keras)


def _names_after_eager_calls(keras: Any) -> list[str]:
    """Keras builds a layer that has no `build` of its own but unbuilt inner layers by tracing its `call`, which
    names a KerasTensor per output; later KerasTensors are numbered after them."""
    layers, names = keras.layers, []

    class Wrapper(layers.Layer):
        def __init__(self, outputs: int) -> None:
            super().__init__()
            self.dense, self.outputs = layers.Dense(2), outputs

        def call(self, x):
            return [self.dense(x)] * self.outputs if self.outputs > 1 else self.dense(x)

    class Doubler(layers.Layer):
        def call(self, x):
            return x * 2

    class Model(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    x = np.ones((2, 3), "float32")
    for make in (lambda: layers.Dense(2), lambda: Wrapper(1), Doubler, lambda: Wrapper(2), Model):
        layer = make()
        layer(x)
        layer(x)
        names.append(keras.Input((1,)).name)
    return names


def test_keras_tensors_are_numbered_as_in_keras_after_layers_built_by_their_first_call() -> None:
    assert _names_after_eager_calls(minitf.keras) == _names_after_eager_calls(real_keras)


def _masked_pooling_and_bidirectional(keras: Any) -> list[Any]:
    """A padded sequence through Bidirectional recurrent layers (merged or not, with states) and the average over
    its steps: masked steps change nothing, and the masks that come out are Keras's."""
    layers = keras.layers
    inputs = keras.Input((None,), dtype="int32")
    embedded = layers.Embedding(20, 3, mask_zero=True)(inputs)
    merged = layers.Bidirectional(layers.GRU(2, return_sequences=True), merge_mode="sum")(embedded)
    pooled = layers.GlobalAveragePooling1D()(merged)
    both_ways = layers.Bidirectional(layers.LSTM(2, return_sequences=True, return_state=True), merge_mode=None)(
        embedded
    )
    last = layers.Bidirectional(layers.SimpleRNN(2))(embedded)
    model = keras.Model(inputs, [pooled, last, *both_ways[:2]])
    rng = np.random.default_rng(5)
    model.set_weights([rng.normal(0, 0.5, w.shape).astype("float32") for w in model.get_weights()])
    padded = np.array([[4, 9, 2, 0, 0], [7, 1, 3, 8, 5]], "int32")
    masks = [getattr(t, "_keras_mask", None) is not None for t in [merged, pooled, last, *both_ways]]
    full, cut = model(padded), model(padded[:1, :3])
    return [*full[:2], np.allclose(full[0][:1], cut[0]) and np.allclose(full[1][:1], cut[1], atol=1e-6), masks]


def test_bidirectional_and_global_average_pooling_1d_use_the_mask_as_keras_does() -> None:
    ours, theirs = (_masked_pooling_and_bidirectional(keras) for keras in (minitf.keras, real_keras))
    for mine, expected in zip(ours[:2], theirs[:2], strict=True):
        np.testing.assert_allclose(np.asarray(mine), np.asarray(expected), rtol=1e-5, atol=1e-6)
    assert ours[2:] == theirs[2:] == [True, [True, False, False, True, True, False, False, False, False]]


X = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0]], "float32")


@pytest.mark.parametrize(
    ("axis", "mask"),
    [
        (-1, None),
        (-1, np.array([[True, True, False, False], [True, False, True, True]])),
        (-1, np.array([[1.0, 0.2, 0.7, 0.0], [0, 0, 0, 0]], "float32")),  # above 0.5 keeps; a row all masked is 0
        (-1, np.array([[True, False, True, True]])),  # broadcast over the batch
        ((0, 1), None),
        ([0], None),
    ],
)
def test_softmax_leaves_masked_positions_out_and_takes_axis_tuples_as_keras_does(axis: Any, mask: Any) -> None:
    results = [np.asarray(keras.layers.Softmax(axis=axis)(X, mask=mask)) for keras in ENGINES.values()]
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("mask", [np.ones((2, 3), bool), np.ones((1, 2, 4), bool)])
def test_softmax_refuses_a_mask_that_does_not_broadcast_with_kerass_message(mask: Any) -> None:
    messages = []
    for keras in ENGINES.values():
        with pytest.raises(ValueError) as caught:
            keras.layers.Softmax()(X, mask=mask)
        messages.append(str(caught.value))
    assert messages[0] in messages[1]
