"""An error raised inside a layer's `call` reads as Keras's: "Exception encountered when calling <Layer>.call()",
the original message in bold, then "Arguments received by <Layer>.call():" with every parameter of `call` (given
values, tensors by shape and dtype, defaults). Checked for several error kinds (Python errors, an error class
that takes no plain message, TensorFlow's op errors), argument forms, Lambda, a symbolic call, a layer inside
another and models; the class and the whole message must agree, minitf's own last "Hint:" line aside."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

import minitf


class Odd(Exception):
    """An error whose constructor takes no plain message (Keras reports it as a RuntimeError)."""

    def __init__(self, first: int, second: int) -> None:
        super().__init__(f"{first}-{second}")


def _failing(tf: Any, kind: str) -> Any:
    class Failing(tf.keras.layers.Layer):
        def call(self, inputs: Any, training: Any = None, scale: float = 2.0) -> Any:
            if kind == "value":
                raise ValueError("the inputs are not what this layer takes")
            if kind == "type":
                raise TypeError("wrong type")
            if kind == "key":
                raise KeyError("missing")
            if kind == "odd":
                raise Odd(1, 2)
            if kind == "empty":
                raise RuntimeError()
            return tf.reshape(inputs, (7, 5))  # an op error from TensorFlow's kernel

    return Failing()


def _x(tf: Any) -> Any:
    return tf.constant(np.ones((2, 3), "float32"))


class Outer:
    @staticmethod
    def make(tf: Any) -> Any:
        inner = _failing(tf, "value")

        class Outer(tf.keras.layers.Layer):
            def call(self, inputs: Any) -> Any:
                return inner(inputs * 2.0)

        return Outer()


class Subclassed:
    @staticmethod
    def make(tf: Any) -> Any:
        class Subclassed(tf.keras.Model):
            def __init__(self) -> None:
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            def call(self, x: Any, training: bool = False) -> Any:
                return self.dense(x)

        model = Subclassed()
        model(np.ones((1, 3), "float32"))
        return model


def _sequential(tf: Any) -> Any:
    model = tf.keras.Sequential([tf.keras.layers.Dense(2), tf.keras.layers.Dense(1)])
    model(np.ones((1, 3), "float32"))
    return model


def _raising(kind: str) -> Any:
    return lambda tf: _failing(tf, kind)(_x(tf))


CASES = {
    **{f"{kind} error": _raising(kind) for kind in ("value", "type", "key", "odd", "empty", "op")},
    "arguments given by name": lambda tf: _failing(tf, "value")(_x(tf), training=True, scale=3),
    "a NumPy input": lambda tf: _failing(tf, "value")(np.ones((2, 3), "float32")),
    "a list of inputs": lambda tf: _failing(tf, "value")([_x(tf), _x(tf)]),
    "a dict of inputs": lambda tf: _failing(tf, "type")({"a": _x(tf), "b": "text"}),
    "inside another layer": lambda tf: Outer.make(tf)(_x(tf)),
    "a Lambda layer": lambda tf: tf.keras.layers.Lambda(lambda t: tf.reshape(t, (4, 4)))(_x(tf)),
    "a Sequential model's wrong input": lambda tf: _sequential(tf)(np.ones((1, 4), "float32")),
    "predict with a wrong input": lambda tf: _sequential(tf).predict(np.ones((1, 4), "float32"), verbose=0),
    "a subclassed model's call default": lambda tf: Subclassed.make(tf)(np.ones((1, 4), "float32")),
    "a symbolic call": lambda tf: _failing(tf, "value")(tf.keras.Input((3,))),
}


def _error(tf: Any, case: Any) -> BaseException:
    tf.keras.backend.clear_session()
    try:
        case(tf)
    except Exception as error:  # the error is what is compared
        return error
    raise AssertionError("no error")


def _text(error: BaseException) -> str:
    """The message as raised (an op error keeps it in `.message`), without minitf's last "Hint:" line."""
    text = getattr(error, "message", None) if hasattr(error, "error_code") else None
    text = text if text is not None else (str(error.args[0]) if error.args else "")
    return text.split("\nHint:")[0]


@pytest.mark.parametrize("name", list(CASES))
def test_an_error_inside_call_is_reported_with_the_arguments_as_keras_does(name: str) -> None:
    mine, theirs = _error(minitf, CASES[name]), _error(real_tf, CASES[name])
    assert type(mine).__name__ == type(theirs).__name__
    assert _text(mine) == _text(theirs)
    assert getattr(mine, "_keras_call_info_injected", False) == getattr(theirs, "_keras_call_info_injected", False)


def test_an_input_that_does_not_fit_a_layer_is_not_reported_as_an_error_inside_call() -> None:
    def case(tf: Any) -> Any:
        dense = tf.keras.layers.Dense(2)
        dense(np.ones((1, 3), "float32"))
        return dense(np.ones((1, 4), "float32"))

    mine, theirs = _error(minitf, case), _error(real_tf, case)
    assert type(mine) is type(theirs) is ValueError
    assert _text(mine) == _text(theirs)
    assert "Exception encountered" not in _text(theirs)
