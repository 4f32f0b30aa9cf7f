"""Checking tensors while a program runs: tf.ensure_shape, tf.debugging.assert_equal / assert_shapes /
check_numerics, and tf.math.is_non_decreasing / is_strictly_increasing (TensorFlow's check_ops have them too).

The range check of sparse class labels, as an op of its own so that it runs with a traced function.

TensorFlow's `SparseSoftmaxCrossEntropyWithLogits` kernel checks that every label lies in [0, classes) each
time it runs: eagerly that is at the call, inside a `tf.function` when the graph runs (the labels may be
computed or fed). minitf composes the loss of `one_hot` and `log_softmax`, which would quietly give a zero row
for a label out of range; this stateful op (never folded, pruned or moved) raises TensorFlow's error instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, OpError, allowed_dtypes, op_error
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.shape_ops import reshape
from minitf.ops.math.binary_math import subtract
from minitf.ops.math.comparisons import equal, less, less_equal
from minitf.ops.math.elementwise import zeros_like_
from minitf.ops.math.reductions import reduce_all

Specs = list[tuple[TensorShape, dtypes.DType]]


def _dims(shape: Sequence[Any]) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


# ---------------------------------------------------------------------------------------------------
# ensure_shape
# ---------------------------------------------------------------------------------------------------


def _ensure_shape_kernel(x: Any, shape: TensorShape, _name: str = "") -> Any:
    if not shape.is_compatible_with(TensorShape(np.shape(x))):
        raise op_error(
            InvalidArgumentError,
            "EnsureShape",
            f"Shape of tensor input {_dims(np.shape(x))} is not "
            f"compatible with expected shape {_dims(shape.as_list())}.",
            "None in the expected shape accepts any size; every other size must match.",
            name=_name,
            kernel=True,
        )
    return x


def _ensure_shape_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    expected: TensorShape = attrs["shape"]
    if not expected.is_compatible_with(shapes[0]):
        raise ValueError(f"Shape must be compatible with {expected}, but is {shapes[0]}")
    return [(shapes[0].merge_with(expected), types[0])]


EnsureShape = Op("EnsureShape", _ensure_shape_kernel, shape=_ensure_shape_rule, grad=lambda c, g: [g])


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Tensor:
    """`x` unchanged if its shape fits `shape` (None: any size); an error when the program runs otherwise.
    Inside a tf.function it also tells the tracer the shape."""
    expected = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    return bind(EnsureShape, convert_to_tensor(x), shape=expected, _name=name or "")


# ---------------------------------------------------------------------------------------------------
# assert_equal: checked now when eager, when the function runs when traced (the `Assert` op)
# ---------------------------------------------------------------------------------------------------


def _equal_failure(x: np.ndarray, y: np.ndarray, message: str | None, summarize: int | None = None) -> OpError:
    """TensorFlow's message: the first `summarize` (3 by default) differing places and values, then the first
    `summarize` elements of each side."""
    count = 3 if summarize is None else summarize
    differ = np.argwhere(np.broadcast_to(x != y, np.broadcast_shapes(np.shape(x), np.shape(y))))[:count]
    xs, ys = np.broadcast_arrays(x, y)
    first_x, first_y = np.ravel(x)[:count], np.ravel(y)[:count]
    text = (
        f"{message + chr(10) if message else ''}Condition x == y did not hold.\n"
        f"Indices of first {len(differ)} different values:\n{differ}\n"
        f"Corresponding x values:\n{xs[tuple(differ.T)]}\nCorresponding y values:\n{ys[tuple(differ.T)]}\n"
        f"First {first_x.size} elements of x:\n{first_x}\nFirst {first_y.size} elements of y:\n{first_y}"
    )
    return InvalidArgumentError(None, None, text)


def _assert_kernel(condition: Any, x: Any, y: Any, message: str | None) -> tuple:
    if not bool(np.all(condition)):
        raise _equal_failure(np.asarray(x), np.asarray(y), message)
    return ()


Assert = Op("Assert", _assert_kernel, shape=lambda s, t, a: [], num_outputs=0, stateful=True)


def assert_equal(
    x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> Any:
    """Raise InvalidArgumentError unless x == y everywhere (they broadcast); inside a tf.function the check
    runs with the function."""
    a, b = convert_to_tensor(x), convert_to_tensor(y)
    holds = reduce_all(equal(a, b))
    if state.graph is None:
        if not bool(cast(EagerTensor, holds)._value):
            raise _equal_failure(
                np.asarray(cast(EagerTensor, a)._value), np.asarray(cast(EagerTensor, b)._value), message, summarize
            )
        return None
    return bind(Assert, holds, a, b, message=message)


# ---------------------------------------------------------------------------------------------------
# assert_shapes: static shape checks with named dimensions
# ---------------------------------------------------------------------------------------------------


def assert_shapes(
    shapes: Any, data: Any = None, summarize: int | None = None, message: str | None = None, name: str | None = None
) -> None:
    """Check each tensor's shape against its spec: ints are sizes, strings name sizes that must agree across
    tensors (('N', 'D') and ('N',) share N), None or '.' any size. A spec of one entry also accepts a scalar
    (rank 0 counts as rank 1 of size 1, as in TensorFlow). Messages name a tensor as TensorFlow does: by its
    shape and dtype eagerly, by its graph name while tracing (never by its values)."""
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    prefix = f"{message}.  " if message else ""
    sizes: dict[str, tuple[int | None, Any, int]] = {}
    for tensor, spec in pairs:
        t = convert_to_tensor(tensor)
        spec = list(spec) if isinstance(spec, list | tuple) else [spec]
        shape = t.shape.as_list() if t.shape.rank != 0 else [1]
        if t.shape.rank is not None and len(shape) != len(spec):
            wanted = "in (0, 1)" if len(spec) in (0, 1) else str(len(spec))
            raise ValueError(
                f"{prefix}Tensor {getattr(t, 'name', '')} must have rank {wanted}.  Received rank "
                f"{t.shape.rank}, shape {t.shape}"
            )
        for axis, (want, got) in enumerate(zip(spec, shape)):
            if want is None or want == ".":
                continue
            if isinstance(want, str) and want not in sizes:
                sizes[want] = (got, t, axis)
                continue
            if isinstance(want, str):
                expected, source, source_axis = sizes[want]
                why = f"Specified by tensor {_tensor_name(source)} dimension {source_axis}"
            else:
                expected, why = int(want), "Specified explicitly"
            if expected is not None and got is not None and expected != got:
                raise ValueError(
                    f"{prefix}{why}.  Tensor {_tensor_name(t)} dimension {axis} must have size "
                    f"{expected}.  Received size {got}, shape {t.shape}"
                )


def _tensor_name(t: Tensor) -> str:
    """How tf.debugging.assert_shapes names a tensor: its shape and dtype eagerly, its name in a graph."""
    if isinstance(t, EagerTensor):
        return f"shape={t.shape} dtype={t.dtype.name}"
    return t.name


# ---------------------------------------------------------------------------------------------------
# check_numerics
# ---------------------------------------------------------------------------------------------------


def _check_numerics_kernel(x: np.ndarray, message: str) -> np.ndarray:
    for test, what in ((np.isnan, "NaN"), (np.isinf, "Inf")):
        if np.any(test(x)):
            raise InvalidArgumentError(
                None,
                None,
                f"{message} : Tensor had {what} values [Op:CheckNumerics] name: \n"
                f"Hint: find the first op that produced {what} (log of 0, 0/0, overflow...).",
            )
    return x


def _check_numerics_grad(c: GradContext, g: Tensor) -> list:
    return [
        bind(
            CheckNumerics,
            g,
            message="Not a number (NaN) or infinity (Inf) values detected in gradient. " + c.attrs["message"],
        )
    ]


CheckNumerics = Op(
    "CheckNumerics",
    _check_numerics_kernel,
    shape=lambda s, t, a: [(s[0], t[0])],
    grad=_check_numerics_grad,
    stateful=True,
    check=lambda i, a: allowed_dtypes("CheckNumerics", dtypes.FLOATS, i[0].dtype),
)


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Tensor:
    """`tensor` unchanged, or InvalidArgumentError (with `message`) if it holds NaN or infinity."""
    return bind(CheckNumerics, convert_to_tensor(tensor), message=str(message))


def _label_range_kernel(labels: np.ndarray, classes: int) -> np.ndarray:
    """`labels` unchanged when each lies in [0, classes); TensorFlow's InvalidArgumentError otherwise."""
    if labels.size == 0 or (labels.min() >= 0 and labels.max() < classes):  # each step of a fit: two reductions
        return labels
    flat = np.ravel(labels)
    first_bad = flat[(flat < 0) | (flat >= classes)][0]
    raise op_error(
        InvalidArgumentError,
        "SparseSoftmaxCrossEntropyWithLogits",
        f"Received a label value of {first_bad} which is outside the valid range of [0, {classes}).  "
        f"Label values: {' '.join(str(v) for v in flat)}",
        hint=f"labels are class numbers 0 ... {classes - 1}, one per example.",
    )


# (TensorFlow checks the labels in the loss's own kernel, whose name its message starts with)
CheckLabelRange = Op(
    "CheckLabelRange",
    _label_range_kernel,
    shape=lambda s, t, a: [(s[0], t[0])],
    stateful=True,
    node=lambda n, attrs: "SparseSoftmaxCrossEntropyWithLogits",
)


def checked_labels(labels: Tensor, classes: int) -> Tensor:
    """`labels`, checked against [0, classes) now (eagerly) or when the traced graph runs."""
    return bind(CheckLabelRange, labels, classes=int(classes))


def _steps(x: Any) -> Tensor:
    """The differences of neighbouring elements in row-major order."""
    t = convert_to_tensor(x)
    if not (t.dtype.is_floating or t.dtype.is_integer):
        raise TypeError(f"Expected x to be numeric, but got {t.dtype.name}")
    flat = reshape(t, [-1])
    return subtract(flat[1:], flat[:-1])


def is_non_decreasing(x: Any, name: str | None = None) -> Tensor:
    """True if each element (in row-major order) is >= the one before it."""
    diff = _steps(x)
    return reduce_all(less_equal(zeros_like_(diff), diff))


def is_strictly_increasing(x: Any, name: str | None = None) -> Tensor:
    """True if each element (in row-major order) is > the one before it."""
    diff = _steps(x)
    return reduce_all(less(zeros_like_(diff), diff))
