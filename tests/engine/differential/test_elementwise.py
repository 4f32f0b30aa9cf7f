"""Elementwise math, comparisons and logic on every dtype, with broadcasting and edge values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import EAGER, TAPE, examples, named_examples, only, resolve, same
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import ALL, FLOATS, NUMERIC, arrays, broadcast_pair

UNARY = [
    "negative",
    "abs",
    "sign",
    "square",
    "sqrt",
    "exp",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "round",
    "floor",
    "math.log",
    "math.ceil",
    "math.rsqrt",
    "math.expm1",
    "math.log1p",
    "math.tan",
    "math.reciprocal",
    "math.is_nan",
    "math.is_inf",
    "math.is_finite",
    "math.conj",
    "math.real",
    "math.imag",
    "math.negative",
    "math.abs",
    "math.sigmoid",
    "nn.relu",
    "nn.sigmoid",
    "nn.tanh",
    "logical_not",
    "identity",
    "stop_gradient",
]

BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "truediv",
    "math.floordiv",
    "math.floormod",
    "math.mod",
    "pow",
    "maximum",
    "minimum",
    "math.squared_difference",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "math.logical_xor",
    "truncatediv",
    "truncatemod",
    "math.divide_no_nan",
    "math.add",
    "math.multiply",
    "math.subtract",
    "math.divide",
    "math.pow",
]

OPERATORS = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: x / y,
    "//": lambda x, y: x // y,
    "%": lambda x, y: x % y,
    "**": lambda x, y: x**y,
    "<": lambda x, y: x < y,
    "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y,
    ">=": lambda x, y: x >= y,
    "==": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    "&": lambda x, y: x & y,
    "|": lambda x, y: x | y,
    "^": lambda x, y: x ^ y,
}


def unary_case(tf: Any, name: str, a: np.ndarray) -> Any:
    return resolve(tf, name)(tf.constant(a))


DIVISIONS = {"divide", "truediv", "math.divide", "/", "math.divide_no_nan"}


def on_complex_branch_cut(name: str, a: np.ndarray) -> bool:
    """Complex sqrt/log on the negative real axis (where -0j and +0j differ) and log1p(-1): the two engines'
    C libraries disagree on the sign of zero or nan parts there."""
    if a.dtype.kind != "c" or name not in ("sqrt", "math.log", "math.log1p", "math.rsqrt"):
        return False
    return bool(np.any((a.imag == 0) & (a.real <= 0)))


def complex_zero_base(name: str, a: np.ndarray) -> bool:
    """Complex 0 ** z: TensorFlow gives nan+nanj for 0 ** 0 and inf+nanj for 0 ** -1."""
    return name in ("pow", "math.pow", "**") and a.dtype.kind == "c" and bool(np.any(a == 0))


def complex_zero_divisor(name: str, b: np.ndarray) -> bool:
    """TensorFlow's complex x / 0 is inf+infj for scalars but nan+nanj for vectors, and x / inf is nan+nanj:
    not rules worth copying."""
    return name in DIVISIONS and b.dtype.kind == "c" and bool(np.any((b == 0) | ~np.isfinite(b)))


def binary_case(tf: Any, name: str, a: np.ndarray, b: np.ndarray) -> Any:
    return resolve(tf, name)(tf.constant(a), tf.constant(b))


def operator_case(tf: Any, symbol: str, a: np.ndarray, b: np.ndarray) -> Any:
    return OPERATORS[symbol](tf.constant(a), tf.constant(b))


@pytest.mark.parametrize("name", UNARY)
@examples
@given(a=arrays(st.sampled_from(ALL)))
def test_unary_op_matches_tensorflow_on_every_dtype(name: str, a: np.ndarray) -> None:
    assume(not on_complex_branch_cut(name, a))
    same(unary_case, name, a)


@pytest.mark.parametrize("name", BINARY)
@examples
@given(pair=broadcast_pair(st.sampled_from(ALL)))
def test_binary_op_matches_tensorflow_with_broadcasting(name: str, pair: tuple[np.ndarray, np.ndarray]) -> None:
    assume(not complex_zero_divisor(name, pair[1]) and not complex_zero_base(name, pair[0]))
    same(binary_case, name, *pair)


@pytest.mark.parametrize("symbol", list(OPERATORS))
@examples
@given(pair=broadcast_pair(st.sampled_from(ALL)))
def test_python_operator_matches_tensorflow(symbol: str, pair: tuple[np.ndarray, np.ndarray]) -> None:
    assume(not complex_zero_divisor(symbol, pair[1]) and not complex_zero_base(symbol, pair[0]))
    same(operator_case, symbol, *pair)


# (Not floordiv: for a complex first operand TensorFlow reports the missing kernel before the mismatch.)
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "equal", "less", "math.floormod"])
@examples
@given(pair=broadcast_pair(st.sampled_from(NUMERIC), other_dtype=st.sampled_from(NUMERIC), compatible_only=True))
def test_mixed_dtypes_raise_like_tensorflow(name: str, pair: tuple[np.ndarray, np.ndarray]) -> None:
    same(binary_case, name, *pair)


@pytest.mark.parametrize("symbol", ["+", "-", "*", "/", "%", "**", "<", "=="])
@examples
@given(pair=broadcast_pair(st.sampled_from(NUMERIC), other_dtype=st.sampled_from(NUMERIC), compatible_only=True))
def test_mixed_dtype_operators_raise_like_tensorflow(symbol: str, pair: tuple[np.ndarray, np.ndarray]) -> None:
    assume(not complex_zero_divisor(symbol, pair[1]) and not complex_zero_base(symbol, pair[0]))
    same(operator_case, symbol, *pair)


# --- Python scalars and NumPy values as the other operand ---

SCALARS = [2, -3, 0, 1.5, -0.5, 300, 2**40, True, 1 + 2j, np.float64(2.5), np.int64(3), np.float32(1.5)]


def scalar_right(tf: Any, symbol: str, a: np.ndarray, scalar: Any) -> Any:
    return OPERATORS[symbol](tf.constant(a), scalar)


def scalar_left(tf: Any, symbol: str, a: np.ndarray, scalar: Any) -> Any:
    return OPERATORS[symbol](scalar, tf.constant(a))


# (Not `|`: TensorFlow's `int_tensor | 1.5` fails with an AttributeError from inside its own wrapper.)
@pytest.mark.parametrize("symbol", ["+", "-", "*", "/", "//", "%", "**", "<", "==", "!=", "&", "^"])
@examples
@given(a=arrays(st.sampled_from(NUMERIC + ["bool"]), small=True), scalar=st.sampled_from(SCALARS), left=st.booleans())
def test_python_scalar_takes_the_tensors_dtype(symbol: str, a: np.ndarray, scalar: Any, left: bool) -> None:
    # TensorFlow's C++ fast path converts True to complex for some ops and refuses it for others.
    assume(not (a.dtype.kind == "c" and scalar is True))
    assume(not (symbol == "**" and not left and complex_zero_base(symbol, a)))
    # `bool_tensor / np.float64(2.5)`: TensorFlow's TypeError makes Python try NumPy's reflected operator instead.
    assume(not (a.dtype.kind == "b" and symbol == "/" and isinstance(scalar, np.generic)))
    same(scalar_left if left else scalar_right, symbol, a, scalar)


@pytest.mark.parametrize("symbol", ["+", "*", "-", "/"])
@examples
@given(a=arrays(st.sampled_from(NUMERIC), (3,), small=True), b=arrays(st.sampled_from(NUMERIC), (3,), small=True))
def test_numpy_array_operand_is_converted_to_the_tensors_dtype(symbol: str, a: np.ndarray, b: np.ndarray) -> None:
    assume(not complex_zero_divisor(symbol, b.astype(a.dtype) if a.dtype.kind == "c" else b))
    same(scalar_right, symbol, a, b)


@named_examples(
    ("int_plus_2", lambda tf: tf.constant([1, 2]) + 2),
    ("two_minus_int", lambda tf: 2 - tf.constant([1, 2])),
    ("float_plus_2", lambda tf: tf.constant([1.0, 2.0]) + 2),
    ("float_plus_float64_ndarray", lambda tf: tf.constant([1.0, 2.0]) + np.array([0.5, 0.25])),
    ("int_plus_1_5", lambda tf: tf.constant([1, 2]) + 1.5),
    ("one_five_plus_int", lambda tf: 1.5 + tf.constant([1, 2])),
    ("int8_plus_300", lambda tf: tf.constant([1, 2], dtype=tf.int8) + 300),
    ("int_eq_none", lambda tf: tf.constant([1, 2]) == None),  # noqa: E711
    ("int_ne_none", lambda tf: tf.constant([1, 2]) != None),  # noqa: E711
    ("eq_incompatible_shapes", lambda tf: tf.constant([1, 2, 3]) == tf.constant([1, 2])),
    ("ne_incompatible_shapes", lambda tf: tf.constant([1, 2, 3]) != tf.constant([1, 2])),
    ("int_div_int", lambda tf: tf.constant([7, -7]) / tf.constant([2, 2])),
    ("int_div_float", lambda tf: tf.constant([7]) / tf.constant([2.0])),
    ("divide_python_ints", lambda tf: tf.divide(7, 2)),
    ("floordiv_signs", lambda tf: tf.constant([7, -7]) // 2),
    ("mod_signs", lambda tf: tf.constant([7, -7, 7]) % tf.constant([2, 2, -2])),
    ("float_mod_signs", lambda tf: tf.constant([7.5, -7.5, 7.5]) % tf.constant([2.0, 2.0, -2.0])),
    ("truncatediv", lambda tf: tf.truncatediv(-7, 2)),
    ("truncatemod", lambda tf: tf.truncatemod(-7, 2)),
    ("int_floordiv_zero", lambda tf: tf.constant([1, 2]) // 0),
    ("int_mod_zero", lambda tf: tf.constant([1, 2]) % 0),
    ("float_div_zero", lambda tf: tf.constant([1.0, -1.0, 0.0]) / 0.0),
    (
        "int_pow_negative",
        only(
            (EAGER, TAPE),
            "inside a function TensorFlow's graph optimizer folds this constant "
            "power and reports its failure as NotFoundError, where eager execution says "
            "InvalidArgumentError",
        )(lambda tf: tf.constant([2, 3]) ** -1),
    ),
    ("int32_overflow_wraps", lambda tf: tf.constant([2**31 - 1]) + 1),
    ("round_half_to_even", lambda tf: tf.round([0.5, 1.5, 2.5, -0.5, -1.5])),
    ("log_negative_is_nan", lambda tf: tf.math.log([-1.0, 0.0])),
    ("sqrt_negative_is_nan", lambda tf: tf.sqrt(-1.0)),
    ("exp_rejects_int", lambda tf: tf.exp(tf.constant([1, 2]))),
    ("relu_accepts_int", lambda tf: tf.nn.relu(tf.constant([-1, 2]))),
    ("sigmoid_rejects_int", lambda tf: tf.sigmoid(tf.constant([1]))),
    ("incompatible_shapes", lambda tf: tf.constant([1, 2, 3]) * tf.constant([1, 2, 3, 4])),
    ("broadcast_3x1_by_4", lambda tf: tf.ones([3, 1]) * tf.ones([4])),
    ("clip_by_value", lambda tf: tf.clip_by_value(tf.constant([-2.0, 0.5, 3.0]), 0.0, 1.0)),
    ("clip_by_value_int", lambda tf: tf.clip_by_value(tf.constant([-2, 0, 3]), 0, 1)),
    ("clip_by_value_tensor_bounds", lambda tf: tf.clip_by_value(tf.constant([[-2.0, 0.5]]), [0.0, 0.0], [1.0, 0.2])),
    ("abs_complex_is_real", lambda tf: tf.abs(tf.constant([3 + 4j]))),
    ("string_add", lambda tf: tf.constant(["a", "b"]) + tf.constant("c")),
    ("string_add_scalars", lambda tf: tf.constant("a") + tf.constant("c")),
    ("string_equal", lambda tf: tf.constant(["a", "b"]) == "a"),
    ("bool_and", lambda tf: tf.constant([True, False]) & True),
    ("bool_invert", lambda tf: ~tf.constant([True, False])),
    ("int_and_raises", lambda tf: tf.constant([1]) & tf.constant([1])),
    ("unary_minus_uint8", lambda tf: -tf.constant([1], dtype=tf.uint8)),
    ("scalar_mul", lambda tf: tf.math.scalar_mul(2.0, tf.constant([1.0, 2.0]))),
    ("add_n", lambda tf: tf.math.add_n([tf.constant([1, 2]), tf.constant([3, 4]), tf.constant([5, 6])])),
    ("reversed_pow", lambda tf: 2.0 ** tf.constant([1.0, 3.0])),
    ("matmul_operator_vector", lambda tf: tf.constant([1.0, 2.0]) @ tf.constant([1.0, 2.0])),
)
def test_python_operator_rules_match_tensorflow(case: Any) -> None:
    same(case)


@pytest.mark.parametrize("dtype", FLOATS)
@examples
@given(data=st.data())
def test_where_with_three_arguments_broadcasts(dtype: str, data: st.DataObject) -> None:
    cond, x = data.draw(broadcast_pair("bool", dtype))
    y = data.draw(arrays(dtype, st.sampled_from([(), (1,), x.shape[-1:]])))

    def case(tf: Any) -> Any:
        return tf.where(tf.constant(cond), tf.constant(x), tf.constant(y))

    same(case)


@examples
@given(a=arrays(st.sampled_from(ALL), small=True))
def test_where_with_one_argument_gives_coordinates(a: np.ndarray) -> None:
    same(lambda tf: tf.where(tf.constant(a)))


@named_examples(
    ("mixed_dtypes", lambda tf: tf.where([True, False], 1, 0.0)),
    ("int_condition", lambda tf: tf.where(tf.constant([1, 0]), 1, 2)),
    ("python_lists", lambda tf: tf.where([True, False], [1, 2], [3, 4])),
    ("only_x", lambda tf: tf.where([True], x=[1])),
)
def test_where_errors_match_tensorflow(case: Any) -> None:
    same(case)
