"""The harness itself: each case really runs traced and under a tape, and a difference in either way fails."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import Inputs, minitf, run_tape, run_traced, same

VALUES = np.array([1.0, -2.0, 3.0], dtype=np.float32)


def test_traced_way_passes_the_cases_arrays_in_as_function_arguments() -> None:
    inputs = Inputs()
    inputs.arrays.append(VALUES)
    outcome = run_traced(minitf, inputs, lambda tf: tf.constant(VALUES).name)
    assert outcome.error is None and outcome.value.numpy() == b"placeholders_0:0"


def test_tape_way_differentiates_float_outputs_with_respect_to_float_inputs() -> None:
    inputs = Inputs()
    inputs.arrays.append(VALUES)
    outcome = run_tape(minitf, inputs, lambda tf: tf.constant(VALUES) ** 2)
    assert outcome.error is None
    np.testing.assert_allclose(outcome.value[0].numpy(), 2 * VALUES)


def differs_inside_functions(tf: Any) -> Any:
    """Equal eagerly; inside a function minitf's result is off by one."""
    off = 1.0 if tf.__name__ == "minitf" and not tf.executing_eagerly() else 0.0
    return tf.constant(VALUES) + off


def differs_in_gradients(tf: Any) -> Any:
    """Equal values, but minitf's gradient is cut."""
    x = tf.constant(VALUES)
    return (tf.stop_gradient(x) if tf.__name__ == "minitf" else tf.identity(x)) * 2.0


@pytest.mark.parametrize(
    ("case", "way"), [(differs_inside_functions, "inside tf.function"), (differs_in_gradients, "gradients")]
)
def test_a_difference_in_one_way_fails_the_comparison(case: Any, way: str) -> None:
    with pytest.raises(AssertionError, match=way):
        same(case)
