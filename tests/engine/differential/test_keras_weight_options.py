"""Initializers, regularizers and constraints of the installed Keras against minitf's: every name implemented or
left out; the same values for the deterministic ones (penalties, projections, constants), the same statistics
for the random initializers; configs and serialized forms."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as real_tf

import minitf
from tests.engine.differential import keras_families

RTOL, ATOL = 2e-5, 2e-6
WEIGHT = np.random.default_rng(0).normal(size=(5, 4)).astype("float32") * 1.5
FAMILIES = ["initializers", "regularizers", "constraints"]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_name_and_identifier_is_implemented_or_left_out(family: str) -> None:
    ours = getattr(minitf.keras, family)
    assert keras_families.unaccounted_names(family, ours) == []
    assert keras_families.left_out_names_raise(ours, f"tf.keras.{family}") == []
    assert keras_families.unaccounted_identifiers(family, ours.get) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_identifiers_make_the_same_class_and_config(family: str) -> None:
    ours, theirs = getattr(minitf.keras, family), getattr(keras, family)
    for name in keras_families.identifiers(family):
        if name in ours.LEFT_OUT or name.lower() in ("initializer", "regularizer", "constraint", "constant"):
            continue  # left out, abstract, or refused by both (Keras's get("constant") has no value to give)
        mine, expected = ours.get(name), theirs.get(name)
        assert type(mine).__name__ == type(expected).__name__, name
        assert mine.get_config() == expected.get_config(), name
        assert ours.serialize(mine) == theirs.serialize(expected), name


REGULARIZERS: list[tuple[str, dict[str, Any]]] = [
    ("L1", {"l1": 0.02}),
    ("L2", {"l2": 0.03}),
    ("L1L2", {"l1": 0.01, "l2": 0.02}),
    ("OrthogonalRegularizer", {"factor": 0.1}),
    ("OrthogonalRegularizer", {"factor": 0.1, "mode": "columns"}),
]
CONSTRAINTS: list[tuple[str, dict[str, Any]]] = [
    ("MaxNorm", {"max_value": 1.0}),
    ("MaxNorm", {"max_value": 2.0, "axis": 1}),
    ("NonNeg", {}),
    ("UnitNorm", {}),
    ("UnitNorm", {"axis": 1}),
    ("MinMaxNorm", {"min_value": 0.5, "max_value": 1.2, "rate": 0.7}),
]


@pytest.mark.parametrize(
    ("family", "name", "options"),
    [("regularizers", *r) for r in REGULARIZERS] + [("constraints", *c) for c in CONSTRAINTS],
)
def test_penalties_and_projections_match(family: str, name: str, options: dict[str, Any]) -> None:
    mine = getattr(getattr(minitf.keras, family), name)(**options)
    theirs = getattr(getattr(keras, family), name)(**options)
    np.testing.assert_allclose(
        np.asarray(mine(minitf.constant(WEIGHT))), np.asarray(theirs(real_tf.constant(WEIGHT))), RTOL, ATOL
    )
    assert mine.get_config() == theirs.get_config()


DETERMINISTIC: list[tuple[str, dict[str, Any]]] = [
    ("Zeros", {}),
    ("Ones", {}),
    ("Constant", {"value": 0.25}),
    ("Identity", {"gain": 2.0}),
]
RANDOM = [
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "LecunNormal",
    "LecunUniform",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
]


@pytest.mark.parametrize(("name", "options"), DETERMINISTIC)
def test_deterministic_initializers_fill_the_same_values(name: str, options: dict[str, Any]) -> None:
    mine = getattr(minitf.keras.initializers, name)(**options)
    theirs = getattr(keras.initializers, name)(**options)
    np.testing.assert_array_equal(np.asarray(mine((3, 4))), np.asarray(theirs((3, 4))))
    assert mine.get_config() == theirs.get_config()


@pytest.mark.parametrize("name", RANDOM)
def test_random_initializers_draw_from_the_same_distribution(name: str) -> None:
    """Values differ (another generator), so the sample's range, mean and spread are compared."""
    shape = (400, 300)
    mine = np.asarray(getattr(minitf.keras.initializers, name)(seed=1)(shape))
    theirs = np.asarray(getattr(keras.initializers, name)(seed=1)(shape))
    assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
    np.testing.assert_allclose(mine.std(), theirs.std(), rtol=0.02)
    np.testing.assert_allclose(mine.mean(), theirs.mean(), atol=0.01 * theirs.std())
    if "Uniform" in name or "Normal" in name and name != "RandomNormal":  # bounded: the same largest value
        np.testing.assert_allclose(np.abs(mine).max(), np.abs(theirs).max(), rtol=0.05)


def test_orthogonal_initializer_gives_orthonormal_rows_scaled_by_gain() -> None:
    for shape in ((3, 5), (5, 3)):
        mine = np.asarray(minitf.keras.initializers.Orthogonal(gain=2.0, seed=3)(shape))
        small = min(shape)
        product = mine @ mine.T if shape[0] == small else mine.T @ mine
        np.testing.assert_allclose(product, 4.0 * np.eye(small), atol=1e-5)
    assert (
        minitf.keras.initializers.Orthogonal(gain=2.0).get_config()
        == keras.initializers.Orthogonal(gain=2.0).get_config()
    )
