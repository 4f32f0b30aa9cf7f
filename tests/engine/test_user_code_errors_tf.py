"""Errors raised while a tf.function is traced, on minitf against real TensorFlow: the same class and the
same "in user code:" message, which lists the student's frames (converted ones marked `*`)."""

from __future__ import annotations

from typing import Any

import pytest
from harness import ENGINES, minitf, real_tf, run_program, same_program

pytestmark = pytest.mark.tf


def _same_error(case: Any) -> str:
    """Both engines raise the same class (and base class) with exactly the same message; returns it."""
    return str(same_program(case, message="equal").error)


def helper_adding_an_int(tf: Any, x: Any) -> Any:
    return x + tf.constant(1)


def test_error_of_an_op_lists_the_loop_line_and_the_helper_it_called() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            for _ in tf.range(2):
                x = helper_adding_an_int(tf, x)
            return x

        f(tf.constant(1.0))

    message = _same_error(case)
    assert message.startswith("in user code:\n\n") and "in helper_adding_an_int  *" in message


def test_error_raised_in_a_tensor_if_branch_shows_the_branch_line() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            if x > 0:
                raise ValueError("boom\nsecond line")
            return x

        f(tf.constant(1.0))

    _same_error(case)


def test_a_function_traced_inside_another_adds_its_frames_after_the_callers() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def inner(x):
            raise ValueError("inner failed")

        @tf.function
        def outer(x):
            return inner(x) + 1

        outer(tf.constant(1.0))

    message = _same_error(case)
    assert message.index("in outer  *") < message.index("in inner  *")


class CustomError(Exception):
    pass


@pytest.mark.parametrize("raised", ["custom", "key", "recursion", "attribute"])
def test_exception_classes_are_kept_or_become_staging_error_as_in_tensorflow(raised: str) -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            if raised == "custom":
                raise CustomError("mine")
            if raised == "key":
                return {}["missing"]
            if raised == "recursion":
                raise RecursionError("deep")
            return x.no_such_attribute

        f(tf.constant(1.0))

    _same_error(case)
    expected = {"custom": "CustomError", "key": "KeyError", "recursion": "StagingError", "attribute": "AttributeError"}
    for tf in ENGINES.values():
        with pytest.raises(Exception) as info:  # the class is what is checked
            case(tf, [])
        assert type(info.value).__name__ == expected[raised]
        assert isinstance(info.value, KeyError) == (raised == "key")


def test_without_autograph_errors_are_raised_as_they_are() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(autograph=False)
        def f(x):
            raise ValueError("boom")

        f(tf.constant(1.0))

    assert _same_error(case) == "boom"


def test_iterating_a_tensor_with_enumerate_or_zip_is_not_converted() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x, y):
            total = tf.constant(0.0)
            for a, b in zip(x, y):
                total += a * b
            return total

        f(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))

    mine, theirs = run_program(case, minitf).error, run_program(case, real_tf).error
    assert type(mine).__name__ == type(theirs).__name__ == "OperatorNotAllowedInGraphError"
    assert str(mine).startswith(str(theirs).rstrip("\n")), str(mine)
    assert "Hint:" in str(mine)
