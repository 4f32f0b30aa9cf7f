"""A learner's layer or model without `get_config` gets one as in Keras 3: the constructor's arguments (defaults
included, `name` after it only when `__init__` takes it) when they are plain values; Keras's NotImplementedError
otherwise (values that are not plain, `*args`, positional-only parameters). Such a layer saves in a model file
that either engine loads (its recorded arguments come back)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import keras as real_keras  # Keras 3 itself: tf.keras does not show `keras.saving`
import numpy as np
import pytest

import minitf

pytestmark = [pytest.mark.tf, pytest.mark.usefixtures("fresh_keras_names")]

ENGINES = {"minitf": minitf.keras, "keras": real_keras}
X = np.linspace(-1.0, 1.0, 12, dtype="float32").reshape(4, 3)


def _classes(keras: Any) -> dict[str, Any]:
    """The layers a learner writes without `get_config`, against one engine's Keras."""

    @keras.saving.register_keras_serializable(package="auto")
    class Shift(keras.layers.Layer):
        def __init__(self, offset: float = 1.0, label: str = "s", sizes: Any = (1, 2), **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.offset, self.label, self.sizes = offset, label, sizes

        def call(self, x: Any) -> Any:
            return x + self.offset

    class NoName(keras.layers.Layer):
        def __init__(self, factor: int) -> None:
            super().__init__()
            self.factor = factor

    class Holding(keras.layers.Layer):
        def __init__(self, values: Any, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.values = values

    class Variadic(keras.layers.Layer):
        def __init__(self, *sizes: int, **kwargs: Any) -> None:
            super().__init__(**kwargs)

    class PositionalOnly(keras.layers.Layer):
        def __init__(self, size: int, /, **kwargs: Any) -> None:
            super().__init__(**kwargs)

    class Small(keras.Model):
        def __init__(self, units: int = 2, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.dense = keras.layers.Dense(units)

        def call(self, x: Any) -> Any:
            return self.dense(x)

    class Dense2(keras.layers.Dense):  # inherits Dense's own get_config: no recorded arguments
        def __init__(self, units: int, extra: int = 3, **kwargs: Any) -> None:
            super().__init__(units, **kwargs)

    return {c.__name__: c for c in (Shift, NoName, Holding, Variadic, PositionalOnly, Small, Dense2)}


CASES = {
    "arguments and defaults": lambda c: c["Shift"](2.5, sizes=[3, 4], name="shift"),
    "only defaults": lambda c: c["Shift"](),
    "nested plain values": lambda c: c["Holding"]({"a": [1, 2.5, None], "b": "x"}, trainable=False),
    "no name parameter": lambda c: c["NoName"](3),
    "a value that is not plain": lambda c: c["Holding"](np.ones(2)),
    "variadic arguments given": lambda c: c["Variadic"](1, 2),
    "variadic arguments not given": lambda c: c["Variadic"](),
    "positional-only parameter": lambda c: c["PositionalOnly"](4),
    "a subclassed model": lambda c: c["Small"](3),
    "a subclass of a built-in layer": lambda c: c["Dense2"](2, extra=5),
}


def _config(keras: Any, case: Any) -> Any:
    keras.backend.clear_session()
    try:
        return case(_classes(keras)).get_config()
    except NotImplementedError as error:
        return ("NotImplementedError", str(error))


@pytest.mark.parametrize("name", list(CASES))
def test_get_config_of_a_class_without_one_is_what_keras_makes(name: str) -> None:
    mine, theirs = (_config(keras, CASES[name]) for keras in ENGINES.values())
    assert mine == theirs


@pytest.mark.parametrize("direction", ["minitf_to_minitf", "minitf_to_keras", "keras_to_minitf", "keras_to_keras"])
def test_a_layer_without_get_config_saves_and_loads_with_its_arguments(direction: str, tmp_path: Path) -> None:
    source, target = (ENGINES[name] for name in direction.split("_to_"))
    shift = _classes(source)["Shift"]
    inputs = source.Input((3,))
    model = source.Model(inputs, shift(4.0, label="moved", name="shift")(source.layers.Dense(2)(inputs)))
    model.save(tmp_path / "model.keras")
    _classes(target)  # registers the target engine's class under the same name
    loaded = target.models.load_model(tmp_path / "model.keras")
    layer = loaded.get_layer("shift")
    assert (type(layer).__name__, layer.offset, layer.label) == ("Shift", 4.0, "moved")
    np.testing.assert_allclose(np.asarray(loaded(X)), np.asarray(model(X)), rtol=1e-5, atol=1e-6)
