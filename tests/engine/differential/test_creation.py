"""Creating tensors: dtype inference of tf.constant, conversions, zeros/ones/fill/range/linspace/eye, cast."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import examples, named_examples, same
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import ALL, FLOATS, INTS, arrays, elements, shapes

VALUES = [
    1,
    1.0,
    [1, 2.0],
    True,
    2**31,
    -(2**31),
    2**31 - 1,
    2**63 - 1,
    np.float64(1),
    np.array([1.0, 2.0]),
    np.array([1, 2]),
    np.int16(3),
    1 + 2j,
    [],
    [[]],
    "a",
    b"a",
    ["a", "b"],
    [True, False],
    [[1, 2], [3, 4]],
    [[1], [1, 2]],
    [1, "a"],
    [1, None],
    None,
    np.float32(2.5),
    [np.float32(1), np.float32(2)],
    (1, 2),
    [2**40, 1],
    np.array(3.0),
    np.array([], dtype=np.int8),
    [1.5, True],
    [[1.0, 2], [3, 4.0]],
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_constant_infers_the_dtype_tensorflow_infers(value: Any) -> None:
    same(lambda tf: tf.constant(value))


@pytest.mark.parametrize(
    "value",
    [
        1,
        1.5,
        True,
        -1,
        300,
        1 + 2j,
        [1, 2],
        [1.5, 2.0],
        np.array([1.5, -2.7]),
        np.array([300, -129]),
        "a",
        [],
        [[], []],
    ],
    ids=repr,
)
@pytest.mark.parametrize("dtype", ALL + ["string"])
def test_constant_with_dtype_converts_like_tensorflow(value: Any, dtype: str) -> None:
    same(lambda tf: tf.constant(value, dtype=getattr(tf, dtype)))


@named_examples(
    ("convert_tensor_other_dtype", lambda tf: tf.convert_to_tensor(tf.constant([1]), dtype=tf.float32)),
    ("convert_tensor_same_dtype", lambda tf: tf.convert_to_tensor(tf.constant([1]), dtype=tf.int32)),
    ("convert_list", lambda tf: tf.convert_to_tensor([1, 2])),
    ("convert_dtype_hint", lambda tf: tf.convert_to_tensor([1, 2], dtype_hint=tf.float32)),
    ("convert_dtype_hint_impossible", lambda tf: tf.convert_to_tensor([1.5], dtype_hint=tf.int32)),
    ("constant_shape_fill", lambda tf: tf.constant(7, shape=[2, 3])),
    ("constant_shape_reshape", lambda tf: tf.constant([1, 2, 3, 4], shape=[2, 2])),
    ("constant_shape_mismatch", lambda tf: tf.constant([1, 2, 3], shape=[2, 2])),
    ("constant_of_tensor", lambda tf: tf.constant(tf.constant([1, 2]))),
    ("constant_of_tensor_with_dtype", lambda tf: tf.constant(tf.constant([1, 2]), dtype=tf.float32)),
    ("zeros_default_float32", lambda tf: tf.zeros([2, 3])),
    ("zeros_int", lambda tf: tf.zeros([2], dtype=tf.int64)),
    ("zeros_scalar_shape", lambda tf: tf.zeros([])),
    ("zeros_negative", lambda tf: tf.zeros([-1])),
    ("ones_bool", lambda tf: tf.ones([2], tf.bool)),
    ("ones_string", lambda tf: tf.ones([2], tf.string)),
    ("zeros_string", lambda tf: tf.zeros([2], tf.string)),
    ("ones_tensor_shape", lambda tf: tf.ones(tf.constant([2, 1]))),
    ("zeros_like_keeps_dtype", lambda tf: tf.zeros_like(tf.constant([1, 2], tf.int8))),
    ("ones_like_with_dtype", lambda tf: tf.ones_like(tf.constant([1, 2]), dtype=tf.float64)),
    ("zeros_like_list", lambda tf: tf.zeros_like([1.0, 2.0])),
    ("fill_int", lambda tf: tf.fill([2, 2], 7)),
    ("fill_float", lambda tf: tf.fill([2], 1.5)),
    ("fill_negative_dims", lambda tf: tf.fill([-2], 1)),
    ("fill_tensor_value", lambda tf: tf.fill([3], tf.constant(2, tf.int8))),
    ("range_int", lambda tf: tf.range(5)),
    ("range_float", lambda tf: tf.range(5.0)),
    ("range_float_step", lambda tf: tf.range(1, 2, 0.5)),
    ("range_negative_step", lambda tf: tf.range(5, 0, -2)),
    ("range_dtype", lambda tf: tf.range(3, dtype=tf.float64)),
    ("range_zero_step", lambda tf: tf.range(0, 5, 0)),
    ("range_wrong_direction", lambda tf: tf.range(5, 0, 1)),
    ("range_empty", lambda tf: tf.range(0)),
    ("range_int64_limit", lambda tf: tf.range(tf.constant(4, tf.int64))),
    ("linspace_float32", lambda tf: tf.linspace(0.0, 1.0, 5)),
    ("linspace_ints_give_float64", lambda tf: tf.linspace(0, 10, 5)),
    ("linspace_num_1", lambda tf: tf.linspace(2.0, 3.0, 1)),
    ("linspace_float64", lambda tf: tf.linspace(tf.constant(0.0, tf.float64), 1.0, 3)),
    ("eye", lambda tf: tf.eye(3)),
    ("eye_rectangular", lambda tf: tf.eye(2, 3, dtype=tf.int32)),
    ("eye_batch", lambda tf: tf.eye(2, batch_shape=[2])),
    ("linalg_eye", lambda tf: tf.linalg.eye(2)),
    ("identity_of_list", lambda tf: tf.identity([1, 2])),
    ("cast_truncates", lambda tf: tf.cast(tf.constant([1.7, -1.7, 2.5, -2.5]), tf.int32)),
    ("cast_wraps", lambda tf: tf.cast(tf.constant([200, 300, -129]), tf.int8)),
    ("cast_float_to_bool", lambda tf: tf.cast(tf.constant([0.0, 0.5, -2.0]), tf.bool)),
    ("cast_bool_to_float", lambda tf: tf.cast(tf.constant([True, False]), tf.float32)),
    ("cast_complex_to_float", lambda tf: tf.cast(tf.constant([1 + 2j]), tf.float32)),
    ("cast_python_list", lambda tf: tf.cast([1, 2], tf.float16)),
    ("cast_string_raises", lambda tf: tf.cast(tf.constant(["1"]), tf.int32)),
    ("cast_to_string_raises", lambda tf: tf.cast(tf.constant([1]), tf.string)),
    ("saturate_cast", lambda tf: tf.saturate_cast(tf.constant([300.0, -300.0]), tf.int8)),
    ("as_dtype_name", lambda tf: tf.as_dtype("float32")),
    ("as_dtype_numpy", lambda tf: tf.as_dtype(np.int16)),
    ("as_dtype_bad", lambda tf: tf.as_dtype("floaty")),
    ("dtypes_namespace", lambda tf: tf.dtypes.float64),
    (
        "dtype_properties",
        lambda tf: (
            tf.float32.is_floating,
            tf.int8.is_integer,
            tf.uint8.is_unsigned,
            tf.complex64.is_complex,
            tf.bool.is_bool,
            tf.float16.size,
            tf.int8.max,
            tf.uint8.min,
            tf.float32.as_numpy_dtype is np.float32,
            tf.float32.name,
            repr(tf.float32),
            str(tf.int64),
            tf.float32 == "float32",
            tf.float32 == tf.int32,
            tf.complex64.real_dtype,
            tf.half is tf.float16,
            tf.double is tf.float64,
        ),
    ),
)
def test_creation_rules_match_tensorflow(case: Any) -> None:
    same(case)


@pytest.mark.parametrize("target", ALL)
@examples
@given(a=arrays(st.sampled_from(ALL), small=True))
def test_cast_matches_tensorflow(target: str, a: np.ndarray) -> None:
    # Out-of-range float -> int casts (nan, inf, -1 -> uint8, overflow) are undefined in C++: not compared.
    if a.dtype.kind in "fc" and np.dtype(target).kind in "iu":
        real = np.real(a)
        info = np.iinfo(target)
        assume(bool(np.all(np.isfinite(real) & (real > info.min - 1) & (real < info.max + 1))))
    same(lambda tf: tf.cast(tf.constant(a), getattr(tf, target)))


@examples
@given(shape=st.lists(st.integers(0, 3), max_size=3), dtype=st.sampled_from(ALL), value=st.integers(-3, 3))
def test_fill_zeros_ones_match_tensorflow(shape: list[int], dtype: str, value: int) -> None:
    same(
        lambda tf: (
            tf.zeros(shape, getattr(tf, dtype)),
            tf.ones(shape, getattr(tf, dtype)),
            tf.fill(shape, tf.cast(value, getattr(tf, dtype))),
        )
    )


@examples
@given(
    start=st.integers(-5, 5),
    limit=st.integers(-5, 5),
    delta=st.sampled_from([1, 2, -1, -3, 0.5, -1.5]),
    dtype=st.sampled_from([None, "int32", "int64", "float32", "float64"]),
)
def test_range_matches_tensorflow(start: int, limit: int, delta: Any, dtype: Any) -> None:
    same(lambda tf: tf.range(start, limit, delta, dtype=None if dtype is None else getattr(tf, dtype)))


@examples
@given(
    start=elements("float32", finite=True, small=True),
    stop=elements("float32", finite=True, small=True),
    num=st.integers(1, 6),
    dtype=st.sampled_from(FLOATS[1:] + INTS[2:4]),
)
def test_linspace_matches_tensorflow(start: float, stop: float, num: int, dtype: str) -> None:
    same(lambda tf: tf.linspace(tf.cast(start, getattr(tf, dtype)), tf.cast(stop, getattr(tf, dtype)), num), rtol=1e-4)


python_scalars = st.one_of(
    st.integers(-(2**40), 2**40), st.floats(-1e3, 1e3, allow_nan=False), st.booleans(), st.integers(-3, 3)
)


@st.composite
def nested_lists(draw: Any) -> Any:
    """Rectangular (and now and then ragged) nested Python lists of mixed ints, floats and bools."""
    shape = draw(shapes(max_dims=3, max_side=3))
    kinds = draw(st.sampled_from(["int", "float", "bool", "mixed", "small"]))
    leaf = {
        "int": st.integers(-(2**40), 2**40),
        "float": st.floats(-1e3, 1e3, allow_nan=False),
        "bool": st.booleans(),
        "mixed": python_scalars,
        "small": st.integers(-3, 3),
    }[kinds]

    def build(dims: tuple) -> Any:
        if not dims:
            return draw(leaf)
        return [build(dims[1:]) for _ in range(dims[0])]

    value = build(tuple(shape))
    # Ragged now and then (TensorFlow accepts `[[], [0, 0]]` as shape (2, 0), a quirk not worth copying).
    if isinstance(value, list) and 0 not in shape and draw(st.integers(0, 9)) == 0:
        value = value + [[draw(leaf)] * 5]
    return value


@examples
@given(value=nested_lists())
def test_constant_infers_dtype_of_nested_lists_like_tensorflow(value: Any) -> None:
    same(lambda tf: tf.constant(value))


STRING_CASES = {
    "equal": lambda tf, a, b: tf.equal(a, b),
    "add": lambda tf, a, b: a + b,
    "concat": lambda tf, a, b: tf.concat([tf.reshape(a, [-1]), tf.reshape(b, [-1])], 0),
    "stack": lambda tf, a, b: tf.stack([a, a]),
    "reverse": lambda tf, a, b: tf.reverse(a, [0]) if a.shape.rank else a,
    "gather": lambda tf, a, b: tf.gather(tf.reshape(a, [-1]), [0]),
    "tile": lambda tf, a, b: tf.tile(tf.reshape(a, [-1]), [2]),
    "where": lambda tf, a, b: tf.where(tf.equal(a, a), a, b),
    "slice": lambda tf, a, b: tf.reshape(a, [-1])[::-1],
    "identity": lambda tf, a, b: tf.identity(a),
    "size": lambda tf, a, b: tf.size(a),
    "less_raises": lambda tf, a, b: a < b,
    "reduce_sum_raises": lambda tf, a, b: tf.reduce_sum(a),
    "multiply_raises": lambda tf, a, b: a * b,
    "print": lambda tf, a, b: (str(a), repr(a), a.numpy()),
}


@pytest.mark.parametrize("name", list(STRING_CASES))
@examples
@given(
    shape=shapes(min_dims=1, max_dims=2, min_side=1, max_side=3),
    texts=st.lists(st.text("abc xyz", max_size=3), min_size=9, max_size=9),
)
def test_string_tensors_match_tensorflow(name: str, shape: tuple, texts: list[str]) -> None:
    size = int(np.prod(shape))
    a = np.array(texts[:size], dtype=object).reshape(shape)
    b = np.array(texts[-size:], dtype=object).reshape(shape)
    same(lambda tf: STRING_CASES[name](tf, tf.constant(a), tf.constant(b)))
