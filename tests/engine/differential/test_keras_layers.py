"""Every public layer of the installed Keras, against minitf: implemented and compared, or left out with a reason.

The list of names is read from `keras.layers` when the tests run, so a Keras that gains a layer fails
`test_every_keras_layer_is_compared_or_left_out` until the layer is implemented (and given a case in
keras_layer_cases.py) or listed in `minitf.keras.layers.LEFT_OUT`.

Each case builds the same layer on both engines, copies minitf's weights into Keras's layer and compares:
what the unbuilt and built layers print, the weights (names, paths, shapes, trainable), the outputs (values
within float32 round-off, dtypes, shapes), the symbolic output shape on `keras.Input`, `get_config()`,
`keras.layers.serialize`, a layer rebuilt in minitf from Keras's serialized form, and the gradients of a
weighted sum of the outputs with respect to the inputs and the trainable weights. Serialized initializers and
regularizers inside a config are compared by class; their own configs are compared where those families are
enumerated.
"""

from __future__ import annotations

import inspect
import io
import json
from contextlib import redirect_stdout
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

import minitf
from minitf import left_out
from tests.engine.differential.keras_layer_cases import CASES, FUNCTIONS, Case

keras = real_tf.keras
RTOL, ATOL = 2e-5, 2e-6

KERAS_LAYERS = sorted(name for name in dir(keras.layers) if not name.startswith("_"))
KERAS_CLASSES = [name for name in KERAS_LAYERS if inspect.isclass(getattr(keras.layers, name))]


def _names_of(name: str) -> list[str]:
    """Every name under which Keras exports the same object (`MaxPool2D`, `MaxPooling2D`)."""
    return [other for other in KERAS_LAYERS if getattr(keras.layers, other) is getattr(keras.layers, name)]


def test_every_keras_layer_is_compared_or_left_out() -> None:
    table = minitf.keras.layers.LEFT_OUT
    covered = set(table) | set(CASES) | set(FUNCTIONS)
    unknown = [name for name in KERAS_LAYERS if not covered & set(_names_of(name))]
    assert unknown == [], f"Keras layers neither compared with minitf nor left out: {unknown}"
    both = [name for name in table if name in CASES]
    assert both == [], f"Layers both implemented (with cases) and left out: {both}"
    stale = [name for name in table if name not in KERAS_LAYERS]
    assert stale == [], f"Left out names that Keras does not have: {stale}"


@pytest.mark.sample(6)
@pytest.mark.parametrize("name", sorted(minitf.keras.layers.LEFT_OUT))
def test_a_left_out_layer_raises_the_left_out_error(name: str) -> None:
    with pytest.raises(left_out.LeftOutError, match=f"tf.keras.layers.{name}"):
        getattr(minitf.keras.layers, name)
    assert minitf.keras.layers.LEFT_OUT[name].strip()


@pytest.mark.parametrize("name", [name for name in KERAS_LAYERS if len(_names_of(name)) > 1])
def test_an_alias_is_the_same_class_as_in_keras(name: str) -> None:
    """Every name of a class Keras exports under several is left out, or names one minitf class."""
    names = _names_of(name)
    if any(other in minitf.keras.layers.LEFT_OUT for other in names):
        assert all(other in minitf.keras.layers.LEFT_OUT for other in names)
    else:
        assert all(getattr(minitf.keras.layers, other) is getattr(minitf.keras.layers, name) for other in names)


def _json(value: Any) -> Any:
    """A config as it is written to a file (tuples become lists), nested initializers reduced to their class."""
    value = json.loads(json.dumps(value, default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v)))

    def reduce(item: Any) -> Any:
        if isinstance(item, dict):
            if item.get("module") in ("keras.initializers", "keras.regularizers", "keras.constraints"):
                return (item["module"], item["class_name"])
            return {key: reduce(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [reduce(inner) for inner in item]
        return item

    return reduce(value)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _close(ours: Any, theirs: Any, what: str) -> None:
    ours_list, theirs_list = _as_list(ours), _as_list(theirs)
    assert len(ours_list) == len(theirs_list), what
    for mine, real in zip(ours_list, theirs_list, strict=True):
        assert mine.dtype.name == real.dtype.name, what
        assert tuple(mine.shape) == tuple(real.shape), what
        np.testing.assert_allclose(np.asarray(mine), np.asarray(real), rtol=RTOL, atol=ATOL, err_msg=what)


def _engine_inputs(engine: Any, x: Any) -> Any:
    if isinstance(x, list):
        return [engine.constant(item) for item in x]
    return engine.constant(x)


def _gradients(engine: Any, layer: Any, x: Any, case: Case) -> list[Any]:
    inputs = _engine_inputs(engine, x)
    flat = _as_list(inputs)
    floats = [item for item in flat if item.dtype.is_floating]
    with engine.GradientTape(persistent=True) as tape:
        for item in floats:
            tape.watch(item)
        outputs = layer(inputs, **case.call_kwargs)
        weights = np.random.default_rng(1)
        total = engine.constant(0.0)
        for output in _as_list(outputs):
            if output.dtype.is_floating:
                total = total + engine.reduce_sum(
                    output * engine.constant(weights.standard_normal(tuple(output.shape)).astype("float32"))
                )
    return [tape.gradient(total, item) for item in floats + list(layer.trainable_weights)]


def _pair(name: str, case: Case) -> tuple[Any, Any]:
    minitf.keras.backend.clear_session()
    keras.backend.clear_session()
    ours = getattr(minitf.keras.layers, name)(**case.make_kwargs(minitf.keras))
    theirs = getattr(keras.layers, name)(**case.make_kwargs(keras))
    return ours, theirs


def compare_layer(name: str, case: Case) -> None:
    ours, theirs = _pair(name, case)
    assert repr(ours) == repr(theirs)
    x = case.inputs()
    out_ours = ours(x, **case.call_kwargs)
    theirs(x, **case.call_kwargs)
    assert repr(ours) == repr(theirs)
    assert [(w.path, w.name, tuple(w.shape), w.trainable) for w in ours.weights] == [
        (w.path, w.name, tuple(w.shape), w.trainable) for w in theirs.weights
    ]
    theirs.set_weights(ours.get_weights())
    _close(out_ours, theirs(x, **case.call_kwargs), f"{name} outputs")
    assert _json(ours.get_config()) == _json(theirs.get_config())
    assert _json(minitf.keras.layers.serialize(ours)) == _json(keras.layers.serialize(theirs))
    rebuilt = minitf.keras.layers.deserialize(keras.layers.serialize(theirs))
    rebuilt(x, **case.call_kwargs)
    rebuilt.set_weights(ours.get_weights())
    _close(rebuilt(x, **case.call_kwargs), out_ours, f"{name} rebuilt from Keras's config")
    if case.symbolic:
        _compare_symbolic(name, case, x)
    if case.gradients:
        for mine, real in zip(_gradients(minitf, ours, x, case), _gradients(real_tf, theirs, x, case), strict=True):
            if real is None:
                assert mine is None
            else:
                _close(minitf.convert_to_tensor(mine), real_tf.convert_to_tensor(real), f"{name} gradients")


def _compare_symbolic(name: str, case: Case, x: Any) -> None:
    def shapes(engine: Any) -> Any:
        engine.backend.clear_session()
        layer = getattr(engine.layers, name)(**case.make_kwargs(engine))
        inputs = [engine.Input(item.shape[1:], dtype=str(item.dtype)) for item in _as_list(x)]
        outputs = layer(inputs if isinstance(x, list) else inputs[0], **case.call_kwargs)
        return [(tuple(o.shape), o.dtype) for o in _as_list(outputs)]

    assert shapes(minitf.keras) == shapes(keras)


CASE_IDS = [(name, index) for name in sorted(CASES) for index in range(len(CASES[name]))]


@pytest.mark.sample(12)
@pytest.mark.parametrize(("name", "index"), CASE_IDS, ids=[f"{name}-{index}" for name, index in CASE_IDS])
def test_layer_matches_keras(name: str, index: int) -> None:
    case = CASES[name][index]
    if case.check is not None:
        case.check(minitf.keras, keras)
    else:
        compare_layer(name, case)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functional_form_matches_keras(name: str) -> None:
    FUNCTIONS[name](minitf.keras, keras)


def _convolutional(keras: Any) -> Any:
    return keras.Sequential(
        [
            keras.Input((28, 28, 1)),
            keras.layers.Conv2D(8, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(16, 3, padding="same"),
            keras.layers.BatchNormalization(),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dropout(0.3),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )


def _recurrent(keras: Any) -> Any:
    tokens = keras.Input((None,), dtype="int32")
    hidden = keras.layers.LSTM(4)(keras.layers.Embedding(100, 8)(tokens))
    return keras.Model(tokens, keras.layers.Dense(1)(hidden))


@pytest.mark.parametrize("build", [_convolutional, _recurrent], ids=["convolutional", "recurrent"])
def test_summary_of_a_model_of_these_layers_prints_what_keras_prints(build: Any) -> None:
    def printed(engine: Any) -> str:
        engine.backend.clear_session()
        out = io.StringIO()
        with redirect_stdout(out):
            build(engine).summary()
        return out.getvalue()

    assert printed(minitf.keras) == printed(keras)


def test_loading_a_left_out_layer_from_kerass_config_raises_the_left_out_error() -> None:
    keras.backend.clear_session()
    entry = keras.layers.serialize(keras.layers.EinsumDense("ab,bc->ac", output_shape=4))
    with pytest.raises(left_out.LeftOutError, match="tf.keras.layers.EinsumDense"):
        minitf.keras.layers.deserialize(entry)
