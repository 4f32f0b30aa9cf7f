"""`Normalization.mean` and `.variance`: what a learner prints after `adapt`, as Keras shows it."""

import numpy as np
import pytest
from harness import real_tf

import minitf

pytestmark = pytest.mark.tf

DATA = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 9.0]], dtype="float32")


@pytest.mark.parametrize("attribute", ["mean", "variance"])
def test_adapted_statistics_print_as_keras_prints_them(attribute: str) -> None:
    printed = []
    for engine in (minitf, real_tf):
        layer = engine.keras.layers.Normalization()
        layer.adapt(DATA)
        printed.append(str(getattr(layer, attribute)))
    assert printed[0] == printed[1], printed
    assert "shape=(1, 3)" in printed[0]


def test_statistics_of_an_unbuilt_layer_are_none_and_given_ones_are_broadcast() -> None:
    for engine in (minitf, real_tf):
        assert engine.keras.layers.Normalization().mean is None
    given = []
    for engine in (minitf, real_tf):
        layer = engine.keras.layers.Normalization(mean=2.0, variance=4.0)
        layer.build((None, 3))
        given.append(np.asarray(layer.variance))
    np.testing.assert_array_equal(given[0], given[1])
    assert given[0].shape == (1, 3)
