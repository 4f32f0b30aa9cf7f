"""The lessons' cell-by-cell comparison of the two engines: text exactly (spacing aside), numbers to float
precision (`notebook_runner.printed_difference`)."""

from __future__ import annotations

import pytest
from notebook_runner import printed_difference


@pytest.mark.parametrize(("tensorflow", "minitf"), [
    ("tf.Tensor(0.7615942, shape=(), dtype=float32)", "tf.Tensor(0.7615942, shape=(), dtype=float32)"),
    ("tf.Tensor(0.7615942, shape=(), dtype=float32)", "tf.Tensor(0.76159418, shape=(), dtype=float32)"),
    ("[1.         0.5       ]", "[0.99999994 0.5       ]"),
    ("loss 2.3026", "loss 2.3025"),  # nearly equal values rounded apart at 4 decimals
    ("mean 3.1415927e-05", "mean 3.1415925e-05"),
])
def test_numbers_that_agree_to_float_precision_print_alike(tensorflow: str, minitf: str) -> None:
    assert printed_difference(tensorflow, minitf) is None


@pytest.mark.parametrize(("tensorflow", "minitf", "why"), [
    ("shape=(2, 3)", "shape=(3, 2)", "integers print exactly"),
    ("3 steps", "4 steps", "integers print exactly"),
    ("loss 2.3026", "loss 2.3028", "two units in the last digit"),
    ("accuracy 0.9", "accuracy 1.0", "one unit, but too few digits to tell rounding from a wrong value"),
    ("tf.Tensor(0.76, shape=(), dtype=float32)", "tf.Tensor(0.77, shape=(), dtype=float32)", "0.01 apart"),
    ("[0. 1.]", "[-0. 1.]", "the sign of a zero"),
    ("dtype=float32", "dtype=float64", "the text"),
    ("a 1.5", "b 1.5", "the text"),
])
def test_numbers_or_text_that_differ_are_reported(tensorflow: str, minitf: str, why: str) -> None:
    assert printed_difference(tensorflow, minitf) is not None, why
