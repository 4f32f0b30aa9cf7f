"""The cases test_keras_layers.py compares: for each Keras layer minitf implements, constructor arguments and
inputs (`Case`), or a check of its own (`Case(check=...)`) for layers the generic comparison does not fit
(random layers in training, layers that need `adapt`, wrappers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def floats(*shape: int, seed: int = 0) -> Callable[[], np.ndarray]:
    return lambda: np.random.default_rng(seed).standard_normal(shape).astype("float32")


def ints(high: int, *shape: int, seed: int = 0) -> Callable[[], np.ndarray]:
    return lambda: np.random.default_rng(seed).integers(0, high, shape).astype("int32")


def several(*makers: Callable[[], np.ndarray]) -> Callable[[], list[np.ndarray]]:
    return lambda: [make() for make in makers]


@dataclass
class Case:
    kwargs: dict[str, Any] | Callable[[Any], dict[str, Any]] = field(default_factory=dict)
    inputs: Callable[[], Any] = floats(2, 4)
    call_kwargs: dict[str, Any] = field(default_factory=dict)
    symbolic: bool = True
    gradients: bool = True
    check: Callable[[Any, Any], None] | None = None

    def make_kwargs(self, keras: Any) -> dict[str, Any]:
        """The constructor's arguments for one engine (`kwargs(keras)` when they hold layers of that engine)."""
        return self.kwargs(keras) if callable(self.kwargs) else dict(self.kwargs)


def _lambda_check(ours: Any, theirs: Any) -> None:
    """Lambda: outputs and config (a lambda's code as Keras writes it); safe mode refuses to load a lambda."""

    def run(keras: Any) -> tuple[Any, ...]:
        keras.backend.clear_session()
        layer = keras.layers.Lambda(lambda x, power: x**power, arguments={"power": 2})
        out = layer(floats(2, 3)())
        config = layer.get_config()
        try:
            keras.layers.deserialize(keras.layers.serialize(layer))
            refused = ""
        except ValueError as error:
            refused = type(error).__name__
        return np.asarray(out), config, refused

    mine, real = run(ours), run(theirs)
    np.testing.assert_allclose(mine[0], real[0], rtol=1e-6)
    assert mine[1:] == real[1:]


CASES: dict[str, list[Case]] = {
    "Dense": [
        Case({"units": 3}),
        Case({"units": 5, "activation": "relu", "use_bias": False}, floats(2, 3, 4)),
    ],
    "Flatten": [Case(inputs=floats(2, 3, 4))],
    "Dropout": [Case({"rate": 0.5})],
    "Activation": [Case({"activation": "tanh"}), Case({"activation": "softmax"}, floats(2, 3, 4))],
    "ReLU": [
        Case(),
        Case({"max_value": 0.5}),
        Case({"negative_slope": 0.1, "threshold": 0.2}),
    ],
    "Softmax": [Case(), Case({"axis": 1}, floats(2, 3, 4))],
    "Embedding": [
        Case({"input_dim": 10, "output_dim": 3}, ints(10, 2, 5)),
        Case({"input_dim": 10, "output_dim": 3, "mask_zero": True}, ints(3, 2, 5)),
    ],
    "Masking": [Case({"mask_value": 0.0}, lambda: floats(2, 4, 3)() * (ints(2, 2, 4, 1)() > 0))],
    "BatchNormalization": [
        Case(inputs=floats(4, 3)),
        Case({"axis": 1, "momentum": 0.9, "center": False}, floats(4, 3, 2)),
        Case(inputs=floats(4, 3), call_kwargs={"training": True}),
    ],
}

CASES.update(
    {
        "ELU": [Case(), Case({"alpha": 0.5})],
        "LeakyReLU": [Case(), Case({"negative_slope": 0.1}, floats(2, 3, 4))],
        "PReLU": [
            Case({"alpha_initializer": "ones"}),
            Case({"alpha_initializer": "ones", "shared_axes": [1]}, floats(2, 3, 4)),
        ],
        "ThresholdedReLU": [Case({"theta": 0.5})],
        "Identity": [Case()],
        "ActivityRegularization": [Case({"l1": 0.1, "l2": 0.2})],
        "Lambda": [Case(check=_lambda_check)],
        "Reshape": [Case({"target_shape": (2, -1)}, floats(2, 3, 4)), Case({"target_shape": (12,)}, floats(2, 3, 4))],
        "Permute": [Case({"dims": (2, 1)}, floats(2, 3, 4))],
        "RepeatVector": [Case({"n": 3})],
        "Cropping1D": [Case(inputs=floats(2, 5, 3)), Case({"cropping": (0, 2)}, floats(2, 5, 3))],
        "Cropping2D": [
            Case({"cropping": 1}, floats(2, 5, 5, 3)),
            Case({"cropping": ((0, 1), (2, 1))}, floats(2, 5, 6, 3)),
        ],
        "ZeroPadding1D": [Case(inputs=floats(2, 5, 3)), Case({"padding": (0, 2)}, floats(2, 5, 3))],
        "ZeroPadding2D": [Case(inputs=floats(2, 4, 4, 3)), Case({"padding": ((0, 1), (2, 1))}, floats(2, 4, 5, 3))],
        "UpSampling1D": [Case({"size": 3}, floats(2, 4, 3))],
        "UpSampling2D": [Case(inputs=floats(2, 3, 4, 2)), Case({"size": (1, 3)}, floats(2, 3, 4, 2))],
        "Add": [Case(inputs=several(floats(2, 4), floats(2, 4, seed=1), floats(2, 4, seed=2)))],
        "Subtract": [Case(inputs=several(floats(2, 4), floats(2, 4, seed=1)))],
        "Multiply": [Case(inputs=several(floats(2, 4), floats(2, 4, seed=1)))],
        "Average": [Case(inputs=several(floats(2, 4), floats(2, 4, seed=1)))],
        "Maximum": [Case(inputs=several(floats(2, 4), floats(2, 4, seed=1)))],
        "Minimum": [Case(inputs=several(floats(2, 4), floats(2, 4, seed=1)))],
        "Concatenate": [
            Case(inputs=several(floats(2, 4), floats(2, 3, seed=1))),
            Case({"axis": 1}, several(floats(2, 4, 3), floats(2, 2, 3, seed=1))),
        ],
        "Dot": [
            Case({"axes": 1}, several(floats(2, 4), floats(2, 4, seed=1))),
            Case({"axes": (1, 2), "normalize": True}, several(floats(2, 3, 4), floats(2, 5, 3, seed=1))),
            Case({"axes": 2}, several(floats(2, 3, 4), floats(2, 5, 4, seed=1))),
        ],
    }
)


def _functional_form(name: str, layer: str, kwargs: dict[str, Any]) -> Callable[[Any, Any], None]:
    """`keras.layers.add([a, b])` equals `keras.layers.Add()([a, b])`, on KerasTensors and on arrays."""

    def check(ours: Any, theirs: Any) -> None:
        arrays = [floats(2, 4)(), floats(2, 4, seed=1)()]

        def run(keras: Any) -> tuple[Any, ...]:
            keras.backend.clear_session()
            direct = np.asarray(getattr(keras.layers, name)(arrays, **kwargs))
            inputs = [keras.Input((4,)), keras.Input((4,))]
            model = keras.Model(inputs, getattr(keras.layers, name)(inputs, **kwargs))
            return direct, np.asarray(model(arrays)), [type(item).__name__ for item in model.layers]

        mine, real = run(ours), run(theirs)
        np.testing.assert_allclose(mine[0], real[0], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(mine[1], real[1], rtol=1e-6, atol=1e-7)
        assert mine[2] == real[2] and mine[2][-1] == layer

    return check


FUNCTIONS: dict[str, Callable[[Any, Any], None]] = {
    name: _functional_form(name, layer, kwargs)
    for name, layer, kwargs in [
        ("add", "Add", {}),
        ("subtract", "Subtract", {}),
        ("multiply", "Multiply", {}),
        ("average", "Average", {}),
        ("maximum", "Maximum", {}),
        ("minimum", "Minimum", {}),
        ("concatenate", "Concatenate", {"axis": 1}),
        ("dot", "Dot", {"axes": 1}),
    ]
}


def _custom_layer_check(ours: Any, theirs: Any) -> None:
    """A learner's own layer: `add_weight` in `build`, `call`, `get_config` with its own argument."""

    def run(keras: Any) -> tuple[Any, ...]:
        keras.backend.clear_session()

        class Scaled(keras.layers.Layer):  # type: ignore[name-defined]  # the base depends on the engine
            def __init__(self, units: int, **kwargs: Any) -> None:
                super().__init__(**kwargs)
                self.units = units

            def build(self, input_shape: Any) -> None:
                self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones", name="w")
                self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=False, name="b")

            def call(self, inputs: Any) -> Any:
                return keras.ops.matmul(inputs, self.w) + self.b if hasattr(keras, "ops") else inputs @ self.w + self.b

            def get_config(self) -> dict[str, Any]:
                return {**super().get_config(), "units": self.units}

        layer = Scaled(3)
        out = layer(floats(2, 4)())
        return (
            np.asarray(out),
            [(w.path, tuple(w.shape), w.trainable) for w in layer.weights],
            layer.get_config(),
            repr(layer),
            Scaled.from_config(layer.get_config()).units,
        )

    mine, real = run(ours), run(theirs)
    np.testing.assert_allclose(mine[0], real[0], rtol=1e-6)
    assert mine[1:] == real[1:]


def _input_layer_check(ours: Any, theirs: Any) -> None:
    def run(keras: Any) -> tuple[Any, ...]:
        keras.backend.clear_session()
        layer = keras.layers.InputLayer(shape=(3, 2), dtype="int32")
        return layer.get_config(), tuple(layer.output.shape), layer.output.dtype

    assert run(ours) == run(theirs)


def _input_spec_check(ours: Any, theirs: Any) -> None:
    def message(keras: Any) -> str:
        keras.backend.clear_session()

        class Flat(keras.layers.Layer):  # type: ignore[name-defined]  # the base depends on the engine
            def __init__(self) -> None:
                super().__init__()
                self.input_spec = keras.layers.InputSpec(ndim=2)

        try:
            Flat()(floats(2, 3, 4)())
        except ValueError as error:
            return str(error)
        return "no error"

    assert message(ours) == message(theirs)


def _normalization_check(ours: Any, theirs: Any) -> None:
    data = floats(20, 3)()

    def run(keras: Any) -> tuple[Any, ...]:
        keras.backend.clear_session()
        layer = keras.layers.Normalization()
        layer.adapt(data)
        inverse = keras.layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 1.0, 0.25], invert=True)
        return np.asarray(layer(data[:4])), np.asarray(inverse(data[:4])), layer.get_config()

    mine, real = run(ours), run(theirs)
    np.testing.assert_allclose(mine[0], real[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine[1], real[1], rtol=1e-5, atol=1e-6)
    assert mine[2] == real[2]


CASES.update(
    {
        "Layer": [Case(check=_custom_layer_check)],
        "InputLayer": [Case(check=_input_layer_check)],
        "InputSpec": [Case(check=_input_spec_check)],
        "Normalization": [Case(check=_normalization_check)],
    }
)


def _input_check(ours: Any, theirs: Any) -> None:
    def run(keras: Any) -> tuple[Any, ...]:
        keras.backend.clear_session()
        tensor = keras.Input((3, 2), batch_size=4, dtype="int64", name="pixels")
        return tuple(tensor.shape), tensor.dtype, tensor.name, repr(tensor)

    assert run(ours) == run(theirs)


def _serialize_check(ours: Any, theirs: Any) -> None:
    """A Keras layer's serialized form (with its build shape) comes back as the same layer in minitf."""
    theirs.backend.clear_session()
    layer = theirs.layers.Dense(3, activation="relu", name="hidden")
    layer.build((None, 4))
    entry = theirs.layers.serialize(layer)
    rebuilt = ours.layers.deserialize(entry)
    assert type(rebuilt).__name__ == "Dense" and rebuilt.name == "hidden" and not rebuilt.built
    rebuilt.build((None, 4))
    again = ours.layers.serialize(rebuilt)
    for key in ("name", "units", "activation", "use_bias"):
        assert again["config"][key] == entry["config"][key]
    assert again["build_config"] == entry["build_config"]


FUNCTIONS.update({"Input": _input_check, "serialize": _serialize_check, "deserialize": _serialize_check})

CASES.update(
    {
        "Conv1D": [
            Case({"filters": 2, "kernel_size": 3}, floats(2, 7, 3)),
            Case(
                {"filters": 4, "kernel_size": 2, "strides": 2, "padding": "same", "activation": "relu"}, floats(2, 7, 3)
            ),
            Case({"filters": 2, "kernel_size": 3, "padding": "causal", "dilation_rate": 2}, floats(2, 7, 3)),
            Case({"filters": 4, "kernel_size": 3, "groups": 2, "use_bias": False}, floats(2, 7, 4)),
        ],
        "Conv2D": [
            Case({"filters": 3, "kernel_size": 3}, floats(2, 6, 6, 2)),
            Case({"filters": 2, "kernel_size": (2, 3), "strides": (2, 1), "padding": "same"}, floats(2, 5, 6, 1)),
            Case({"filters": 4, "kernel_size": 2, "groups": 2, "activation": "relu"}, floats(2, 5, 5, 4)),
        ],
        "DepthwiseConv1D": [Case({"kernel_size": 3, "depth_multiplier": 2}, floats(2, 7, 3))],
        "DepthwiseConv2D": [
            Case({"kernel_size": 3}, floats(2, 6, 6, 3)),
            Case({"kernel_size": 2, "depth_multiplier": 2, "strides": 2, "padding": "same"}, floats(2, 5, 5, 2)),
        ],
        "SeparableConv1D": [Case({"filters": 4, "kernel_size": 3}, floats(2, 7, 3))],
        "SeparableConv2D": [
            Case({"filters": 2, "kernel_size": 3, "depth_multiplier": 2, "padding": "same"}, floats(2, 5, 5, 3))
        ],
        "MaxPooling1D": [
            Case(inputs=floats(2, 7, 3)),
            Case({"pool_size": 3, "strides": 1, "padding": "same"}, floats(2, 7, 3)),
        ],
        "MaxPooling2D": [
            Case(inputs=floats(2, 6, 6, 2)),
            Case({"pool_size": 3, "strides": 2, "padding": "same"}, floats(2, 7, 5, 2)),
        ],
        "AveragePooling1D": [Case({"pool_size": 2}, floats(2, 7, 3))],
        "AveragePooling2D": [Case({"pool_size": (2, 3), "padding": "same"}, floats(2, 5, 7, 2))],
        "GlobalMaxPooling1D": [Case(inputs=floats(2, 7, 3))],
        "GlobalMaxPooling2D": [Case({"keepdims": True}, floats(2, 4, 5, 3))],
        "GlobalAveragePooling1D": [Case(inputs=floats(2, 7, 3))],
        "GlobalAveragePooling2D": [Case(inputs=floats(2, 4, 5, 3))],
    }
)

CASES.update(
    {
        "Conv1DTranspose": [
            Case({"filters": 2, "kernel_size": 3}, floats(2, 5, 3)),
            Case({"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same"}, floats(2, 5, 3)),
        ],
        "Conv2DTranspose": [
            Case({"filters": 2, "kernel_size": 3, "strides": 2}, floats(2, 4, 3, 3)),
            Case({"filters": 3, "kernel_size": (2, 3), "strides": (2, 1), "padding": "same"}, floats(2, 4, 3, 2)),
            Case({"filters": 2, "kernel_size": 2, "strides": 3}, floats(2, 3, 3, 1)),
            Case({"filters": 2, "kernel_size": 3, "strides": 2, "output_padding": 1}, floats(2, 3, 3, 1)),
        ],
    }
)


def _training_noise(name: str, kwargs: dict[str, Any], shape: tuple[int, ...]) -> Callable[[Any, Any], None]:
    """A random layer in training: the two engines draw different numbers, so compare what the numbers are
    for: the mean and spread of the output over many values, and (spatial dropout) whole channels dropped."""

    def check(ours: Any, theirs: Any) -> None:
        x = np.random.default_rng(0).standard_normal(shape).astype("float32")

        def run(keras: Any) -> np.ndarray:
            keras.backend.clear_session()
            layer = getattr(keras.layers, name)(**kwargs)
            np.testing.assert_array_equal(np.asarray(layer(x)), x)  # inference: unchanged
            return np.asarray(layer(x, training=True))

        mine, real = run(ours), run(theirs)
        assert mine.dtype == real.dtype and mine.shape == real.shape
        assert abs(mine.mean() - real.mean()) < 0.05 and abs(mine.std() - real.std()) < 0.05
        if name.startswith("SpatialDropout"):
            rate = kwargs["rate"]
            for out in (mine, real):  # each channel of each example: all zeros, or all kept and scaled
                columns = out.reshape(shape[0], -1, shape[-1])
                dropped = np.all(columns == 0, axis=1)
                scaled = np.where(dropped[:, None, :], 0.0, x.reshape(columns.shape) / (1 - rate))
                np.testing.assert_allclose(columns, scaled, rtol=1e-5, atol=1e-6)
                assert 0.4 < dropped.mean() < 0.6

    return check


CASES.update(
    {
        "SpatialDropout1D": [
            Case({"rate": 0.5}, floats(2, 5, 3)),
            Case(check=_training_noise("SpatialDropout1D", {"rate": 0.5}, (400, 6, 8))),
        ],
        "SpatialDropout2D": [
            Case({"rate": 0.5}, floats(2, 3, 3, 4)),
            Case(check=_training_noise("SpatialDropout2D", {"rate": 0.5}, (400, 3, 3, 8))),
        ],
        "GaussianNoise": [
            Case({"stddev": 0.5}),
            Case(check=_training_noise("GaussianNoise", {"stddev": 0.5}, (200, 100))),
        ],
        "GaussianDropout": [
            Case({"rate": 0.3}),
            Case(check=_training_noise("GaussianDropout", {"rate": 0.3}, (200, 100))),
        ],
        "AlphaDropout": [
            Case({"rate": 0.2}),
            Case(check=_training_noise("AlphaDropout", {"rate": 0.2}, (200, 100))),
        ],
        "LayerNormalization": [
            Case(inputs=floats(4, 3)),
            Case({"axis": [1, 2], "center": False}, floats(2, 3, 4)),
            Case({"rms_scaling": True}, floats(2, 3, 4)),
        ],
        "GroupNormalization": [
            Case({"groups": 2}, floats(3, 4)),
            Case({"groups": 3, "scale": False}, floats(2, 4, 4, 6)),
        ],
        "UnitNormalization": [Case(), Case({"axis": [1, 2]}, floats(2, 3, 4))],
        "RMSNormalization": [Case(inputs=floats(2, 3, 4))],
    }
)


def _sequence_model_check(ours: Any, theirs: Any) -> None:
    """A learner's sequence model: Embedding, a bidirectional LSTM returning sequences, a GRU, Dense; built
    with an unknown sequence length; the summary, outputs after copying weights, and one training step."""
    tokens = ints(20, 4, 6)()
    labels = np.array([0, 1, 1, 0])

    def build(keras: Any) -> Any:
        keras.backend.clear_session()
        inputs = keras.Input((None,), dtype="int32")
        x = keras.layers.Embedding(20, 8)(inputs)
        x = keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True))(x)
        x = keras.layers.GRU(3)(x)
        model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(x))
        model.compile(optimizer="sgd", loss="binary_crossentropy")
        return model

    mine, real = build(ours), build(theirs)
    real.set_weights(mine.get_weights())
    np.testing.assert_allclose(np.asarray(mine(tokens)), np.asarray(real(tokens)), rtol=1e-5, atol=1e-6)
    first, second = mine.train_on_batch(tokens, labels), real.train_on_batch(tokens, labels)
    np.testing.assert_allclose(first, second, rtol=1e-5)
    for a_weight, b_weight in zip(mine.get_weights(), real.get_weights(), strict=True):
        np.testing.assert_allclose(a_weight, b_weight, rtol=1e-4, atol=1e-6)


def _stacked_cells(keras: Any) -> dict[str, Any]:
    return {"cell": [keras.layers.SimpleRNNCell(3), keras.layers.GRUCell(2)], "return_sequences": True}


CASES.update(
    {
        "SimpleRNN": [
            Case({"units": 3}, floats(2, 5, 4)),
            Case({"units": 2, "return_sequences": True, "return_state": True, "go_backwards": True}, floats(2, 5, 4)),
        ],
        "LSTM": [
            Case({"units": 3}, floats(2, 5, 4)),
            Case({"units": 2, "return_sequences": True, "return_state": True}, floats(2, 4, 3)),
            Case({"units": 2, "unit_forget_bias": False, "activation": "relu"}, floats(2, 4, 3)),
        ],
        "GRU": [
            Case({"units": 3}, floats(2, 5, 4)),
            Case({"units": 2, "return_sequences": True, "return_state": True}, floats(2, 4, 3)),
            Case({"units": 2, "reset_after": False}, floats(2, 4, 3)),
        ],
        "RNN": [
            Case(lambda keras: {"cell": keras.layers.LSTMCell(3)}, floats(2, 5, 4)),
            Case(_stacked_cells, floats(2, 5, 4)),
        ],
        "StackedRNNCells": [Case(check=_sequence_model_check)],
        "Bidirectional": [
            Case(lambda keras: {"layer": keras.layers.LSTM(2)}, floats(2, 5, 3)),
            Case(
                lambda keras: {"layer": keras.layers.GRU(2, return_sequences=True), "merge_mode": "sum"},
                floats(2, 5, 3),
            ),
        ],
        "TimeDistributed": [Case(lambda keras: {"layer": keras.layers.Dense(2)}, floats(2, 5, 3))],
    }
)


def _cell_check(name: str, kwargs: dict[str, Any], states: int) -> Callable[[Any, Any], None]:
    """A cell called by hand for one step: `cell(inputs, states) -> (output, new_states)`, then its config."""

    def check(ours: Any, theirs: Any) -> None:
        x, h = floats(2, 4)(), floats(2, kwargs["units"], seed=1)()

        def run(keras: Any, weights: Any = None) -> tuple[Any, ...]:
            keras.backend.clear_session()
            cell = getattr(keras.layers, name)(**kwargs)
            output, new_states = cell(x, [h] * states)
            if weights is not None:
                cell.set_weights(weights)
                output, new_states = cell(x, [h] * states)
            paths = [(w.path, tuple(w.shape)) for w in cell.weights]
            return cell.get_weights(), np.asarray(output), [np.asarray(s) for s in new_states], paths, cell.get_config()

        mine = run(ours)
        real = run(theirs, mine[0])
        np.testing.assert_allclose(mine[1], real[1], rtol=1e-5, atol=1e-6)
        for left, right in zip(mine[2], real[2], strict=True):
            np.testing.assert_allclose(left, right, rtol=1e-5, atol=1e-6)
        assert mine[3] == real[3]
        assert {k: v for k, v in mine[4].items() if not k.endswith("initializer")} == {
            k: v for k, v in real[4].items() if not k.endswith("initializer")
        }

    return check


def _wrapper_check(ours: Any, theirs: Any) -> None:
    """A learner's own wrapper: a `Wrapper` subclass whose call doubles the wrapped layer's output."""

    def run(keras: Any, weights: Any = None) -> tuple[Any, ...]:
        keras.backend.clear_session()

        class Doubled(keras.layers.Wrapper):  # type: ignore[name-defined]  # the base depends on the engine
            def call(self, inputs: Any) -> Any:
                return self.layer(inputs) * 2.0

        layer = Doubled(keras.layers.Dense(2))
        layer(floats(2, 3)())
        if weights is not None:
            layer.set_weights(weights)
        return layer.get_weights(), np.asarray(layer(floats(2, 3)())), [w.path for w in layer.weights]

    mine = run(ours)
    real = run(theirs, mine[0])
    np.testing.assert_allclose(mine[1], real[1], rtol=1e-6)
    assert mine[2] == real[2]


CASES.update(
    {
        "SimpleRNNCell": [Case(check=_cell_check("SimpleRNNCell", {"units": 3}, 1))],
        "LSTMCell": [Case(check=_cell_check("LSTMCell", {"units": 3}, 2))],
        "GRUCell": [
            Case(check=_cell_check("GRUCell", {"units": 3}, 1)),
            Case(check=_cell_check("GRUCell", {"units": 2, "reset_after": False}, 1)),
        ],
        "Wrapper": [Case(check=_wrapper_check)],
    }
)


def words(*rows: list[str]) -> Callable[[], np.ndarray]:
    return lambda: np.array(rows, dtype=object)


def _adapted(
    name: str, kwargs: dict[str, Any], data: Any, inputs: Any, after: Any = None
) -> Callable[[Any, Any], None]:
    """A layer given its vocabulary (or bins) by `adapt`: the vocabulary, outputs, config, and a functional
    model around it."""

    def check(ours: Any, theirs: Any) -> None:
        def run(keras: Any) -> tuple[Any, ...]:
            keras.backend.clear_session()
            layer = getattr(keras.layers, name)(**kwargs)
            layer.adapt(data)
            out = np.asarray(layer(inputs))
            vocabulary = (
                [v.decode() if isinstance(v, bytes) else v for v in layer.get_vocabulary()]
                if hasattr(layer, "get_vocabulary")
                else layer.bin_boundaries
            )
            inverse = None
            if after is not None:
                inverse = np.asarray(getattr(keras.layers, name)(vocabulary=layer.get_vocabulary(), **after)(out))
            return out, str(out.dtype), [str(v) for v in vocabulary], layer.get_config(), inverse

        mine, real = run(ours), run(theirs)
        np.testing.assert_array_equal(mine[0], real[0])
        assert mine[1:4] == real[1:4]
        if after is not None:
            assert mine[4].tolist() == real[4].tolist()

    return check


CASES.update(
    {
        "Rescaling": [Case({"scale": 1 / 255.0}), Case({"scale": 2.0, "offset": -1.0}, ints(255, 2, 3))],
        "CenterCrop": [Case({"height": 2, "width": 3}, floats(2, 5, 6, 3))],
        "CategoryEncoding": [
            Case({"num_tokens": 4}, ints(4, 2, 3)),
            Case({"num_tokens": 5, "output_mode": "one_hot"}, ints(5, 3)),
            Case({"num_tokens": 5, "output_mode": "count"}, ints(5, 2, 4)),
        ],
        "Hashing": [
            Case({"num_bins": 7}, words(["a", "bc"], ["d", "a"]), symbolic=False),
            Case({"num_bins": 5, "mask_value": "a"}, words(["a", "bc"], ["d", "a"]), symbolic=False),
            Case({"num_bins": 6, "output_mode": "multi_hot"}, ints(100, 2, 3), symbolic=False),
        ],
        "Discretization": [
            Case({"bin_boundaries": [0.0, 1.0]}, floats(2, 5)),
            Case(check=_adapted("Discretization", {"num_bins": 4}, floats(100, seed=3)(), floats(2, 5)())),
        ],
        "StringLookup": [
            Case(check=_adapted("StringLookup", {}, ["a", "b", "b", "c", "c", "c"], np.array([["c", "a", "z"]]))),
            Case(
                check=_adapted(
                    "StringLookup",
                    {"max_tokens": 3, "mask_token": "", "output_mode": "multi_hot"},
                    ["b", "a", "b", "c", "d", "d"],
                    np.array([["d", "a"], ["b", "b"]]),
                )
            ),
            Case(
                check=_adapted(
                    "StringLookup",
                    {},
                    ["cat", "dog", "dog"],
                    np.array(["dog", "cat", "fish"]),
                    after={"invert": True},
                )
            ),
        ],
        "IntegerLookup": [
            Case(check=_adapted("IntegerLookup", {}, [5, 5, 7, 9], np.array([5, 7, 1]))),
            Case(check=_adapted("IntegerLookup", {"output_mode": "one_hot"}, [3, 3, 8], np.array([[3], [8], [4]]))),
        ],
        "TextVectorization": [
            Case(
                check=_adapted(
                    "TextVectorization",
                    {"max_tokens": 10, "output_sequence_length": 4},
                    ["The cat sat.", "the dog! sat on the mat"],
                    np.array(["the cat on a mat"]),
                )
            ),
            Case(
                check=_adapted(
                    "TextVectorization",
                    {},
                    ["Hello, world", "hello there", "WORLD peace, world"],
                    np.array(["hello world peace", "there"]),
                )
            ),
            Case(
                check=_adapted(
                    "TextVectorization",
                    {"output_mode": "count"},
                    ["red green", "green blue blue"],
                    np.array(["blue green green", "yellow"]),
                )
            ),
        ],
    }
)


def _attention_call(name: str, kwargs: dict[str, Any], call: dict[str, Any], inputs: Any) -> Callable[[Any, Any], None]:
    """An attention layer called with its own arguments (masks, returned scores): outputs, weights, config."""

    def check(ours: Any, theirs: Any) -> None:
        arrays = inputs()

        def run(keras: Any, weights: Any = None) -> tuple[Any, ...]:
            keras.backend.clear_session()
            layer = getattr(keras.layers, name)(**kwargs)
            invoke = (
                (lambda: layer(*arrays, **call)) if name == "MultiHeadAttention" else (lambda: layer(arrays, **call))
            )
            invoke()
            if weights is not None:
                layer.set_weights(weights)
            outputs = invoke()
            outputs = list(outputs) if isinstance(outputs, list | tuple) else [outputs]
            paths = [(w.path, tuple(w.shape)) for w in layer.weights]
            return layer.get_weights(), [np.asarray(o) for o in outputs], paths, layer.get_config()

        mine = run(ours)
        real = run(theirs, mine[0])
        for left, right in zip(mine[1], real[1], strict=True):
            np.testing.assert_allclose(left, right, rtol=1e-5, atol=1e-6)
        assert mine[2] == real[2]
        strip = lambda config: {k: v for k, v in config.items() if not k.endswith("initializer")}  # noqa: E731
        assert strip(mine[3]) == strip(real[3])

    return check


def _self_attention_model_check(ours: Any, theirs: Any) -> None:
    """A transformer block in the functional API: self-attention, residual, LayerNormalization, pooling."""
    x = floats(2, 5, 8)()

    def build(keras: Any) -> Any:
        keras.backend.clear_session()
        inputs = keras.Input((5, 8))
        attended = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(inputs, inputs)
        normed = keras.layers.LayerNormalization()(keras.layers.Add()([inputs, attended]))
        return keras.Model(inputs, keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(normed)))

    mine, real = build(ours), build(theirs)
    real.set_weights(mine.get_weights())
    np.testing.assert_allclose(np.asarray(mine(x)), np.asarray(real(x)), rtol=1e-5, atol=1e-6)


CASES.update(
    {
        "Attention": [
            Case(inputs=several(floats(2, 3, 4), floats(2, 5, 4, seed=1)), symbolic=True),
            Case({"use_scale": True, "score_mode": "concat"}, several(floats(2, 3, 4), floats(2, 5, 4, seed=1))),
            Case(
                check=_attention_call(
                    "Attention",
                    {},
                    {"use_causal_mask": True, "return_attention_scores": True},
                    several(floats(2, 4, 3), floats(2, 4, 3, seed=1), floats(2, 4, 3, seed=2)),
                )
            ),
        ],
        "AdditiveAttention": [Case(inputs=several(floats(2, 3, 4), floats(2, 5, 4, seed=1)))],
        "MultiHeadAttention": [
            Case(
                check=_attention_call(
                    "MultiHeadAttention",
                    {"num_heads": 2, "key_dim": 3},
                    {},
                    several(floats(2, 3, 4), floats(2, 5, 4, seed=1)),
                )
            ),
            Case(
                check=_attention_call(
                    "MultiHeadAttention",
                    {"num_heads": 3, "key_dim": 2, "value_dim": 4, "use_bias": False},
                    {"use_causal_mask": True, "return_attention_scores": True},
                    several(floats(2, 4, 6), floats(2, 4, 6, seed=1)),
                )
            ),
            Case(check=_self_attention_model_check),
        ],
    }
)


def _random_flip_check(mode: str) -> Callable[[Any, Any], None]:
    """RandomFlip: unchanged with training=False; called directly, every image is one of its allowed flips,
    and over many images each flip turns up; the config as Keras writes it."""
    images = np.random.default_rng(0).standard_normal((200, 3, 4, 2)).astype("float32")
    allowed = {
        "horizontal": [lambda x: x, lambda x: x[:, ::-1]],
        "vertical": [lambda x: x, lambda x: x[::-1]],
        "horizontal_and_vertical": [lambda x: x, lambda x: x[:, ::-1], lambda x: x[::-1], lambda x: x[::-1, ::-1]],
    }[mode]

    def check(ours: Any, theirs: Any) -> None:
        def run(keras: Any) -> tuple[Any, ...]:
            keras.backend.clear_session()
            layer = keras.layers.RandomFlip(mode)
            np.testing.assert_array_equal(np.asarray(layer(images, training=False)), images)
            flipped = np.asarray(layer(images))
            seen = [next(i for i, f in enumerate(allowed) if np.array_equal(f(x), y)) for x, y in zip(images, flipped)]
            return sorted(set(seen)), str(flipped.dtype), layer.get_config()

        assert run(ours) == run(theirs)

    return check


CASES.update(
    {
        "RandomFlip": [
            Case(check=_random_flip_check("horizontal")),
            Case(check=_random_flip_check("horizontal_and_vertical")),
        ],
    }
)
