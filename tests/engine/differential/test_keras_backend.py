"""`tf.keras.backend` (Keras 2's backend, which TensorFlow's `tf.keras` still exports) against minitf's: every name
implemented or left out with a reason, and the helpers learners' callbacks and shape checks use give what
TensorFlow's give."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import tensorflow as real_tf

import minitf
from minitf import left_out
from tests.engine.differential import keras_families

ours = minitf.keras.backend


def _their_names() -> list[str]:
    module = real_tf.keras.backend
    return sorted(n for n in dir(module) if not n.startswith("_") and not inspect.ismodule(getattr(module, n)))


def test_every_name_of_tf_keras_backend_is_implemented_or_left_out_with_a_reason() -> None:
    assert [n for n in _their_names() if n not in ours.LEFT_OUT and n not in vars(ours)] == []
    assert keras_families.left_out_names_raise(ours, "tf.keras.backend") == []
    assert getattr(ours, "sum", None) is None  # a feature check with a default still works


def _helpers(tf: Any) -> list[Any]:
    backend = tf.keras.backend
    variable = tf.Variable(1.0)
    backend.set_value(variable, 2)
    weights = tf.Variable(tf.ones((2, 3)))
    backend.batch_set_value([(weights, np.zeros((2, 3)))])
    return [
        backend.backend(),
        backend.floatx(),
        backend.image_data_format(),
        backend.epsilon(),
        repr(backend.get_value(variable)),
        repr(backend.get_value(tf.constant([1, 2]))),
        backend.get_value(3),
        [repr(v) for v in backend.batch_get_value([variable, tf.constant(2)])],
        backend.get_value(weights).tolist(),
        backend.int_shape(tf.ones((2, 3))),
        backend.int_shape(tf.keras.Input((3,))),
        backend.count_params(weights),
        backend.is_keras_tensor(tf.keras.Input((3,))),
        backend.is_keras_tensor(tf.ones(2)),
        repr(backend.cast_to_floatx([1, 2])),
    ]


def test_the_helpers_give_what_tensorflows_give() -> None:
    assert _helpers(minitf) == _helpers(real_tf)


def test_keras_2s_backend_math_says_which_tf_function_to_use() -> None:
    try:
        getattr(ours, "sum")  # noqa: B009 (the attribute access under test)
    except left_out.LeftOutError as error:
        assert "tf.keras.backend.sum" in str(error) and "tf.reduce_sum" in str(error)
    else:
        raise AssertionError("tf.keras.backend.sum should be left out")
