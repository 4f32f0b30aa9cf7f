"""Every registered op's shape rule agrees with what its kernel really produces.

The tracer builds graphs from shape rules alone (it never runs a kernel to learn a shape), so a wrong rule
means a traced function whose tensors claim shapes or dtypes their values do not have. For every op in
`minitf.core.op.REGISTRY`, `INPUTS` below generates inputs (NumPy values and attrs, with broadcasting and the
usual attrs); the test runs the kernel and checks the rule against the output:

* with the inputs' exact shapes (and, for value-dependent ops, the constant inputs' values) the rule gives
  exactly the output's shape and dtype;
* with partially known shapes (some dimensions None, or the rank unknown) and no values, the rule's shape is
  compatible with the output's, and the dtype is the same.

When you add an op, add a generator for it to `INPUTS`: `test_every_registered_op_has_generated_inputs`
fails until you do. The easiest is an entry in `PUBLIC_CALLS`: a call of the public function (eager, under a
tape for gradient ops, or through `tf.function` where the eager path does not bind the op); `captured` records
the inputs and attrs of the op's first kernel call, so the case is exactly what the public function binds.
Ops whose output sizes depend on the data go in `DATA_DEPENDENT` (the rule must then be compatible, not equal).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitf as tf
from minitf.core import dtypes
from minitf.core.errors import OpError
from minitf.core.op import REGISTRY, Op
from minitf.core.tensor_shape import TensorShape

rules = settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

Case = tuple[list[Any], dict]  # the op's inputs (NumPy values) and its attrs
Draw = Callable[..., Any]


# ---------------------------------------------------------------------------------------------------
# Small strategies
# ---------------------------------------------------------------------------------------------------


def shape(min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 3) -> st.SearchStrategy:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def values(dtype: str, dims: Any) -> st.SearchStrategy:
    kind = np.dtype(dtype).kind
    if kind == "b":
        elements: st.SearchStrategy = st.booleans()
    elif kind in "iu":
        elements = st.integers(1, 5)
    elif kind == "c":
        elements = st.complex_numbers(min_magnitude=0.5, max_magnitude=3, allow_nan=False, allow_infinity=False)
    else:
        elements = st.floats(0.25, 3.0, width=32)
    return hnp.arrays(np.dtype(dtype), dims, elements=elements)


def one(dtype: str, min_dims: int = 0, **shape_options: Any) -> Callable[[Draw], np.ndarray]:
    return lambda draw: draw(values(dtype, shape(min_dims=min_dims, **shape_options)))


@st.composite
def unary(draw: Draw, dtype: str = "float32", **attrs: Any) -> Case:
    return [draw(values(dtype, shape()))], dict(attrs)


@st.composite
def broadcasting(draw: Draw, dtypes_: tuple[str, ...] = ("float32", "float32"), **attrs: Any) -> Case:
    dims = draw(hnp.mutually_broadcastable_shapes(num_shapes=len(dtypes_), max_dims=3, max_side=3)).input_shapes
    return [draw(values(d, s)) for d, s in zip(dtypes_, dims)], dict(attrs)


@st.composite
def same_shape_pair(draw: Draw, **attrs: Any) -> Case:
    dims = draw(shape())
    return [draw(values("float32", dims)), draw(values("float32", dims))], dict(attrs)


def axis_of(draw: Draw, rank: int) -> int:
    return draw(st.integers(0, rank - 1))


@st.composite
def reduction(draw: Draw, dtype: str = "float32") -> Case:
    x = draw(values(dtype, shape()))
    axes = (
        None
        if draw(st.booleans()) or x.ndim == 0
        else tuple(sorted(draw(st.sets(st.integers(0, x.ndim - 1), min_size=1))))
    )
    return [x], {"axis": axes, "keepdims": draw(st.booleans())}


@st.composite
def keep_dims(draw: Draw) -> Case:
    [like], attrs = draw(reduction())
    reduced = np.sum(like, axis=attrs["axis"])
    return [np.asarray(reduced), like], {"axis": attrs["axis"]}


@st.composite
def arg_reduction(draw: Draw) -> Case:
    x = draw(values("float32", shape(min_dims=1, min_side=1)))
    return [x], {"axis": axis_of(draw, x.ndim), "output_type": draw(st.sampled_from([dtypes.int32, dtypes.int64]))}


@st.composite
def cumulative(draw: Draw) -> Case:
    x = draw(values("float32", shape(min_dims=1)))
    return [x], {"axis": axis_of(draw, x.ndim), "exclusive": draw(st.booleans()), "reverse": draw(st.booleans())}


@st.composite
def sum_to_shape(draw: Draw) -> Case:
    [a, b], _ = draw(broadcasting())
    return [a + b, b], {}


@st.composite
def select(draw: Draw) -> Case:
    return draw(broadcasting(("bool", "float32", "float32")))


@st.composite
def cast(draw: Draw) -> Case:
    [x], _ = draw(unary("float32"))
    return [x], {"DstT": draw(st.sampled_from([dtypes.int32, dtypes.float64, dtypes.bool, dtypes.complex64]))}


# --- creation and shape queries ---


@st.composite
def fill(draw: Draw) -> Case:
    return [np.asarray(draw(shape()), dtype=np.int32), np.float32(2.0)], {}


@st.composite
def arange(draw: Draw) -> Case:
    dtype = draw(st.sampled_from(["int32", "float32"]))
    start, size = draw(st.integers(-5, 5)), draw(st.integers(0, 6))
    delta = draw(st.sampled_from([1, 2, 3, -1, -2] if dtype == "int32" else [0.5, 1.5, -0.75]))
    limit = start + size * delta - (0.25 * delta if dtype == "float32" else 0)
    return [np.asarray(v, dtype=dtype)[()] for v in (start, limit, delta)], {}


@st.composite
def linspace(draw: Draw) -> Case:
    return [np.float32(0), np.float32(draw(st.integers(-3, 3))), np.int32(draw(st.integers(1, 5)))], {}


@st.composite
def query(draw: Draw) -> Case:
    [x], _ = draw(unary())
    return [x], {"out_type": draw(st.sampled_from([dtypes.int32, dtypes.int64]))}


# --- reshaping ---


@st.composite
def reshape(draw: Draw) -> Case:
    x = draw(values("float32", shape(min_side=1)))
    dims = [int(np.prod(x.shape[:1])), int(np.prod(x.shape[1:]))]
    if draw(st.booleans()):
        dims[draw(st.integers(0, 1))] = -1
    return [x], {"shape": tuple(dims)}


@st.composite
def reshape_like(draw: Draw) -> Case:
    x = draw(values("float32", shape()))
    return [x, np.zeros(x.size, np.float32)], {}


@st.composite
def expand_dims(draw: Draw) -> Case:
    x = draw(values("float32", shape()))
    return [x], {"axis": draw(st.integers(0, x.ndim))}


@st.composite
def squeeze(draw: Draw) -> Case:
    x = draw(values("float32", shape(max_side=2)))
    ones = [i for i, d in enumerate(x.shape) if d == 1]
    axes = tuple(sorted(draw(st.sets(st.sampled_from(ones))))) if ones and draw(st.booleans()) else None
    return [x], {"axis": axes}


@st.composite
def transpose(draw: Draw) -> Case:
    x = draw(values("float32", shape()))
    return [x], {"perm": tuple(draw(st.permutations(range(x.ndim))))}


@st.composite
def broadcast_to(draw: Draw) -> Case:
    [a, b], _ = draw(broadcasting())
    return [a], {"shape": np.broadcast_shapes(a.shape, b.shape)}


@st.composite
def tile(draw: Draw) -> Case:
    x = draw(values("float32", shape()))
    return [x], {"multiples": tuple(draw(st.lists(st.integers(0, 3), min_size=x.ndim, max_size=x.ndim)))}


@st.composite
def tile_grad(draw: Draw) -> Case:
    [x], attrs = draw(tile())
    return [np.tile(x, attrs["multiples"]), x], attrs


@st.composite
def pad(draw: Draw) -> Case:
    x = draw(values("float32", shape(min_dims=1, min_side=3)))
    mode = draw(st.sampled_from(["CONSTANT", "REFLECT", "SYMMETRIC"]))
    paddings = tuple(tuple(draw(st.lists(st.integers(0, 2), min_size=2, max_size=2))) for _ in range(x.ndim))
    return [x], {"paddings": paddings, "mode": mode, "constant_values": np.float32(0)}


@st.composite
def pad_grad(draw: Draw) -> Case:
    [x], attrs = draw(pad())
    padded = np.pad(x, attrs["paddings"])
    return [padded, x], {"paddings": attrs["paddings"], "mode": attrs["mode"]}


# --- joining and splitting ---


@st.composite
def joined(draw: Draw, same: bool = False) -> Case:
    dims = list(draw(shape(min_dims=1)))
    axis = axis_of(draw, len(dims))
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        this = list(dims)
        if not same:
            this[axis] = draw(st.integers(0, 3))
        parts.append(draw(values("float32", tuple(this))))
    return parts, {"axis": axis if not same else draw(st.integers(0, len(dims)))}


@st.composite
def split_like(draw: Draw) -> Case:
    parts, attrs = draw(joined())
    return [np.concatenate(parts, attrs["axis"]), *parts], attrs


@st.composite
def unpack(draw: Draw) -> Case:
    x = draw(values("float32", shape(min_dims=1)))
    axis = axis_of(draw, x.ndim)
    return [x], {"axis": axis, "num": x.shape[axis]}


@st.composite
def split(draw: Draw) -> Case:
    parts, attrs = draw(joined())
    sizes = tuple(p.shape[attrs["axis"]] for p in parts)
    return [np.concatenate(parts, attrs["axis"])], {"sizes": sizes, "axis": attrs["axis"]}


# --- gathering and slicing ---


@st.composite
def gather(draw: Draw) -> Case:
    params = draw(values("float32", shape(min_dims=1, min_side=1)))
    axis = axis_of(draw, params.ndim)
    indices = draw(hnp.arrays(np.int32, shape(max_dims=2), elements=st.integers(0, params.shape[axis] - 1)))
    return [params, indices], {"axis": axis, "batch_dims": 0}


@st.composite
def gather_grad(draw: Draw) -> Case:
    [params, indices], attrs = draw(gather())
    g = np.take(params, indices, axis=attrs["axis"])
    return [g, indices, params], {"axis": attrs["axis"]}


@st.composite
def one_hot(draw: Draw) -> Case:
    indices = draw(hnp.arrays(np.int32, shape(max_dims=2), elements=st.integers(-1, 3)))
    on = draw(st.sampled_from([np.float32(1), np.int32(5)]))
    axis = draw(st.sampled_from([-1] + list(range(indices.ndim + 1))))
    return [indices], {"depth": draw(st.integers(0, 4)), "on": on, "off": np.zeros((), on.dtype), "axis": axis}


@st.composite
def strided_slice(draw: Draw) -> Case:
    """x[spec] with ints, slices (some bounds given as tensors: ("input", k)), tf.newaxis and `...`."""
    x = draw(values("float32", shape(min_dims=1, min_side=1)))
    dynamic: list[Any] = []

    def maybe_tensor(v: Any) -> Any:
        if v is None or not draw(st.booleans()):
            return v
        dynamic.append(np.int32(v))
        return ("input", len(dynamic) - 1)

    spec: list[Any] = []
    for size in x.shape[: draw(st.integers(1, x.ndim))]:
        kind = draw(st.sampled_from(["int", "slice", "newaxis"]))
        if kind == "int":
            spec.append(maybe_tensor(draw(st.integers(-size, size - 1))))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-size - 1, size + 1))
            step = draw(st.sampled_from([None, 1, 2, -1, -2]))
            spec.append(("slice", maybe_tensor(draw(bound)), maybe_tensor(draw(bound)), maybe_tensor(step)))
        else:
            spec.append(None)
            spec.append(("slice", None, None, None))
    if draw(st.booleans()):
        spec.insert(draw(st.integers(0, len(spec))), Ellipsis)
    return [x, *dynamic], {"spec": tuple(spec)}


@st.composite
def strided_slice_grad(draw: Draw) -> Case:
    [x, *dynamic], attrs = draw(strided_slice())
    g = REGISTRY["StridedSlice"].kernel(x, *dynamic, **attrs)
    return [np.asarray(g), x, *dynamic], attrs


# --- linear algebra ---


@st.composite
def matmul(draw: Draw, batched: bool) -> Case:
    m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    batch_a, batch_b = (
        draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3)).input_shapes
        if batched
        else ((), ())
    )
    a = draw(values("float32", batch_a + ((k, m) if ta else (m, k))))
    b = draw(values("float32", batch_b + ((n, k) if tb else (k, n))))
    return [a, b], {"transpose_a": ta, "transpose_b": tb}


@st.composite
def square(draw: Draw, with_rhs: bool = False, adjoint: bool = True) -> Case:
    batch, n = draw(shape(max_dims=1, min_side=1, max_side=2)), draw(st.integers(1, 3))
    matrix = np.eye(n, dtype=np.float32) * 2 + draw(values("float32", batch + (n, n))) * 0.1
    inputs: list[Any] = [matrix]
    if with_rhs:
        inputs.append(draw(values("float32", batch + (n, draw(st.integers(1, 3))))))
    return inputs, ({"adjoint": draw(st.booleans())} if adjoint else {})


# --- control flow: the ops' function attrs are traced here, like tf.cond and tf.while_loop trace them ---


def _traced_op(fn: Callable[..., Any], specs: list[tf.TensorSpec], types: set[str]) -> Any:
    graph = tf.function(fn).get_concrete_function(*specs).graph
    return next(op for op in graph.get_operations() if op.type in types)


@st.composite
def if_op(draw: Draw, stateful: bool) -> Case:
    x = draw(values("float32", shape()))
    counter = tf.Variable(0.0)

    def branch_with_print(v: Any) -> Any:
        if stateful:
            counter.assign_add(1.0)
        return v * 2.0

    op = _traced_op(
        lambda p, v: tf.cond(p, lambda: branch_with_print(v), lambda: tf.reduce_sum(v) + v),
        [tf.TensorSpec([], tf.bool), tf.TensorSpec(x.shape, tf.float32)],
        {"If", "StatelessIf"},
    )
    inputs = [np.bool_(draw(st.booleans()))] + [counter if t.dtype.name == "resource" else x for t in op.inputs[1:]]
    return inputs, dict(op.attrs)


@st.composite
def while_op(draw: Draw, stateful: bool) -> Case:
    x = draw(values("float32", shape()))
    counter = tf.Variable(0.0)

    def body(i: Any, v: Any) -> Any:
        if stateful:
            counter.assign_add(1.0)
        return i + 1, v * 2.0

    op = _traced_op(
        lambda v: tf.while_loop(lambda i, v: i < 3, body, [0, v]),
        [tf.TensorSpec(x.shape, tf.float32)],
        {"While", "StatelessWhile"},
    )
    inputs = [np.int32(0), np.int32(-1), np.int32(0), x] + [counter] * (len(op.inputs) - 4)
    return inputs, dict(op.attrs)


@st.composite
def call_op(draw: Draw, stateful: bool) -> Case:
    x = draw(values("float32", shape()))
    counter = tf.Variable(1.0)
    inner = tf.function(lambda v: v * counter if stateful else tf.reduce_sum(v) * v)
    op = _traced_op(
        lambda v: inner(v), [tf.TensorSpec(x.shape, tf.float32)], {"PartitionedCall", "StatefulPartitionedCall"}
    )
    return [x] + [counter] * (len(op.inputs) - 1), dict(op.attrs)


@st.composite
def list_set_item(draw: Draw) -> Case:
    item = draw(values("float32", shape()))
    length = draw(st.integers(0, 3))
    stack = np.zeros((length,) + item.shape, np.float32) if length else np.zeros([0], np.float32)
    return [stack, np.int32(draw(st.integers(0, 3))), item], {}


@st.composite
def zero_row(draw: Draw) -> Case:
    g = draw(values("float32", shape(min_dims=1)))
    return [g, np.int32(draw(st.integers(0, 3)))], {}


# --- ops reached through their public functions: the inputs and attrs the public function really binds ---


def captured(name: str, call: Callable[[], Any]) -> Case:
    """Run `call` eagerly and return the inputs and attrs of the first kernel call of op `name`."""
    op = REGISTRY[name]
    original, seen = op.kernel, []

    def spy(*args: Any, **attrs: Any) -> Any:
        if not seen:
            seen.append((list(args), dict(attrs)))
        return original(*args, **attrs)

    op.kernel = spy
    try:
        call()
    finally:
        op.kernel = original
    assert seen, f"{name}: the call never ran the op's kernel"
    return seen[0]


def through(name: str, call: Callable[[Draw], Callable[[], Any]]) -> st.SearchStrategy:
    """A generator drawing sizes, then capturing what the public call binds for op `name`."""
    return st.composite(lambda draw: captured(name, call(draw)))()


def size(draw: Draw, low: int = 1, high: int = 3) -> int:
    return draw(st.integers(low, high))


def matrix(draw: Draw, dtype: str = "float32", min_side: int = 1) -> np.ndarray:
    return draw(values(dtype, shape(min_dims=2, max_dims=2, min_side=min_side)))


def tape_grad(fn: Callable[[Any], Any], x: Any) -> Callable[[], Any]:
    def run() -> Any:
        x_ = tf.constant(x) if not isinstance(x, tf.Variable) else x
        with tf.GradientTape() as tape:
            tape.watch(x_)
            y = fn(x_)
        return tape.gradient(y, x_)

    return run


def second_grad(fn: Callable[[Any], Any], x: Any) -> Callable[[], Any]:
    def run() -> Any:
        x_ = tf.constant(x)
        with tf.GradientTape() as outer:
            outer.watch(x_)
            with tf.GradientTape() as inner:
                inner.watch(x_)
                y = fn(x_)
            g = inner.gradient(y, x_)
        return outer.gradient(g, x_)

    return run


def images(draw: Draw, channels: int | None = None) -> np.ndarray:
    return draw(values("float32", (size(draw), size(draw, 2, 4), size(draw, 2, 4), channels or size(draw))))


def pool_args(draw: Draw) -> dict:
    return {"ksize": size(draw, 1, 2), "strides": size(draw, 1, 2), "padding": draw(st.sampled_from(["SAME", "VALID"]))}


def conv_call(draw: Draw) -> tuple[np.ndarray, np.ndarray, dict]:
    x = images(draw)
    f = draw(values("float32", (size(draw, 1, 2), size(draw, 1, 2), x.shape[3], size(draw))))
    return x, f, {"strides": size(draw, 1, 2), "padding": draw(st.sampled_from(["SAME", "VALID"]))}


def sparse_value(draw: Draw) -> Any:
    dense = matrix(draw) * draw(values("bool", (1,)))[0]
    dense[0, 0] = 1.0
    return tf.sparse.from_dense(dense)


def ragged_value(draw: Draw, dtype: Any = tf.float32) -> Any:
    lengths = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    return tf.RaggedTensor.from_row_lengths(tf.cast(tf.range(sum(lengths)), dtype), lengths)


def words(draw: Draw) -> np.ndarray:
    return np.array(
        draw(st.lists(st.sampled_from(["a b", "Hello", "", "x,y z", "ünï"]), min_size=0, max_size=3)), dtype=object
    )


def scatter_call(draw: Draw, fn: Callable[..., Any]) -> Callable[[], Any]:
    t = matrix(draw)
    k = size(draw, 0, 3)
    idx = np.array([[draw(st.integers(0, t.shape[0] - 1))] for _ in range(k)], np.int32).reshape(k, 1)
    upd = draw(values("float32", (k, t.shape[1])))
    return lambda: fn(t, idx, upd)


def seed(draw: Draw) -> Any:
    return tf.constant([1, draw(st.integers(0, 9))], tf.int32)


def variable_case(draw: Draw, op_name: str) -> Case:
    x = draw(values("float32", shape()))
    v = tf.Variable(x)
    if op_name == "ReadVariableOp":
        return captured(op_name, lambda: v.read_value())
    method = {"AssignVariableOp": v.assign, "AssignAddVariableOp": v.assign_add, "AssignSubVariableOp": v.assign_sub}[
        op_name
    ]
    return captured(op_name, lambda: method(x, read_value=False))


def _fused_cases(fn: Callable[..., Any], spec: list[tf.TensorSpec], op_type: str, jit: bool = False) -> Case:
    """Trace `fn`, take the fused node the optimiser (or the jit) made, and feed it values of its inputs' shapes."""
    cf = tf.function(fn, jit_compile=jit).get_concrete_function(*spec)
    node = next(op for op in cf.optimized_graph.get_operations() if op.type == op_type)
    inputs = [np.full([int(d) for d in t.shape], 0.5, t.dtype._np) for t in node.inputs]
    return inputs, dict(node.attrs)


@st.composite
def fused_elementwise(draw: Draw) -> Case:
    dims = tuple(draw(shape(max_dims=2)))
    return _fused_cases(lambda a, b: tf.exp(a) * b + 1.0, [tf.TensorSpec(dims, tf.float32)] * 2, "FusedElementwise")


@st.composite
def xla_fusion(draw: Draw) -> Case:
    """A jit region (exp: NumPy on blocks, so no machine code is compiled per example) with a row sum."""
    dims = (size(draw), size(draw))
    return _fused_cases(
        lambda a, b: tf.reduce_sum(tf.exp(a) * b + 1.0, axis=1),
        [tf.TensorSpec(dims, tf.float32)] * 2,
        "XlaFusion",
        jit=True,
    )


@st.composite
def fused_matmul(draw: Draw) -> Case:
    m, k, n = size(draw), size(draw), size(draw)
    return _fused_cases(
        lambda a, w, b: tf.nn.relu(tf.matmul(a, w) + b),
        [tf.TensorSpec((m, k), tf.float32), tf.TensorSpec((k, n), tf.float32), tf.TensorSpec((n,), tf.float32)],
        "_FusedMatMul",
    )


def spd(draw: Draw) -> np.ndarray:
    """A symmetric positive definite matrix (batched sometimes): what Cholesky and eigh take."""
    m = matrix(draw)
    square = (m.T @ m + np.eye(m.shape[1])).astype(np.float32)
    return np.stack([square, 2 * square]) if draw(st.booleans()) else square


def _sorted(draw: Draw) -> np.ndarray:
    return np.sort(draw(values("float32", shape(min_dims=1, max_dims=1, min_side=1))))


def _segments(draw: Draw) -> tuple[np.ndarray, np.ndarray]:
    data = matrix(draw)
    ids = np.sort(np.array([draw(st.integers(0, 2)) for _ in range(data.shape[0])], np.int32))
    return data, ids


@tf.custom_gradient
def doubled(x: Any) -> Any:
    return x * 2.0, lambda g: g * 2.0


def set_call(fn: Callable[[Any, Any], Any]) -> Callable[[Draw], Callable[[], Any]]:
    """`fn(a, b)` on two int32 matrices of one shape (small values, so that rows share members)."""

    def call(draw: Draw) -> Callable[[], Any]:
        a = draw(values("int32", shape(min_dims=2, max_dims=2, min_side=1))) % 4
        return lambda: fn(a, (a + 1) % 4)

    return call


def queue_call(fn: Callable[[Any], Any]) -> Callable[[Draw], Callable[[], Any]]:
    """`fn(queue)` on a queue holding more elements than any call takes, so that running the kernel again finds
    them too."""
    return lambda draw: (lambda queue: lambda: fn(queue))(filled_queue(size(draw)))


PUBLIC_CALLS: dict[str, Callable[[Draw], Callable[[], Any]]] = {
    "Assert": lambda d: (lambda x: lambda: tf.function(lambda a: tf.debugging.assert_equal(a, a))(x))(
        d(values("float32", shape()))
    ),
    "AvgPool": lambda d: (lambda x, a: lambda: tf.nn.avg_pool2d(x, **a))(images(d), pool_args(d)),
    "AvgPoolGrad": lambda d: (lambda x, a: tape_grad(lambda t: tf.nn.avg_pool2d(t, **a), x))(images(d), pool_args(d)),
    "MaxPool": lambda d: (lambda x, a: lambda: tf.nn.max_pool2d(x, **a))(images(d), pool_args(d)),
    "MaxPoolGrad": lambda d: (lambda x, a: tape_grad(lambda t: tf.nn.max_pool2d(t, **a), x))(images(d), pool_args(d)),
    "MaxPoolGradGrad": lambda d: (lambda x, a: second_grad(lambda t: tf.nn.max_pool2d(t, **a) ** 2, x))(
        images(d), pool_args(d)
    ),
    "Conv2D": lambda d: (lambda x, f, a: lambda: tf.nn.conv2d(x, f, **a))(*conv_call(d)),
    "Conv2DBackpropInput": lambda d: (lambda x, f, a: tape_grad(lambda t: tf.nn.conv2d(t, f, **a), x))(*conv_call(d)),
    "Conv2DBackpropFilter": lambda d: (lambda x, f, a: tape_grad(lambda t: tf.nn.conv2d(x, t, **a), f))(*conv_call(d)),
    "Bitcast": lambda d: (lambda x: lambda: tf.bitcast(x, tf.int32))(d(values("float32", shape()))),
    "CheckNumerics": lambda d: (lambda x: lambda: tf.debugging.check_numerics(x, "bad"))(d(values("float32", shape()))),
    "DenseBincount": lambda d: (lambda x: lambda: tf.math.bincount(x))(d(values("int32", shape(max_dims=1)))),
    "DenseToSparse": lambda d: (lambda x: lambda: tf.sparse.from_dense(x))(d(values("float32", shape(max_dims=2)))),
    "EagerPyFunc": lambda d: (lambda x: lambda: tf.py_function(lambda a: a * 2.0, [x], tf.float32))(
        d(values("float32", shape()))
    ),
    "PyFunc": lambda d: (
        lambda x: lambda: tf.function(lambda a: tf.numpy_function(lambda b: b * 2, [a], tf.float32))(x)
    )(d(values("float32", shape()))),
    "PyFuncStateless": lambda d: (
        lambda x: lambda: tf.function(lambda a: tf.numpy_function(lambda b: b * 2, [a], tf.float32, stateful=False))(x)
    )(d(values("float32", shape()))),
    "Einsum": lambda d: (lambda a, n: lambda: tf.einsum("ij,jk->ik", a, np.ones((a.shape[1], n), np.float32)))(
        matrix(d), size(d)
    ),
    "EnsureShape": lambda d: (lambda x: lambda: tf.ensure_shape(x, x.shape))(d(values("float32", shape()))),
    "TopKV2": lambda d: (lambda x: lambda: tf.math.top_k(x, d(st.integers(0, x.shape[-1]))))(
        d(values("float32", shape(min_dims=1)))
    ),
    "ScatterLastAxis": lambda d: (lambda x: tape_grad(lambda t: tf.math.top_k(t, 1).values, x))(
        d(values("float32", shape(min_dims=1, min_side=1)))
    ),
    "GatherLastAxis": lambda d: (lambda x: second_grad(lambda t: tf.math.top_k(t, 1).values ** 3, x))(
        d(values("float32", shape(min_dims=1, min_side=1)))
    ),
    "GatherNd": lambda d: (lambda x: lambda: tf.gather_nd(x, [[0, 0], [x.shape[0] - 1, 0]]))(matrix(d)),
    "IdentityN": lambda d: (lambda x: lambda: doubled(tf.constant(x)))(d(values("float32", shape()))),
    "LowerBound": lambda d: (lambda s: lambda: tf.searchsorted(s, s[::-1], side="left"))(_sorted(d)),
    "UpperBound": lambda d: (lambda s: lambda: tf.searchsorted(s, s[::-1], side="right"))(_sorted(d)),
    "MatrixBandPart": lambda d: (lambda m: lambda: tf.linalg.band_part(m, 1, 0))(matrix(d)),
    "MatrixDiagPartV3": lambda d: (lambda m: lambda: tf.linalg.diag_part(m))(matrix(d)),
    "MatrixDiagV3": lambda d: (lambda v: lambda: tf.linalg.diag(v))(d(values("float32", shape(min_dims=1)))),
    "Svd": lambda d: (lambda m: lambda: tf.norm(m, ord=2, axis=[-2, -1]))(matrix(d)),
    "Multinomial": lambda d: (lambda m: lambda: tf.random.categorical(m, size(d), seed=1))(matrix(d)),
    "StatelessMultinomial": lambda d: (lambda m: lambda: tf.random.stateless_categorical(m, size(d), seed(d)))(
        matrix(d)
    ),
    "RandomUniform": lambda d: (lambda s: lambda: tf.random.uniform(s, seed=1))(tuple(d(shape()))),
    "RandomStandardNormal": lambda d: (lambda s: lambda: tf.random.normal(s, seed=1))(tuple(d(shape()))),
    "TruncatedNormal": lambda d: (lambda s: lambda: tf.random.truncated_normal(s, seed=1))(tuple(d(shape()))),
    "RandomUniformInt": lambda d: (lambda s: lambda: tf.random.uniform(s, 0, 5, dtype=tf.int32, seed=1))(
        tuple(d(shape()))
    ),
    "RandomShuffle": lambda d: (lambda x: lambda: tf.random.shuffle(x, seed=1))(
        d(values("float32", shape(min_dims=1)))
    ),
    "RngSkip": lambda d: (lambda s: lambda: tf.random.Generator.from_seed(1).uniform(s))(tuple(d(shape()))),
    "RngStateKeyCounter": lambda d: (lambda s: lambda: tf.random.Generator.from_seed(1).uniform(s))(tuple(d(shape()))),
    "StatelessRandomGetKeyCounter": lambda d: (lambda s: lambda: tf.random.stateless_uniform(s, seed(d)))(
        tuple(d(shape()))
    ),
    "StatelessRandomUniformV2": lambda d: (lambda s: lambda: tf.random.stateless_uniform(s, seed(d)))(
        tuple(d(shape()))
    ),
    "StatelessRandomNormalV2": lambda d: (lambda s: lambda: tf.random.stateless_normal(s, seed(d)))(tuple(d(shape()))),
    "StatelessTruncatedNormalV2": lambda d: (lambda s: lambda: tf.random.stateless_truncated_normal(s, seed(d)))(
        tuple(d(shape()))
    ),
    "StatelessRandomUniformIntV2": lambda d: (
        lambda s: lambda: tf.random.stateless_uniform(s, seed(d), minval=0, maxval=5, dtype=tf.int32)
    )(tuple(d(shape()))),
    "StatelessRandomUniformFullIntV2": lambda d: (
        lambda s: lambda: tf.random.stateless_uniform(s, seed(d), minval=None, maxval=None, dtype=tf.int32)
    )(tuple(d(shape()))),
    "Roll": lambda d: (lambda x: lambda: tf.roll(x, d(st.integers(-3, 3)), 0))(d(values("float32", shape(min_dims=1)))),
    "ScatterNd": lambda d: scatter_call(d, lambda t, i, u: tf.scatter_nd(i, u, t.shape)),
    "TensorScatterAdd": lambda d: scatter_call(d, tf.tensor_scatter_nd_add),
    "TensorScatterSub": lambda d: scatter_call(d, tf.tensor_scatter_nd_sub),
    "TensorScatterMax": lambda d: scatter_call(d, tf.tensor_scatter_nd_max),
    "TensorScatterMin": lambda d: scatter_call(d, tf.tensor_scatter_nd_min),
    "TensorScatterUpdate": lambda d: scatter_call(d, tf.tensor_scatter_nd_update),
    "TensorStridedSliceUpdate": lambda d: (lambda v: lambda: v[0].assign(v[0] * 2.0))(tf.Variable(matrix(d))),
    "SegmentSum": lambda d: (lambda di: lambda: tf.math.segment_sum(*di))(_segments(d)),
    "UnsortedSegmentSum": lambda d: (lambda di: lambda: tf.math.unsorted_segment_sum(*di, 3))(_segments(d)),
    "SegmentMax": lambda d: (lambda di: lambda: tf.math.segment_max(*di))(_segments(d)),
    "UnsortedSegmentMax": lambda d: (lambda di: lambda: tf.math.unsorted_segment_max(*di, 3))(_segments(d)),
    "SegmentMin": lambda d: (lambda di: lambda: tf.math.segment_min(*di))(_segments(d)),
    "UnsortedSegmentMin": lambda d: (lambda di: lambda: tf.math.unsorted_segment_min(*di, 3))(_segments(d)),
    "SegmentProd": lambda d: (lambda di: lambda: tf.math.segment_prod(*di))(_segments(d)),
    "UnsortedSegmentProd": lambda d: (lambda di: lambda: tf.math.unsorted_segment_prod(*di, 3))(_segments(d)),
    "CheckClassIds": lambda d: (lambda x: lambda: tf.math.confusion_matrix(x, x, num_classes=4))(
        np.array(d(st.lists(st.integers(0, 3), max_size=4)), np.int32)
    ),
    "CheckLabelRange": lambda d: (
        lambda x: lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(x, np.ones((x.size, 4), np.float32))
    )(np.array(d(st.lists(st.integers(0, 3), max_size=4)), np.int32)),
    "AssertThat": lambda d: (lambda x: lambda: tf.function(lambda a: tf.debugging.assert_less(a, 10.0))(x))(
        d(values("float32", shape()))
    ),
    "AssertGuard": lambda d: (lambda x: lambda: tf.function(lambda a: (tf.Assert(a < 10.0, ["a", a]), a)[1])(x))(
        d(values("float32", shape()))
    ),
    "BroadcastArgs": lambda d: (
        lambda s: (
            lambda: tf.broadcast_dynamic_shape(
                np.array(s.input_shapes[0], np.int32), np.array(s.input_shapes[1], np.int32)
            )
        )
    )(d(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))),
    "Cholesky": lambda d: (lambda a: lambda: tf.linalg.cholesky(a))(spd(d)),
    "Timestamp": lambda d: lambda: tf.timestamp(),
    "DynamicStitch": lambda d: (lambda m: lambda: tf.dynamic_stitch([list(range(m.shape[0]))[::-1], [0]], [m, m[:1]]))(
        matrix(d)
    ),
    "ReverseSequence": lambda d: (lambda m: lambda: tf.reverse_sequence(m, [m.shape[1]] * m.shape[0], seq_axis=1))(
        matrix(d)
    ),
    "Qr": lambda d: (lambda m, full: lambda: tf.linalg.qr(m, full_matrices=full))(matrix(d), d(st.booleans())),
    "Lu": lambda d: (lambda a: lambda: tf.linalg.lu(a))(spd(d)),
    "MatrixSolveLs": lambda d: (
        lambda m: lambda: tf.linalg.lstsq(m, np.ones(m.shape[:-1] + (2,), np.float32), fast=False)
    )(matrix(d)),
    "MatrixTriangularSolve": lambda d: (
        lambda a: (
            lambda: tf.linalg.triangular_solve(a, np.ones(a.shape[:-1] + (2,), np.float32), lower=d(st.booleans()))
        )
    )(spd(d)),
    "LogMatrixDeterminant": lambda d: (lambda a: lambda: tf.linalg.slogdet(a))(spd(d)),
    "SelfAdjointEigV2": lambda d: (lambda a, v: lambda: tf.linalg.eigh(a) if v else tf.linalg.eigvalsh(a))(
        spd(d), d(st.booleans())
    ),
    "Slice": lambda d: (lambda x: lambda: tf.slice(x, [0, 0], [1, -1]))(matrix(d)),
    "SliceGrad": lambda d: (lambda x: tape_grad(lambda t: tf.slice(t, [0, 0], [1, -1]), x))(matrix(d)),
    "Unique": lambda d: (lambda x: lambda: tf.unique(x))(d(values("int32", shape(min_dims=1, max_dims=1)))),
    "UnravelIndex": lambda d: (lambda x: lambda: tf.unravel_index(x, [2, 3]))(
        np.array(d(st.lists(st.integers(0, 5), max_size=4)), np.int32)
    ),
    "SparseToDense": lambda d: (lambda sp: lambda: tf.sparse.to_dense(sp))(sparse_value(d)),
    "SparseReorder": lambda d: (lambda sp: lambda: tf.sparse.reorder(sp))(sparse_value(d)),
    "SparseAdd": lambda d: (lambda sp: lambda: tf.sparse.add(sp, sp))(sparse_value(d)),
    "SparseTensorDenseMatMul": lambda d: (
        lambda sp: lambda: tf.sparse.sparse_dense_matmul(sp, np.ones((int(sp.dense_shape[1]), 2), np.float32))
    )(sparse_value(d)),
    "SparseGatherAt": lambda d: (
        lambda sp: tape_grad(lambda v: tf.sparse.to_dense(tf.SparseTensor(sp.indices, v, sp.dense_shape)), sp.values)
    )(sparse_value(d)),
    "SparseMatMulValuesGrad": lambda d: (
        lambda sp: tape_grad(
            lambda v: tf.sparse.sparse_dense_matmul(
                tf.SparseTensor(sp.indices, v, sp.dense_shape), np.ones((int(sp.dense_shape[1]), 2), np.float32)
            ),
            sp.values,
        )
    )(sparse_value(d)),
    "RaggedSegmentReduce": lambda d: (lambda rt: lambda: tf.reduce_sum(rt, axis=1))(ragged_value(d)),
    "RaggedColumnOrder": lambda d: (lambda rt: lambda: tf.reduce_sum(rt, axis=0))(ragged_value(d)),
    "RaggedColumnSplits": lambda d: (lambda rt: lambda: tf.reduce_sum(rt, axis=0))(ragged_value(d)),
    "RaggedRowIds": lambda d: (lambda rt: tape_grad(lambda v: tf.reduce_sum(rt.with_values(v), axis=1), rt.values))(
        ragged_value(d)
    ),
    "RaggedTensorToTensor": lambda d: (lambda rt: lambda: rt.to_tensor())(ragged_value(d)),
    "RaggedTensorToTensorGrad": lambda d: (lambda rt: tape_grad(lambda v: rt.with_values(v).to_tensor(), rt.values))(
        ragged_value(d)
    ),
    "RaggedRange": lambda d: (lambda rt: lambda: tf.ragged.range(rt.row_lengths()))(ragged_value(d)),
    "RaggedTensorToSparse": lambda d: (lambda rt: lambda: rt.to_sparse())(ragged_value(d)),
    "StringToHashBucketFast": lambda d: (lambda w: lambda: tf.strings.to_hash_bucket_fast(w, 10))(words(d)),
    "Substr": lambda d: (lambda w: lambda: tf.strings.substr(w, 0, 2))(words(d)),
    "StringFormat": lambda d: (
        lambda x: lambda: tf.function(lambda a: tf.print("x =", a, output_stream=io.StringIO()))(x)
    )(d(values("float32", shape()))),
    "PrintV2": lambda d: (lambda x: lambda: tf.print(x, output_stream=io.StringIO()))(d(values("float32", shape()))),
    "ReduceJoin": lambda d: (lambda w: lambda: tf.strings.reduce_join(w))(words(d)),
    "StringBytesSplit": lambda d: (lambda w: lambda: tf.strings.bytes_split(w))(words(d)),
    "StringJoin": lambda d: (lambda w: lambda: tf.strings.join([w, w], separator="-"))(words(d)),
    "StringLength": lambda d: (lambda w: lambda: tf.strings.length(w))(words(d)),
    "StringLower": lambda d: (lambda w: lambda: tf.strings.lower(w))(words(d)),
    "StringStrip": lambda d: (lambda w: lambda: tf.strings.strip(w))(words(d)),
    "StaticRegexReplace": lambda d: (lambda w: lambda: tf.strings.regex_replace(w, "[a-z]", "-"))(words(d)),
    "StaticRegexFullMatch": lambda d: (lambda w: lambda: tf.strings.regex_full_match(w, "[a-z ]*"))(words(d)),
    "AsString": lambda d: (lambda x: lambda: tf.strings.as_string(x))(d(values("float32", shape()))),
    "StringUpper": lambda d: (lambda w: lambda: tf.strings.upper(w))(words(d)),
    "StringSplitV2": lambda d: (lambda w: lambda: tf.strings.split(w))(words(d)),
    "StringToNumber": lambda d: (lambda n: lambda: tf.strings.to_number(np.array(["1.5"] * n, object)))(size(d, 0)),
    "DecodeCSV": lambda d: (lambda lines: lambda: tf.io.decode_csv(lines, [[0], [0.5], tf.constant([], tf.string)]))(
        np.full(d(shape(max_dims=2)), "1,,x", dtype=object)
    ),
    "UnicodeDecode": lambda d: (lambda w: lambda: tf.strings.unicode_decode(w, "UTF-8"))(words(d)),
    "UnicodeEncode": lambda d: (lambda rt: lambda: tf.strings.unicode_encode(tf.cast(rt, tf.int32) + 65, "UTF-8"))(
        ragged_value(d)
    ),
    "DecodeRaw": lambda d: (lambda w: lambda: tf.io.decode_raw(w, tf.int16))(
        np.array(d(st.lists(st.sampled_from(["abcd", "wxyz"]), max_size=3)), dtype=object)
    ),
    "DecodePaddedRaw": lambda d: (lambda w: lambda: tf.io.decode_raw(w, tf.uint8, fixed_length=3))(words(d)),
    "SerializeTensor": lambda d: (lambda x: lambda: tf.io.serialize_tensor(x))(d(values("float32", shape()))),
    "ParseTensor": lambda d: (lambda x: lambda: tf.io.parse_tensor(tf.io.serialize_tensor(x), tf.float32))(
        d(values("float32", shape()))
    ),
    "ParseExampleV2": lambda d: (
        lambda n: (
            lambda: tf.io.parse_example(
                [serialized_example(i) for i in range(n)],
                {
                    "n": tf.io.FixedLenFeature([2], tf.int64),
                    "v": tf.io.VarLenFeature(tf.float32),
                    "r": tf.io.RaggedFeature(tf.string, value_key="s"),
                },
            )
        )
    )(size(d)),
    "ParseSequenceExampleV2": lambda d: (
        lambda n: (
            lambda: tf.io.parse_sequence_example(
                [serialized_sequence_example(i) for i in range(n)],
                {"n": tf.io.FixedLenFeature([], tf.int64)},
                {
                    "f": tf.io.FixedLenSequenceFeature([2], tf.float32),
                    "v": tf.io.VarLenFeature(tf.int64),
                    "r": tf.io.RaggedFeature(tf.int64, value_key="v"),
                },
            )
        )
    )(size(d)),
    **{
        name: set_call(fn)
        for name, fn in [
            ("DenseToDenseSetOperation", lambda a, b: tf.sets.union(a, b)),
            ("DenseToSparseSetOperation", lambda a, b: tf.sets.intersection(a, tf.sparse.from_dense(b))),
            (
                "SparseToSparseSetOperation",
                lambda a, b: tf.sets.difference(tf.sparse.from_dense(a), tf.sparse.from_dense(b)),
            ),
            ("SetSize", lambda a, b: tf.sets.size(tf.sparse.from_dense(a))),
        ]
    },
    **{
        name: queue_call(fn)
        for name, fn in [
            ("QueueEnqueueV2", lambda q: q.enqueue_many([[1.0, 2.0]])),
            ("QueueDequeueV2", lambda q: q.dequeue_many(2)),
            ("QueueSizeV2", lambda q: q.size()),
            ("QueueIsClosedV2", lambda q: q.is_closed()),
            # Closed, then opened again behind its back, so that the kernel can close it once more.
            ("QueueCloseV2", lambda q: (q.close(), setattr(q.queue_ref, "closed", False))),
        ]
    },
}


def filled_queue(n: int) -> Any:
    queue = tf.queue.FIFOQueue(100, tf.float32, shapes=[[]])
    queue.enqueue_many([[float(i) for i in range(50 + n)]])
    return queue


def serialized_sequence_example(i: int) -> bytes:
    """A SequenceExample with a context feature and `i` steps of two floats and of `i` int64s each."""
    feature = tf.train.Feature
    return tf.train.SequenceExample(
        context=tf.train.Features(feature={"n": feature(int64_list=tf.train.Int64List(value=[i]))}),
        feature_lists=tf.train.FeatureLists(
            feature_list={
                "f": tf.train.FeatureList(feature=[feature(float_list=tf.train.FloatList(value=[0.5, 1.0]))] * i),
                "v": tf.train.FeatureList(feature=[feature(int64_list=tf.train.Int64List(value=[1] * i))] * i),
            }
        ),
    ).SerializeToString()


def serialized_example(i: int) -> bytes:
    """An Example with a fixed-length, a var-length and a ragged feature, `i` values in the last two."""
    feature = tf.train.Feature
    return tf.train.Example(
        features=tf.train.Features(
            feature={
                "n": feature(int64_list=tf.train.Int64List(value=[i, 1])),
                "v": feature(float_list=tf.train.FloatList(value=[0.5] * i)),
                "s": feature(bytes_list=tf.train.BytesList(value=[b"x"] * i)),
            }
        )
    ).SerializeToString()


# ---------------------------------------------------------------------------------------------------
# The table: one generator per registered op
# ---------------------------------------------------------------------------------------------------

INPUTS: dict[str, st.SearchStrategy] = {
    **{
        name: unary()
        for name in [
            "Neg",
            "Abs",
            "Sign",
            "Square",
            "Sqrt",
            "Rsqrt",
            "Exp",
            "Expm1",
            "Log",
            "Log1p",
            "Sin",
            "Cos",
            "Tan",
            "Tanh",
            "Sigmoid",
            "Reciprocal",
            "Round",
            "Floor",
            "Ceil",
            "Relu",
            "IsNan",
            "IsInf",
            "IsFinite",
            "ZerosLike",
            "OnesLike",
            "Identity",
            "StopGradient",
            "Elu",
            "Softplus",
            "Asin",
            "Acos",
            "Atan",
            "Sinh",
            "Cosh",
            "Asinh",
            "Acosh",
            "Atanh",
        ]
    },
    **{name: unary("complex64") for name in ["Conj", "Real", "Imag", "ComplexAbs"]},
    "LogicalNot": unary("bool"),
    **{
        name: broadcasting(("int32", "int32"))
        for name in ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"]
    },
    "Complex": broadcasting(Tout=dtypes.complex64),
    **{
        name: unary()
        for name in [
            "Erf",
            "Erfc",
            "Lgamma",
            "Digamma",
            "Trigamma",
            "Rint",
            "Erfinv",
            "Ndtri",
            "BesselI0",
            "BesselI0e",
            "BesselI1",
            "BesselI1e",
        ]
    },
    **{name: broadcasting() for name in ["Xlogy", "Xdivy", "Xlog1py", "MulNoNan", "NextAfter"]},
    "Angle": unary("complex64"),
    "Invert": unary("int32"),
    "LeakyRelu": unary(alpha=0.2),
    **{
        name: broadcasting()
        for name in [
            "AddV2",
            "Sub",
            "Mul",
            "RealDiv",
            "Div",
            "FloorDiv",
            "FloorMod",
            "Pow",
            "Maximum",
            "Minimum",
            "SquaredDifference",
            "TruncateDiv",
            "TruncateMod",
            "Less",
            "LessEqual",
            "Greater",
            "GreaterEqual",
            "Equal",
            "NotEqual",
            "BroadcastLike",
            "Atan2",
        ]
    },
    **{name: broadcasting(("bool", "bool")) for name in ["LogicalAnd", "LogicalOr"]},
    **{name: broadcasting(("int32", "int32")) for name in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]},
    **{
        name: same_shape_pair()
        for name in [
            "TanhGrad",
            "SigmoidGrad",
            "SqrtGrad",
            "ReciprocalGrad",
            "RsqrtGrad",
            "ReluGrad",
            "EluGrad",
            "SoftplusGrad",
        ]
    },
    "LeakyReluGrad": same_shape_pair(alpha=0.2),
    "SumToShape": sum_to_shape(),
    "SelectV2": select(),
    "Where": st.builds(lambda x: ([x], {}), values("bool", shape(min_dims=1))),
    "Cast": cast(),
    **{name: reduction() for name in ["Sum", "Mean", "Prod", "Max", "Min"]},
    **{name: reduction("bool") for name in ["Any", "All"]},
    "KeepDims": keep_dims(),
    "ReshapeLike": reshape_like(),
    "ArgMax": arg_reduction(),
    "ArgMin": arg_reduction(),
    "Cumsum": cumulative(),
    "Cumprod": cumulative(),
    "Softmax": st.builds(lambda x: ([x], {"axis": x.ndim - 1}), values("float32", shape(min_dims=1))),
    "LogSoftmax": st.builds(lambda x: ([x], {"axis": 0}), values("float32", shape(min_dims=1))),
    "Fill": fill(),
    "Range": arange(),
    "LinSpace": linspace(),
    "Shape": query(),
    "Size": query(),
    "Rank": unary(),
    "Reshape": reshape(),
    "ExpandDims": expand_dims(),
    "Squeeze": squeeze(),
    "Transpose": transpose(),
    "BroadcastTo": broadcast_to(),
    "SplitLike": split_like(),
    "ConcatV2": joined(),
    "Pack": joined(same=True),
    "Unpack": unpack(),
    "SplitV": split(),
    "Split": split(),
    "Tile": tile(),
    "TileGrad": tile_grad(),
    "ReverseV2": st.builds(lambda x: ([x], {"axis": tuple(range(x.ndim))}), values("float32", shape())),
    "PadV2": pad(),
    "MirrorPad": pad(),
    "PadGrad": pad_grad(),
    "GatherV2": gather(),
    "GatherGrad": gather_grad(),
    "OneHot": one_hot(),
    "StridedSlice": strided_slice(),
    "StridedSliceGrad": strided_slice_grad(),
    "MatMul": matmul(batched=False),
    "BatchMatMulV2": matmul(batched=True),
    "MatrixInverse": square(),
    "MatrixDeterminant": square(adjoint=False),
    "MatrixSolve": square(with_rhs=True),
    "StatelessIf": if_op(stateful=False),
    "If": if_op(stateful=True),
    "StatelessWhile": while_op(stateful=False),
    "While": while_op(stateful=True),
    "PartitionedCall": call_op(stateful=False),
    "StatefulPartitionedCall": call_op(stateful=True),
    "EmptyStack": unary(),
    "TensorListSetItem": list_set_item(),
    "ZeroRow": zero_row(),
    "Const": st.builds(lambda x: ([], {"value": x, "dtype": dtypes.from_numpy(x.dtype)}), values("float32", shape())),
    "Placeholder": st.builds(lambda s: ([], {"dtype": dtypes.float32, "shape": TensorShape(s)}), shape()),
    "NoOp": st.just(([], {})),
    **{
        name: st.composite(lambda draw, name=name: variable_case(draw, name))()
        for name in ["ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"]
    },
    "FusedElementwise": fused_elementwise(),
    "_FusedMatMul": fused_matmul(),
    "XlaFusion": xla_fusion(),
    **{name: through(name, call) for name, call in PUBLIC_CALLS.items()},
}

# Ops whose output size depends on the data itself, not only on shapes and constant values: the rule can
# only leave that dimension unknown (TensorFlow does the same).
DATA_DEPENDENT = {
    "Where": "one row per true entry",
    "ParseTensor": "the shape is written in the serialized bytes",
    "DecodeRaw": "as many numbers as the strings have bytes",
    "ParseExampleV2": "var-length and ragged features hold as many values as the examples do",
    "ParseSequenceExampleV2": "feature lists hold as many steps and values as the examples do",
    **{
        name: "one entry per member of each row's resulting set"
        for name in ["DenseToDenseSetOperation", "DenseToSparseSetOperation", "SparseToSparseSetOperation"]
    },
    "SetSize": "the rows are the dense shape's values",
    "TensorListSetItem": "a TensorArray's stack grows to the index written",
    "Unique": "one entry per distinct value",
    "DynamicStitch": "one row per index up to the largest",
    **{
        name: "one row per segment up to the largest id"
        for name in ["SegmentSum", "SegmentMax", "SegmentMin", "SegmentProd"]
    },
    "DenseToSparse": "one index row per nonzero entry",
    "SparseAdd": "one index row per entry of the union",
    "SparseToDense": "the dense shape is a tensor's value",
    "SparseTensorDenseMatMul": "the sparse operand's shape is a tensor's value",
    "EagerPyFunc": "whatever the Python function returns",
    "PyFunc": "whatever the Python function returns",
    "PyFuncStateless": "whatever the Python function returns",
    **{
        name: "ragged lengths are the row splits' values"
        for name in [
            "RaggedColumnOrder",
            "RaggedColumnSplits",
            "RaggedRowIds",
            "RaggedTensorToTensor",
            "RaggedTensorToTensorGrad",
            "RaggedSegmentReduce",
            "RaggedRange",
            "RaggedTensorToSparse",
        ]
    },
    **{name: "as many pieces as the strings hold" for name in ["StringBytesSplit", "StringSplitV2", "UnicodeDecode"]},
}


# ---------------------------------------------------------------------------------------------------
# Running a kernel, asking a rule
# ---------------------------------------------------------------------------------------------------


def spec_of(value: Any) -> tuple[TensorShape, dtypes.DType]:
    """The static shape and dtype a runtime value has (a Variable stands for a resource handle)."""
    if isinstance(value, tf.Variable):
        return TensorShape([]), dtypes.resource
    array = np.asarray(value)
    return TensorShape(array.shape), dtypes.from_numpy(array.dtype)


def run_kernel(name: str, inputs: list[Any], attrs: dict) -> list[tuple[TensorShape, dtypes.DType]]:
    op = REGISTRY[name]
    if name == "Placeholder":  # its kernel only says it must be fed: the value fed has the declared shape
        return [(TensorShape(attrs["shape"]), attrs["dtype"])]
    try:
        out = op.kernel(*inputs, **attrs)
    except (OpError, ValueError, IndexError, ZeroDivisionError, np.linalg.LinAlgError):
        assume(False)  # an input the kernel rejects says nothing about the rule
    outputs = [out] if op.num_outputs == 1 else list(out)
    return [spec_of(o) for o in outputs]


def ask_rule(
    name: str, shapes: list[TensorShape], types: list[dtypes.DType], attrs: dict, known_values: list[Any] | None
) -> list[tuple[TensorShape, dtypes.DType]]:
    op = REGISTRY[name]
    if op.value_dependent:
        return list(op.shape(shapes, types, attrs, values=known_values or [None] * len(shapes)))
    return list(op.shape(shapes, types, attrs))


def blur(draw: Draw, shape_: TensorShape) -> TensorShape:
    """The same shape as a trace might know it: the rank unknown, or some dimensions unknown."""
    if draw(st.integers(0, 4)) == 0:
        return TensorShape(None)
    return TensorShape([None if draw(st.booleans()) else d for d in shape_])


# ---------------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------------


def test_every_registered_op_has_generated_inputs() -> None:
    missing = sorted(set(REGISTRY) - set(INPUTS))
    assert not missing, f"add input generators for {missing} to INPUTS in tests/engine/test_shape_rules.py"


@pytest.mark.parametrize("name", sorted(INPUTS))
@rules
@given(data=st.data())
def test_shape_rule_matches_the_kernels_output(name: str, data: st.DataObject) -> None:
    inputs, attrs = data.draw(INPUTS[name], label="case")
    expected = run_kernel(name, inputs, attrs)
    specs = [spec_of(v) for v in inputs]
    shapes = [s for s, _ in specs]
    types = [t for _, t in specs]

    exact = ask_rule(
        name, shapes, types, attrs, [np.asarray(v) if not isinstance(v, tf.Variable) else None for v in inputs]
    )
    assert len(exact) == len(expected), f"{name}: the rule gives {len(exact)} outputs, the kernel {len(expected)}"
    for (rule_shape, rule_dtype), (real_shape, real_dtype) in zip(exact, expected):
        assert rule_dtype is real_dtype, f"{name}: rule says {rule_dtype.name}, the kernel gives {real_dtype.name}"
        if name in DATA_DEPENDENT:
            assert rule_shape.is_compatible_with(real_shape), f"{name}: rule {rule_shape} vs output {real_shape}"
        else:
            assert rule_shape == real_shape, f"{name}: rule {rule_shape} vs output {real_shape}"

    blurred = [blur(data.draw, s) if t.name != "resource" else s for s, t in specs]
    partial = ask_rule(name, blurred, types, attrs, None)
    for (rule_shape, rule_dtype), (real_shape, real_dtype) in zip(partial, expected):
        assert rule_dtype is real_dtype, f"{name} on {blurred}: rule says {rule_dtype.name}, not {real_dtype.name}"
        assert rule_shape.is_compatible_with(real_shape), f"{name} on {blurred}: rule {rule_shape} vs {real_shape}"


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 5])), "Dimensions must be equal, but are 3 and 4"),
        (lambda: tf.ones([2]) + tf.ones([3]), "Dimensions must be equal, but are 2 and 3"),
        (lambda: tf.reshape(tf.ones([30]), [7, -1]), "Dimension size must be evenly divisible by 7 but is 30"),
        (lambda: tf.squeeze(tf.ones([2, 1]), [0]), "Can not squeeze dim[0], expected a dimension of 1, got 2"),
        (lambda: tf.ones([3])[5], "slice index 5 of dimension 0 out of bounds."),
        (lambda: tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], 0), "Dimension 0 in both shapes must be equal"),
    ],
)
def test_impossible_shapes_raise_tensorflows_value_error_while_tracing(fn: Callable[[], Any], message: str) -> None:
    """TensorFlow 2.21 raises ValueError; when AutoGraph converted the function the message is wrapped in
    "in user code:" (the user's frames, then the original error with every line indented by four spaces)."""
    with pytest.raises(ValueError) as caught:
        tf.function(fn)()
    text = str(caught.value)
    assert message in text
    assert "{{node " in text and "with input shapes:" in text
    if text.startswith("in user code:"):
        assert "\n    ValueError: " in text, "the original error, indented under the user's frames"
    assert re.search(r"^ *Hint: ", text, re.MULTILINE), "minitf's hint survives the wrapping, on its own line"


@pytest.mark.parametrize(
    ("fn", "spec", "expected"),
    [
        (lambda x: tf.squeeze(x), [None, 1, 3], None),
        (lambda x: tf.transpose(x, [1, 0, 2]), None, [None, None, None]),
        (lambda x: tf.reshape(x, [-1, 2, 3]), [None, 6], [None, 2, 3]),
        (lambda x: tf.tile(x, [2, 0]), [None, 3], [None, 0]),
        (lambda x: tf.reduce_sum(x), None, []),
        (lambda x: x[1:, ::2], [None, 3], [None, 2]),
        (lambda x: x[tf.constant(1) :], [4], [3]),
        (lambda x: tf.range(2, 11, 3) + tf.cast(x, tf.int32), [], [3]),
        (lambda x: tf.matmul(x, tf.ones([3, 5])), [None, 3], [None, 5]),
        (lambda x: tf.stack([x, x], 1), [2, None], [2, 2, None]),
    ],
)
def test_unknown_dimensions_propagate_as_in_tensorflow(fn: Callable[..., Any], spec: Any, expected: Any) -> None:
    traced = tf.function(fn).get_concrete_function(tf.TensorSpec(spec, tf.float32))
    assert traced.outputs[0].shape == TensorShape(expected)


def test_an_op_without_a_shape_rule_is_refused_at_definition() -> None:
    with pytest.raises(TypeError, match="has no shape rule"):
        Op("NoRuleForThis", lambda x: x)
    assert "NoRuleForThis" not in REGISTRY
