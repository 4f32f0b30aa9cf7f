"""Reductions along axes: reduce_sum/mean/prod/max/min/any/all, logsumexp, variance, argmax, cumsum,
cumulative_logsumexp.

Float sums are NumPy's (pairwise along the innermost axis): they agree with TensorFlow's to float precision,
and its exact order is an opt-in mode (minitf/exact/summation.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.dispatch import api_handler
from minitf.core.errors import (
    InvalidArgumentError,
    allowed_dtypes,
    dims_text,
    dtype_mismatch,
    kernel_prefix,
    op_error,
    static_error,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec, reduced_shape
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.shape_ops import reshape, size, squeeze, stop_gradient, transpose
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import add, divide_no_nan, subtract
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, not_equal
from minitf.ops.math.elementwise import BOOL, NUM, REAL, ReshapeLike, broadcast_like, zeros_like_
from minitf.ops.math.unary_math import _conj_if_complex, conj, exp, is_finite, log, real, sqrt, square


def _axes(x: Tensor, axis: Any, op_name: str) -> tuple[int, ...] | None:
    """Normalise an axis argument (int, list, tensor or None) and check it like TensorFlow."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        known = static_value(axis)
        if known is None:
            raise TypeError(
                f"the axis of {op_name} must be known when tracing in this engine; got a tensor computed "
                "inside the function.\nHint: pass the axis as a Python int or list."
            )
        axis = np.asarray(known).tolist()
    axes = [int(a) for a in np.ravel(axis)]
    rank = x.shape.rank
    if rank is None:
        return tuple(axes)
    out = []
    for a in axes:
        if not -rank <= a < rank:  # a scalar has no axis at all
            message = (
                f"Invalid reduction dimension ({a} for input with {rank} dimension(s) [Op:{op_name}] "
                f"name: \nHint: axis must be in [{-rank}, {rank}) for a rank-{rank} tensor."
            )
            if state.graph is not None:
                raise ValueError(message)
            raise InvalidArgumentError(None, None, kernel_prefix(op_name) + message)
        if a % rank in out:
            raise InvalidArgumentError(
                None,
                None,
                f"Invalid reduction arguments: Axes contains duplicate dimension: "
                f"{a % rank} [Op:{op_name}]\nHint: list each axis once.",
            )
        out.append(a % rank)
    return tuple(sorted(out))


def _reduce_kernel(np_fn: Callable, **extra: Any) -> Callable:
    def kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> np.ndarray:
        if np.ndim(x) == 0:
            return np.asarray(x)[()]
        return np.asarray(np_fn(x, axis=axis, keepdims=keepdims, **extra))[()]

    return kernel


def sum_kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    # The array's own sum: np.sum's wrapper costs a few microseconds more, and a training step sums often.
    return np.asarray(x.sum(axis=axis, keepdims=keepdims, dtype=x.dtype))[()]


def _prod_kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    return np.asarray(np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype))[()]


def mean_kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    if x.dtype.kind in "iu":
        # TensorFlow sums narrow integers in 64 bits (the mean of uint8 [1, 255] is 128); int64 wraps.
        total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64 if x.dtype.itemsize < 8 else x.dtype)
        count = np.size(x) // max(np.size(total), 1) if np.size(x) else 0
        if count == 0:
            return np.asarray(np.zeros_like(total)).astype(x.dtype)[()]
        # Integer mean truncates toward zero: mean([-1, -2]) is -1.
        quotient = total // count
        quotient = quotient + ((total < 0) & (quotient * count != total))
        return np.asarray(quotient).astype(x.dtype)[()]
    # np.mean's own steps without its Python wrapper (a few microseconds, on every step of a training loop; and
    # an empty mean is nan without its warning, as in TensorFlow): the sum in x's dtype, divided by the count.
    sums: Any = np.add.reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims)  # type: ignore[call-overload]
    count = x.size // max(sums.size, 1)
    if x.dtype.kind == "f" and x.dtype.itemsize >= 4 and count < 2**24:
        return sums / count  # one division in x's dtype: np.mean's number, as the count is exact in float32
    return np.asarray(sums / np.intp(count)).astype(x.dtype)[()]  # np.mean divides in float64 and rounds back


def _extreme_kernel(np_fn: Callable, initial_of: Callable) -> Callable:
    def kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
        # `initial` makes empty reductions give TensorFlow's identities (-inf for max, INT_MIN for int max...).
        return np.asarray(np_fn(x, axis=axis, keepdims=keepdims, initial=initial_of(x.dtype)))[()]

    return kernel


def _lowest(dt: np.dtype) -> Any:
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min if dt.kind in "iu" else False


def _highest(dt: np.dtype) -> Any:
    return np.inf if dt.kind == "f" else np.iinfo(dt).max if dt.kind in "iu" else True


def _keep_reduced(t: Tensor, c: GradContext) -> Tensor:
    """A reduced tensor reshaped with the reduced axes kept as size 1, ready to broadcast back."""
    if c.attrs["keepdims"]:
        return t
    return bind(KeepDims, t, c.x, axis=c.attrs["axis"])


def _sum_grad(c: GradContext, g: Tensor) -> list:
    return [broadcast_like(_keep_reduced(g, c), c.x)]


def _mean_grad(c: GradContext, g: Tensor) -> list:
    """The sum's gradient over the number of entries averaged: a constant when both sizes are known (always,
    eagerly), as in TensorFlow; else computed from the sizes at run time."""
    entries, means = c.x.shape.num_elements(), c.out.shape.num_elements()
    if entries is not None and means is not None:
        count: Any = entries // max(means, 1)
    else:
        count = cast(size(c.x), g.dtype) / cast(size(g), g.dtype)
    return [broadcast_like(_keep_reduced(g, c), c.x) / count]


def _prod_grad(c: GradContext, g: Tensor) -> list:
    """d prod / d x_i is the product of all the other entries: exclusive cumulative products from the left
    and from the right, multiplied (TensorFlow's method; no division, so zeros in x are fine)."""

    x = c.x
    g = broadcast_like(_keep_reduced(g, c), x)
    if not x.shape.is_fully_defined():  # a traced input of unknown size: prod / x (wrong only where x is 0)
        return [g * broadcast_like(_keep_reduced(c.out, c), x) / x]
    shape = [d for d in x.shape.as_list() if d is not None]  # fully defined: every dimension
    rank = len(shape)
    if rank == 0:
        return [g]
    reduced = list(range(rank)) if c.attrs["axis"] is None else list(c.attrs["axis"])
    other = [i for i in range(rank) if i not in reduced]
    perm = reduced + other
    permuted = transpose(x, perm)
    flat = reshape(permuted, [int(np.prod([shape[i] for i in reduced])), int(np.prod([shape[i] for i in other]))])
    left = cumprod(flat, axis=0, exclusive=True)
    right = cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = reshape(_conj_if_complex(left) * _conj_if_complex(right), [shape[i] for i in perm])
    return [g * transpose(others, [int(i) for i in np.argsort(perm)])]


def _extreme_grad(c: GradContext, g: Tensor) -> list:
    # Ties share the gradient equally, as TensorFlow does: [1, 3, 3] -> [0, .5, .5].
    out = broadcast_like(_keep_reduced(c.out, c), c.x)
    hits = cast(equal(c.x, out), g.dtype)
    count = broadcast_like(_keep_reduced(bind(Sum, hits, axis=c.attrs["axis"], keepdims=c.attrs["keepdims"]), c), c.x)
    return [broadcast_like(_keep_reduced(g, c), c.x) * hits / count]


def reduce_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(reduced_shape(shapes[0], attrs["axis"], attrs["keepdims"]), types[0])]


def _reduction(name: str, kernel: Callable, allowed: frozenset, grad: Callable | None = None) -> Op:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, allowed, inputs[0].dtype)

    return Op(name, kernel, check=check, shape=reduce_rule, grad=grad)


Sum = _reduction("Sum", sum_kernel, NUM, _sum_grad)
Mean = _reduction("Mean", mean_kernel, NUM, _mean_grad)
Prod = _reduction("Prod", _prod_kernel, NUM, _prod_grad)
Max = _reduction("Max", _extreme_kernel(np.max, _lowest), REAL, _extreme_grad)
Min = _reduction("Min", _extreme_kernel(np.min, _highest), REAL, _extreme_grad)
Any_ = _reduction("Any", _reduce_kernel(np.any), BOOL)
All = _reduction("All", _reduce_kernel(np.all), BOOL)


def _keepdims_kernel(g: np.ndarray, like: np.ndarray, axis: tuple | None) -> np.ndarray:
    dims = like.shape  # (values are arrays or NumPy scalars: their own methods cost less than np.reshape's wrapper)
    return g.reshape((1,) * len(dims) if axis is None else [1 if i in axis else d for i, d in enumerate(dims)])


def keepdims_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(reduced_shape(shapes[1], attrs["axis"], True), types[0])]


KeepDims = Op("KeepDims", _keepdims_kernel, shape=keepdims_rule, grad=lambda c, g: [bind(ReshapeLike, g, c.x), None])


def _reduce(op: Op, input_tensor: Any, axis: Any, keepdims: bool, api: Callable[..., Any] | None = None) -> Tensor:
    """`api`: the public function, for a composite value (minitf/core/dispatch.py) that takes it over."""
    if not isinstance(input_tensor, Tensor) and (handler := api_handler(api, input_tensor)) is not None:
        return handler(input_tensor, axis, keepdims)
    x = convert_to_tensor(input_tensor)
    if op.check is not None:
        op.check([x], {})  # the dtype first: TensorFlow reports it before a bad axis
    return bind(op, x, axis=_axes(x, axis, op.name), keepdims=bool(keepdims))


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Sum over `axis` (all axes if None). Bools must be cast first, as in TensorFlow."""
    return _reduce(Sum, input_tensor, axis, keepdims, reduce_sum)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Mean over `axis`. On integers the result is an integer, truncated toward zero."""
    return _reduce(Mean, input_tensor, axis, keepdims, reduce_mean)


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(Prod, input_tensor, axis, keepdims, reduce_prod)


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(Max, input_tensor, axis, keepdims, reduce_max)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(Min, input_tensor, axis, keepdims, reduce_min)


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(Any_, _bool_input(input_tensor, axis), axis, keepdims)


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(All, _bool_input(input_tensor, axis, "All"), axis, keepdims)


def _bool_input(value: Any, axis: Any, op_name: str = "Any") -> Tensor:
    """reduce_any/reduce_all take bools only (TensorFlow says ValueError when the axes are a list: its
    slower conversion path runs then)."""
    x = convert_to_tensor(value)
    if x.dtype is not dtypes.bool:
        if isinstance(axis, list | tuple) and state.graph is None:
            raise ValueError(f"Tensor conversion requested dtype bool for Tensor with dtype {x.dtype.name}: {x!r}")
        raise dtype_mismatch(op_name, 0, dtypes.bool, x.dtype)
    return x


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """log(sum(exp(x))) computed stably: the max is subtracted first (and kept out of the gradient)."""

    x = convert_to_tensor(input_tensor)
    raw_max = reduce_max(x, axis, keepdims=True)  # first, as in TensorFlow: a bad axis fails here, a bad dtype next
    finite_max = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like_(raw_max)))
    result = log(reduce_sum(exp(x - finite_max), axis, keepdims=True)) + finite_max
    if not keepdims:
        axes = _axes(x, axis, "Sum")
        result = squeeze(result, axis=list(axes) if axes is not None else None)
        if axes is None:
            result = bind(ReshapeLike, result, reduce_sum(x))
    return result


def _real_or_complex(x: Tensor) -> None:
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(
            f"Input must be either real or complex. Received integer type {x.dtype}.\n"
            f"Hint: cast first, e.g. tf.math.reduce_std(tf.cast(x, tf.float32))."
        )


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Population variance (ddof=0): mean of squared deviations."""
    x = convert_to_tensor(input_tensor)
    mean = reduce_mean(x, axis, keepdims=True)  # first, as in TensorFlow: bad axes and bools fail here
    _real_or_complex(x)
    deviation = x - mean
    squared = real(deviation * conj(deviation)) if x.dtype.is_complex else square(deviation)
    return reduce_mean(squared, axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Population standard deviation (ddof=0): `[[1, 2], [3, 4]]` gives 1.118034."""
    return sqrt(reduce_variance(input_tensor, axis, keepdims))


def reduce_euclidean_norm(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    x = convert_to_tensor(input_tensor)
    if x.dtype.is_complex:
        return sqrt(reduce_sum(x * conj(x), axis, keepdims))
    if x.dtype.is_integer:  # TensorFlow sums the squares in the integer dtype
        return cast(sqrt(cast(reduce_sum(x * x, axis, keepdims), dtypes.float64)), x.dtype)
    return sqrt(reduce_sum(x * x, axis, keepdims))


def count_nonzero(
    input: Any, axis: Any = None, keepdims: bool = False, dtype: Any = dtypes.int64, name: str | None = None
) -> Tensor:
    x = convert_to_tensor(input)
    zero = "" if x.dtype is dtypes.string else np.zeros((), x.dtype._np)
    nonzero = not_equal(x, zero)
    return cast(reduce_sum(cast(nonzero, dtypes.int64), axis, keepdims), dtype)


def _arg_kernel(np_fn: Callable, op_name: str) -> Callable:
    def kernel(x: np.ndarray, axis: int, output_type: dtypes.DType) -> np.ndarray:
        if np.shape(x)[axis] == 0:
            raise op_error(
                InvalidArgumentError,
                op_name,
                f"Reduction axis {axis} is empty in shape {dims_text(np.shape(x))}",
                "an empty axis has no largest or smallest entry; check the input's shape.",
            )
        return np.asarray(np_fn(x, axis=axis)).astype(output_type._np)[()]

    return kernel


def _arg_check(name: str) -> Callable:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, REAL | {dtypes.bool}, inputs[0].dtype)

    return check


def arg_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(reduced_shape(shapes[0], (attrs["axis"],), False), attrs["output_type"])]


ArgMax = Op("ArgMax", _arg_kernel(np.argmax, "ArgMax"), check=_arg_check("ArgMax"), shape=arg_rule)
ArgMin = Op("ArgMin", _arg_kernel(np.argmin, "ArgMin"), check=_arg_check("ArgMin"), shape=arg_rule)


def _arg(op: Op, input: Any, axis: Any, output_type: Any) -> Tensor:
    x = convert_to_tensor(input)
    axis = 0 if axis is None else int(np.asarray(getattr(axis, "_value", axis)))
    rank = x.shape.rank
    if state.graph is not None and op.check is not None:
        op.check([x], {})  # building a graph, TensorFlow refuses the dtype before it looks at the axis
    if rank is not None and not -max(rank, 1) <= axis < max(rank, 1):
        # While tracing, TensorFlow checks the axis of a matrix (or more) at once, a vector's at run time.
        text = f"Expected dimension in the range [{-rank}, {rank}), but got {axis}"
        hint = f"axis must be in [{-rank}, {rank}) for a rank-{rank} tensor."
        raise static_error(text, op.name, hint) if rank > 1 else op_error(InvalidArgumentError, op.name, text, hint)
    if rank:
        axis %= rank
    return bind(op, x, axis=axis, output_type=dtypes.as_dtype(output_type))


def argmax(input: Any, axis: Any = None, output_type: Any = dtypes.int64, name: str | None = None) -> Tensor:
    """Index of the largest entry along `axis` (default 0), as int64; ties go to the first index."""
    return _arg(ArgMax, input, axis, output_type)


def argmin(input: Any, axis: Any = None, output_type: Any = dtypes.int64, name: str | None = None) -> Tensor:
    return _arg(ArgMin, input, axis, output_type)


def _cum_kernel(np_fn: Callable, identity: int) -> Callable:
    def kernel(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
        if np.ndim(x) == 0:
            return x
        y = np.flip(x, axis) if reverse else x
        out = np_fn(y, axis=axis, dtype=x.dtype)
        if exclusive:
            pad = [(0, 0)] * np.ndim(x)
            pad[axis] = (1, 0)
            out = np.pad(out, pad, constant_values=identity)
            out = np.take(out, range(np.shape(x)[axis]), axis=axis)
        return np.flip(out, axis) if reverse else out

    return kernel


def _cumsum_grad(c: GradContext, g: Tensor) -> list:
    a = c.attrs
    return [bind(Cumsum, g, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])]


Cumsum = Op("Cumsum", _cum_kernel(np.cumsum, 0), shape=shape_rules.same_as_first, grad=_cumsum_grad)


def _cumprod_grad(c: GradContext, g: Tensor) -> list:
    # TensorFlow's rule: cumsum of (cumprod * g) the other way round, divided by x (0 where x is 0).
    a = c.attrs
    out = bind(Cumsum, c.out * g, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])
    return [divide_no_nan(out, c.x)]


Cumprod = Op("Cumprod", _cum_kernel(np.cumprod, 1), shape=shape_rules.same_as_first, grad=_cumprod_grad)


def _cum(op: Op, x: Any, axis: int, exclusive: bool, reverse: bool) -> Tensor:
    x = convert_to_tensor(x)
    allowed_dtypes(op.name, NUM, x.dtype)
    rank = x.shape.rank
    axis = int(np.asarray(getattr(axis, "_value", axis)))
    if rank is not None and not -rank <= axis < rank:
        raise op_error(
            InvalidArgumentError,
            op.name,
            f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {axis}",
            f"axis must be in [{-rank}, {rank}) for a rank-{rank} tensor.",
            kernel=True,
        )
    return bind(op, x, axis=axis % rank if rank else axis, exclusive=bool(exclusive), reverse=bool(reverse))


def cumsum(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    """Running sum along `axis`."""
    return _cum(Cumsum, x, axis, exclusive, reverse)


def cumprod(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    return _cum(Cumprod, x, axis, exclusive, reverse)


def cumulative_logsumexp(
    x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    """log(cumsum(exp(x))) along `axis`, computed without overflow (shifted by the largest value)."""
    t = convert_to_tensor(x)
    top = stop_gradient(reduce_max(t, axis=axis, keepdims=True))
    return add(log(cumsum(exp(subtract(t, top)), axis=axis, exclusive=exclusive, reverse=reverse)), top)
