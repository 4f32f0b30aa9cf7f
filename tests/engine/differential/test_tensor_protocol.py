"""What a tensor is in Python: printing, slicing, iteration, bool/len/hash, TensorShape, NumPy interop."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import examples, named_examples, same
from hypothesis import given
from hypothesis import strategies as st
from strategies import ALL, arrays, shapes


@examples
@given(a=arrays(st.sampled_from(ALL), shapes(max_dims=3, max_side=5)))
def test_str_and_repr_print_like_tensorflow(a: np.ndarray) -> None:
    same(lambda tf: (str(tf.constant(a)), repr(tf.constant(a)), tf.constant(a).numpy(), np.array(tf.constant(a))))


# (-0.0 as a NumPy array: TensorFlow caches Python scalar constants, so a plain -0.0 may print as a cached 0.0.)
@pytest.mark.parametrize(
    "value",
    [
        0.1,
        1e-8,
        1e8,
        123456789.0,
        [0.1, 1e10],
        [[1.5, 2.25], [3.0, 4.125]],
        np.arange(2000, dtype=np.float32),
        np.ones((3, 40)),
        np.arange(7 * 8 * 9).reshape(7, 8, 9),
        ["a", "bc"],
        "x",
        b"\x00",
        [[True]],
        np.array(-0.0),
        np.float16(0.1),
        np.array([1 + 2j, -0.5j]),
        np.array(1.0, dtype=np.float64),
        np.array([np.nan, np.inf]),
    ],
    ids=repr,
)
def test_printing_special_values_like_tensorflow(value: Any) -> None:
    same(lambda tf: (str(tf.constant(value)), repr(tf.constant(value))))


@st.composite
def index_keys(draw: Any, rank: int) -> Any:
    """A basic-indexing key: ints (sometimes out of range), slices with any step, newaxis and ellipsis."""

    def one() -> Any:
        kind = draw(st.integers(0, 4))
        if kind == 0:
            return draw(st.integers(-5, 4))
        if kind == 1:
            step = draw(st.sampled_from([None, 1, 2, -1, -2, 3]))
            return slice(
                draw(st.one_of(st.none(), st.integers(-6, 6))), draw(st.one_of(st.none(), st.integers(-6, 6))), step
            )
        if kind == 2:
            return None
        if kind == 3:
            return Ellipsis
        return slice(None)

    items = draw(st.lists(st.builds(lambda _: one(), st.just(0)), min_size=1, max_size=rank + 1))
    if items.count(Ellipsis) > 1:
        first = items.index(Ellipsis)
        items = [it for i, it in enumerate(items) if it is not Ellipsis or i == first]
    return tuple(items) if len(items) > 1 or draw(st.booleans()) else items[0]


@examples
@given(data=st.data())
def test_slicing_matches_tensorflow(data: st.DataObject) -> None:
    a = data.draw(arrays(st.sampled_from(ALL), shapes(min_dims=0, max_dims=3, min_side=0, max_side=4), small=True))
    key = data.draw(index_keys(a.ndim))
    same(lambda tf: tf.constant(a)[key])


@examples
@given(a=arrays(st.sampled_from(ALL), shapes(min_dims=1, max_dims=2), small=True), data=st.data())
def test_boolean_mask_indexing_matches_tensorflow(a: np.ndarray, data: st.DataObject) -> None:
    mask = data.draw(arrays("bool", st.sampled_from([a.shape[:1], a.shape])))
    same(lambda tf: tf.constant(a)[tf.constant(mask)])


@examples
@given(a=arrays(st.sampled_from(ALL), shapes(min_dims=0, max_dims=3), small=True))
def test_iteration_and_python_protocols_match_tensorflow(a: np.ndarray) -> None:
    def iterate(tf: Any) -> Any:
        return list(tf.constant(a))

    def length(tf: Any) -> Any:
        return len(tf.constant(a))

    def truth(tf: Any) -> Any:
        return bool(tf.constant(a))

    def number(tf: Any) -> Any:
        t = tf.constant(a)
        return float(t) if a.dtype.kind != "c" else complex(t)

    def shape_info(tf: Any) -> Any:
        t = tf.constant(a)
        return (
            t.shape,
            t.ndim,
            t.shape.rank,
            t.shape.as_list(),
            len(t.shape),
            t.dtype,
            t.get_shape(),
            t.shape == list(a.shape),
            t.shape == tuple(a.shape),
            str(t.shape),
            repr(t.shape),
        )

    for case in (iterate, length, truth, number, shape_info):
        same(case)


@named_examples(
    ("item_assignment", lambda tf: tf.constant([1, 2]).__setitem__(0, 5)),
    ("tensor_has_no_assign", lambda tf: tf.constant([1, 2]).assign([3, 4])),
    ("hash", lambda tf: hash(tf.constant(1))),
    ("set_of_tensors", lambda tf: {tf.constant(1)}),
    ("ref_is_hashable", lambda tf: len({tf.constant(1).ref(), tf.constant(1).ref()})),
    ("len_of_scalar", lambda tf: len(tf.constant(1))),
    ("bool_of_vector", lambda tf: bool(tf.constant([1, 2]))),
    ("bool_of_scalar", lambda tf: bool(tf.constant(0.0))),
    ("bool_of_one_element", lambda tf: bool(tf.constant([3]))),
    ("iterate_scalar", lambda tf: list(tf.constant(1))),
    ("int_of_vector", lambda tf: int(tf.constant([1, 2]))),
    ("index_with_tensor", lambda tf: tf.constant([1, 2, 3])[tf.constant(1)]),
    ("index_out_of_range", lambda tf: tf.constant([1, 2, 3])[5]),
    ("negative_index_out_of_range", lambda tf: tf.constant([1, 2, 3])[-4]),
    ("slice_out_of_range_clamps", lambda tf: tf.constant([1, 2, 3])[1:10]),
    ("too_many_indices", lambda tf: tf.constant([1, 2, 3])[0, 0]),
    ("list_index_raises", lambda tf: tf.constant([1, 2, 3])[[0, 2]]),
    ("float_index_raises", lambda tf: tf.constant([1, 2, 3])[1.0]),
    ("newaxis_and_ellipsis", lambda tf: tf.reshape(tf.range(24), [2, 3, 4])[..., tf.newaxis, ::-2]),
    ("reverse_slice", lambda tf: tf.constant([1, 2, 3, 4])[::-1]),
    ("zero_step", lambda tf: tf.constant([1, 2, 3])[::0]),
    ("numpy_scalar_type", lambda tf: type(tf.constant(1.5).numpy()).__name__),
    ("numpy_int_type", lambda tf: type(tf.constant(1).numpy()).__name__),
    ("numpy_string", lambda tf: tf.constant("ab").numpy()),
    ("numpy_string_array", lambda tf: tf.constant(["ab", "c"]).numpy()),
    ("np_array_of_tensor", lambda tf: np.array(tf.constant([1.0, 2.0]))),
    ("np_function_on_tensor", lambda tf: np.sum(tf.constant([1.0, 2.0]))),
    ("np_array_plus_tensor", lambda tf: np.array([1.0, 2.0], dtype=np.float32) + tf.constant([1.0, 2.0])),
    ("format_scalar", lambda tf: f"{tf.constant(1.5):.2f}"),
    ("eq_none", lambda tf: tf.constant(1) == None),  # noqa: E711
    ("in_list", lambda tf: tf.constant(1) in [tf.constant(1)]),
    ("shape_index", lambda tf: tf.ones([2, 3]).shape[1]),
    ("shape_slice", lambda tf: tf.ones([2, 3, 4]).shape[1:]),
    ("shape_negative_index", lambda tf: tf.ones([2, 3]).shape[-1]),
    ("shape_equals_list", lambda tf: tf.ones([2, 3]).shape == [2, 3]),
    ("shape_not_equals", lambda tf: tf.ones([2, 3]).shape != (3, 2)),
    ("shape_num_elements", lambda tf: tf.ones([2, 3]).shape.num_elements()),
    ("shape_is_fully_defined", lambda tf: tf.ones([2, 3]).shape.is_fully_defined()),
    ("shape_concatenate", lambda tf: tf.ones([2]).shape + tf.ones([3]).shape),
    ("shape_iter", lambda tf: list(tf.ones([2, 3]).shape)),
    ("scalar_shape", lambda tf: (str(tf.constant(1).shape), repr(tf.constant(1).shape))),
    (
        "tensor_shape_constructor",
        lambda tf: (
            tf.TensorShape([2, None]),
            str(tf.TensorShape([2, None])),
            tf.TensorShape(None).rank,
            tf.TensorShape([2, None]).is_fully_defined(),
            tf.TensorShape([2, None]).is_compatible_with([2, 5]),
        ),
    ),
    ("tensor_shape_as_list_unknown", lambda tf: tf.TensorShape(None).as_list()),
    ("is_tensor_instance", lambda tf: isinstance(tf.constant(1), tf.Tensor)),
    ("device", lambda tf: tf.constant(1).device),
    ("eager_name", lambda tf: tf.constant(1).name),
    ("executing_eagerly", lambda tf: tf.executing_eagerly()),
    ("abs_builtin", lambda tf: abs(tf.constant([-1, 2]))),
    ("neg_builtin", lambda tf: -tf.constant([1.0, -2.0])),
)
def test_tensor_protocol_rules_match_tensorflow(case: Any) -> None:
    same(case)


dims = st.lists(st.one_of(st.none(), st.integers(0, 4)), max_size=3)
maybe_unknown = st.one_of(st.none(), dims)


@examples
@given(first=maybe_unknown, second=maybe_unknown, index=st.integers(-4, 3))
def test_tensor_shape_matches_tensorflow(first: Any, second: Any, index: int) -> None:
    def case(tf: Any) -> Any:
        a, b = tf.TensorShape(first), tf.TensorShape(second)
        results = []
        for compute in (
            lambda: (a.rank, a.ndims, str(a), repr(a), a.is_fully_defined(), a.num_elements()),
            lambda: a.as_list(),
            lambda: a.dims is None,
            lambda: len(a),
            lambda: list(a),
            lambda: a[index],
            lambda: a[1:],
            lambda: a == b,
            lambda: a != b,
            lambda: a.is_compatible_with(b),
            lambda: a.merge_with(b),
            lambda: a.concatenate(b),
            lambda: a + b,
            lambda: bool(a),
            lambda: a.most_specific_compatible_shape(b),
            lambda: a == first,
            lambda: a == tuple(first or ()),
        ):
            try:
                results.append(compute())
            except Exception as exc:  # the error class is part of what is compared
                results.append(type(exc).__name__)
        return results

    same(case)
