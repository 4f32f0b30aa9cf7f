"""Functions TensorFlow's own guides reach for early (tensors, autodiff, modules, sparse and string tensors),
written as TensorFlow writes them: compositions of existing ops, so shapes, tracing and gradients come from
those ops' rules and nothing here needs a kernel of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import convert_to_tensor, graph_build_error, state, static_value
from minitf.ops import array_ops, nn_ops
from minitf.ops import math_ops as m
from minitf.tensor import Tensor

# ---------------------------------------------------------------------------------------------------
# Looking at values
# ---------------------------------------------------------------------------------------------------


def is_tensor(x: Any) -> bool:
    """Whether `x` is a tensor (eager or traced), a Variable or a composite tensor (Ragged/Sparse) rather than a
    Python or NumPy value."""
    from minitf.ragged import RaggedTensor
    from minitf.sparse import SparseTensor
    from minitf.variables import Variable
    return isinstance(x, Tensor | Variable | RaggedTensor | SparseTensor)


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """The value known without running anything: a NumPy array for an eager tensor or a traced constant, None
    for a traced tensor computed inside the function; NumPy and Python values come back as they are."""
    if not is_tensor(tensor):
        return tensor
    known = static_value(tensor) if isinstance(tensor, Tensor) else None
    return None if known is None else np.array(known)


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool, name: str | None = None) -> Tensor:
    """mask[i, j] = j < lengths[i]: one row of `maxlen` entries (the longest length by default) per length."""
    lengths = convert_to_tensor(lengths)
    if maxlen is None:
        maxlen = m.reduce_max(lengths) if lengths.shape.rank else lengths  # type: ignore[attr-defined]
        maxlen = m.maximum(maxlen, array_ops.zeros_like(maxlen))
    else:
        maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.rank not in (None, 0):  # type: ignore[attr-defined]
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} "
                             f"with shape '{maxlen.shape}' instead\nHint: maxlen is one number, the length of "  # type: ignore
                             "every row of the mask.")
    row = array_ops.range(m.cast(maxlen, lengths.dtype))  # type: ignore[attr-defined]
    mask = m.less(row, array_ops.expand_dims(lengths, -1))
    target = dtypes.as_dtype(dtype)
    return mask if target is dtypes.bool else m.cast(mask, target)


# ---------------------------------------------------------------------------------------------------
# Activations (tf.nn)
# ---------------------------------------------------------------------------------------------------


def bias_add(value: Any, bias: Any, data_format: str | None = None, name: str | None = None) -> Tensor:
    """value + bias along the last (channel) axis; bias is a vector as long as that axis."""
    if data_format not in (None, "NHWC", "N...C"):
        raise ValueError(f"minitf's bias_add supports the channels-last layout only; got data_format="
                         f"{data_format!r}.\nHint: leave data_format unset (channels last).")
    value = convert_to_tensor(value)
    if isinstance(bias, Tensor) and bias.dtype is not value.dtype and state.graph is not None:  # type: ignore
        raise ValueError(f"bias: Tensor conversion requested dtype {value.dtype.name} for Tensor with dtype "  # type: ignore
                         f"{bias.dtype.name}: {bias!r}\nHint: tf.cast the bias to the input's dtype.")  # type: ignore
    bias = convert_to_tensor(bias, dtype_hint=value.dtype)  # type: ignore[attr-defined]
    if bias.shape.rank not in (None, 1):  # type: ignore[attr-defined]
        raise graph_build_error("BiasAdd", f"Biases must be 1D: {bias.shape.as_list()}",  # type: ignore
                                "bias is one number per channel (a vector).")
    if value.shape.rank is not None and value.shape.rank < 2:  # type: ignore[attr-defined]
        raise graph_build_error("BiasAdd", f"Input tensor must be at least 2D: {value.shape.as_list()}",  # type: ignore
                                "bias_add adds to [batch, ..., channels]; for a vector use tf.add.")
    channels, size = value.shape[-1], bias.shape[-1]  # type: ignore[attr-defined]
    if None not in (channels, size) and channels != size:
        raise graph_build_error("BiasAdd", f"Must provide as many biases as the last dimension of the input tensor: "
                                f"[{size}] vs. {value.shape.as_list()}",  # type: ignore[attr-defined]
                                "bias needs one entry per channel (the last dimension).")
    return m.add(value, bias)


def relu6(features: Any, name: str | None = None) -> Tensor:
    """min(max(x, 0), 6); the gradient is 1 strictly between 0 and 6, as TensorFlow's."""
    x = convert_to_tensor(features)
    six = m.multiply(array_ops.ones_like(x), 6)
    return m.where(m.less(x, six), nn_ops.relu(x), six)


def silu(features: Any, beta: Any = 1.0, name: str | None = None) -> Tensor:
    """x * sigmoid(beta * x), also called swish."""
    x = convert_to_tensor(features)
    return m.multiply(x, m.sigmoid(m.multiply(x, convert_to_tensor(beta, dtype=x.dtype))))  # type: ignore


swish = silu

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(features: Any, name: str | None = None) -> Tensor:
    """scale * x for x > 0, scale * alpha * (exp(x) - 1) otherwise (self-normalizing networks)."""
    from minitf.custom_gradients import custom_gradient
    x = convert_to_tensor(features)
    scale = convert_to_tensor(_SELU_SCALE, dtype=x.dtype)  # type: ignore[attr-defined]
    scale_alpha = convert_to_tensor(_SELU_SCALE * _SELU_ALPHA, dtype=x.dtype)  # type: ignore[attr-defined]

    @custom_gradient
    def forward(x: Tensor) -> Any:
        below = m.less(x, array_ops.zeros_like(x))
        y = m.where(below, m.multiply(scale_alpha, m.subtract(m.exp(x), array_ops.ones_like(x))), m.multiply(scale, x))

        def grad(dy: Tensor) -> Tensor:  # TensorFlow's SeluGrad: from the output, so its rounding shows too
            return m.multiply(dy, m.where(below, m.add(y, scale_alpha), m.multiply(array_ops.ones_like(y), scale)))
        return y, grad
    return forward(x)


def softsign(features: Any, name: str | None = None) -> Tensor:
    """x / (1 + |x|)."""
    x = convert_to_tensor(features)
    return m.divide(x, m.add(array_ops.ones_like(x), m.abs(x)))


def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """log(sigmoid(x)), computed as -softplus(-x) so that large negative x does not give log(0)."""
    x = convert_to_tensor(x)
    return m.negative(nn_ops.softplus(m.negative(x)))


# ---------------------------------------------------------------------------------------------------
# Norms and clipping
# ---------------------------------------------------------------------------------------------------


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None,
                 dim: Any = None) -> Tensor:
    """x / sqrt(max(sum(x**2, axis), epsilon)): unit length along `axis` (all axes by default)."""
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    square_sum = m.reduce_sum(m.square(x), axis, keepdims=True)
    inverse_norm = m.rsqrt(m.maximum(square_sum, convert_to_tensor(epsilon, dtype=square_sum.dtype)))  # type: ignore
    return m.multiply(x, inverse_norm)


def moments(x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None) -> tuple:
    """(mean, variance) over `axes`; float16 is computed in float32, as TensorFlow does."""
    x = convert_to_tensor(x)
    y = m.cast(x, dtypes.float32) if x.dtype is dtypes.float16 else x  # type: ignore[attr-defined]
    mean = m.reduce_mean(y, axes, keepdims=True)
    variance = m.reduce_mean(m.squared_difference(y, array_ops.stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean, variance = array_ops.squeeze(mean, axes), array_ops.squeeze(variance, axes)
    if x.dtype is dtypes.float16:  # type: ignore[attr-defined]
        return m.cast(mean, dtypes.float16), m.cast(variance, dtypes.float16)
    return mean, variance


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """t scaled down so that its L2 norm (over `axes`) is at most clip_norm; unchanged if already shorter."""
    values = convert_to_tensor(t)
    l2sum = m.reduce_sum(m.multiply(values, values), axes, keepdims=True)
    positive = m.greater(l2sum, array_ops.zeros_like(l2sum))
    safe = m.where(positive, l2sum, array_ops.ones_like(l2sum))  # sqrt's gradient at 0 would be inf
    l2norm = m.where(positive, m.sqrt(safe), l2sum)
    limit = convert_to_tensor(clip_norm, dtype=values.dtype)  # type: ignore[attr-defined]
    return array_ops.identity(m.divide(m.multiply(values, limit), m.maximum(l2norm, limit)))


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Tensor:
    """sqrt(sum of the squares of every entry of every tensor in the list)."""
    if isinstance(t_list, Tensor) or not isinstance(t_list, Sequence):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.\nHint: pass a list, "
                        "e.g. the gradients of all variables.")
    values = [convert_to_tensor(t) for t in t_list if t is not None]
    half_squares = array_ops.stack([nn_ops.l2_loss(v) for v in values])
    return m.sqrt(m.multiply(m.reduce_sum(half_squares), convert_to_tensor(2.0, dtype=half_squares.dtype)))


def clip_by_global_norm(t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None,
                        name: str | None = None) -> tuple[list[Any], Tensor]:
    """Every tensor scaled by clip_norm / max(global_norm, clip_norm): the list keeps its direction and its
    combined norm is at most clip_norm (gradient clipping). Returns (clipped list, global norm)."""
    if isinstance(t_list, Tensor) or not isinstance(t_list, Sequence):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.\nHint: pass a list, "
                        "e.g. the gradients of all variables.")
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    limit = convert_to_tensor(clip_norm, dtype=norm.dtype)  # type: ignore[attr-defined]
    one = convert_to_tensor(1.0, dtype=norm.dtype)  # type: ignore[attr-defined]
    scale = m.multiply(limit, m.minimum(m.divide(one, norm), m.divide(one, limit)))
    scale = m.add(scale, m.subtract(norm, norm))  # nan when the norm is inf or nan, as in TensorFlow
    clipped = [None if t is None else array_ops.identity(m.multiply(convert_to_tensor(t),
                                                                     m.cast(scale, convert_to_tensor(t).dtype)))
               for t in t_list]
    return clipped, norm


# ---------------------------------------------------------------------------------------------------
# tf.linalg
# ---------------------------------------------------------------------------------------------------


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """Swap the last two axes (of a batch of matrices); conjugate too for the adjoint."""
    a = convert_to_tensor(a)
    rank = a.shape.rank  # type: ignore[attr-defined]
    if rank is not None and rank < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with shape: "
                         f"{a.shape}\nHint: a vector has no second axis to swap with; reshape it to [n, 1] first.")  # type: ignore
    if rank is None:
        raise ValueError("minitf transposes matrices of known rank only.\nHint: give the input a known rank.")
    return array_ops.transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2], conjugate=conjugate)


def adjoint(matrix: Any, name: str | None = None) -> Tensor:
    """The conjugate transpose of each matrix (the plain transpose for real ones)."""
    return matrix_transpose(matrix, conjugate=True)


def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: str | None = None) -> Tensor:
    """Matrix times vector: a [..., M, N] with b [..., N] gives [..., M]."""
    from minitf.ops.linalg_ops import matmul
    b = convert_to_tensor(b)
    column = array_ops.expand_dims(b, -1)
    return array_ops.squeeze(matmul(a, column, transpose_a=transpose_a, adjoint_a=adjoint_a), -1)


# ---------------------------------------------------------------------------------------------------
# tf.sparse
# ---------------------------------------------------------------------------------------------------


def _as_sparse(value: Any, what: str) -> Any:
    from minitf.sparse import SparseTensor
    if not isinstance(value, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor.\nHint: {what} takes a tf.sparse.SparseTensor; "
                        "tf.sparse.from_dense makes one from a dense tensor.")
    return value


def sparse_reduce_sum(sp_input: Any, axis: Any = None, keepdims: Any = None, output_is_sparse: bool = False,
                      name: str | None = None) -> Tensor:
    """The sum of a SparseTensor's entries (the missing ones count as zero) over `axis` (all by default), dense."""
    from minitf.sparse import SparseTensor
    if not isinstance(sp_input, SparseTensor):  # TensorFlow reads sp_input.indices straight away
        raise AttributeError(f"'{type(sp_input).__name__}' object has no attribute 'indices'\nHint: "
                             "tf.sparse.reduce_sum takes a tf.sparse.SparseTensor; for a dense tensor use "
                             "tf.reduce_sum.")
    sp = sp_input
    if output_is_sparse:
        raise NotImplementedError("minitf's tf.sparse.reduce_sum gives dense results only.\nHint: leave "
                                  "output_is_sparse=False, or wrap the result in tf.sparse.from_dense.")
    if axis is None:
        total = m.reduce_sum(sp.values)
        if keepdims:
            return array_ops.reshape(total, [1] * sp.shape.rank)
        return total
    from minitf.sparse import to_dense
    return m.reduce_sum(to_dense(sp), axis, keepdims=bool(keepdims))


def sparse_transpose(sp_input: Any, perm: Any = None, name: str | None = None) -> Any:
    """A SparseTensor with its dimensions permuted (reversed by default), entries in row-major order."""
    from minitf.sparse import SparseTensor, reorder
    sp = _as_sparse(sp_input, "tf.sparse.transpose")
    rank = sp.shape.rank
    order = list(range(rank))[::-1] if perm is None else [int(p) for p in np.ravel(static_value(
        convert_to_tensor(perm)))]
    if sorted(order) != list(range(rank)):
        raise ValueError(f"perm {order} is not a permutation of the {rank} dimensions.\nHint: list each dimension "
                         "index once, e.g. [1, 0] for a matrix.")
    indices = array_ops.gather(sp.indices, order, axis=1)
    shape = array_ops.gather(sp.dense_shape, order)
    return reorder(SparseTensor(indices, sp.values, shape))


def map_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`op` applied to the stored values of the SparseTensor arguments (all with the same indices); the
    missing entries stay missing."""
    from minitf.sparse import SparseTensor
    sparse_args = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sparse_args:
        raise ValueError("No SparseTensor in argument list of map_values\nHint: pass at least one "
                         "tf.sparse.SparseTensor; op is applied to its values.")
    first = sparse_args[0]
    for other in sparse_args[1:]:
        if first.indices is not other.indices and first.shape.is_fully_defined() and other.shape.is_fully_defined() \
                and first.shape != other.shape:
            raise ValueError(f"Shapes {first.shape} and {other.shape} are incompatible\nHint: map_values needs "
                             "SparseTensors with the same indices and dense_shape.")

    def values_of(a: Any) -> Any:
        return a.values if isinstance(a, SparseTensor) else a
    out = op(*[values_of(a) for a in args], **{k: values_of(v) for k, v in kwargs.items()})
    return SparseTensor(first.indices, out, first.dense_shape)


# ---------------------------------------------------------------------------------------------------
# tf.strings
# ---------------------------------------------------------------------------------------------------


def unicode_split(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                  replacement_char: int = 65533, name: str | None = None) -> Any:
    """Each string cut into its characters (each a string of its own bytes): a RaggedTensor for a vector."""
    from minitf.ragged import RaggedTensor
    from minitf.strings import unicode_decode, unicode_encode
    codepoints = unicode_decode(input, input_encoding, errors=errors, replacement_char=replacement_char)
    flat = codepoints.flat_values if isinstance(codepoints, RaggedTensor) else codepoints
    one_each = RaggedTensor.from_row_lengths(flat, array_ops.ones_like(flat, dtype=dtypes.int64))
    characters = unicode_encode(one_each, input_encoding)  # one string per code point
    return codepoints.with_flat_values(characters) if isinstance(codepoints, RaggedTensor) else characters


# ---------------------------------------------------------------------------------------------------
# Inverse and hyperbolic trigonometry (tf.math.asin, ..., also at the top level as TensorFlow has them)
# ---------------------------------------------------------------------------------------------------

def _one_minus_square(x: Tensor) -> Tensor:
    return m.subtract(array_ops.ones_like(x), m.square(x))


Asin = m._unary("Asin", np.arcsin, m.FC, lambda c, g: [m.multiply(g, m.rsqrt(_one_minus_square(c.x)))])
Acos = m._unary("Acos", np.arccos, m.FC, lambda c, g: [m.negative(m.multiply(g, m.rsqrt(_one_minus_square(c.x))))])
Atan = m._unary("Atan", np.arctan, m.FC,
                lambda c, g: [m.divide(g, m.add(array_ops.ones_like(c.x), m.square(c.x)))])
Sinh = m._unary("Sinh", np.sinh, m.FC, lambda c, g: [m.multiply(g, m.conj(cosh(c.x)))])
Cosh = m._unary("Cosh", np.cosh, m.FC, lambda c, g: [m.multiply(g, m.conj(sinh(c.x)))])
Asinh = m._unary("Asinh", np.arcsinh, m.FC, lambda c, g: [m.divide(g, m.conj(cosh(c.out)))])
Acosh = m._unary("Acosh", np.arccosh, m.FC, lambda c, g: [m.divide(g, m.conj(sinh(c.out)))])
Atanh = m._unary("Atanh", np.arctanh, m.FC, lambda c, g: [m.divide(g, _one_minus_square(c.x))])


def _atan2_grad(c: Any, g: Tensor) -> list:
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2), each summed back to its input's shape."""
    y, x = c.inputs
    inverse = m.reciprocal(m.add(m.square(x), m.square(y)))
    return [m.unbroadcast(m.multiply(m.multiply(g, x), inverse), y),
            m.unbroadcast(m.negative(m.multiply(m.multiply(g, y), inverse)), x)]


Atan2 = m._binary("Atan2", np.arctan2, m.F, _atan2_grad)

asin = m._unary_fn(Asin, "The angle whose sine is x (nan outside [-1, 1]).")
acos = m._unary_fn(Acos, "The angle whose cosine is x (nan outside [-1, 1]).")
atan = m._unary_fn(Atan, "The angle whose tangent is x.")
sinh = m._unary_fn(Sinh, "Hyperbolic sine.")
cosh = m._unary_fn(Cosh, "Hyperbolic cosine.")
asinh = m._unary_fn(Asinh, "Inverse hyperbolic sine.")
acosh = m._unary_fn(Acosh, "Inverse hyperbolic cosine (nan below 1).")
atanh = m._unary_fn(Atanh, "Inverse hyperbolic tangent (inf at +-1, nan beyond).")


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of the point (x, y): arctan(y / x) in the right quadrant, in (-pi, pi]."""
    return m.binary_call(Atan2, y, x)


# ---------------------------------------------------------------------------------------------------
# More of tf.strings: strip, regular expressions, numbers as text
# ---------------------------------------------------------------------------------------------------

def _string_op(name: str, kernel: Callable[..., Any], out: dtypes.DType = dtypes.string) -> Any:
    from minitf.core import Op
    from minitf.tensor_shape import TensorShape

    def rule(shapes_: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list:
        return [(shapes_[0], out)]
    return Op(name, kernel, shape=rule)


def _compiled(pattern: bytes, op_name: str) -> Any:
    import re

    from minitf.errors import invalid_argument
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise invalid_argument(op_name, f"Invalid pattern: {pattern.decode(errors='replace')}, error: {exc}\nHint: "
                               "the pattern is a regular expression (RE2 syntax); escape special characters "
                               "with a backslash.") from None


def _strip_kernel(x: Any) -> Any:
    from minitf.strings import _map
    return _map(lambda s: s.strip(b" \t\n\v\f\r"), x)


def _regex_replace_kernel(x: Any, pattern: bytes, rewrite: bytes, replace_global: bool) -> Any:
    from minitf.strings import _map
    regex = _compiled(pattern, "StaticRegexReplace")
    return _map(lambda s: regex.sub(rewrite, s, count=0 if replace_global else 1), x)


def _full_match_kernel(x: Any, pattern: bytes) -> Any:
    from minitf.strings import _map
    regex = _compiled(pattern, "StaticRegexFullMatch")
    return _map(lambda s: regex.fullmatch(s) is not None, x, bool)


StringStrip = _string_op("StringStrip", _strip_kernel)
StaticRegexReplace = _string_op("StaticRegexReplace", _regex_replace_kernel)
StaticRegexFullMatch = _string_op("StaticRegexFullMatch", _full_match_kernel, dtypes.bool)


def _text_input(input: Any, op_name: str) -> Any:  # noqa: A002
    from minitf.strings import _strings
    return _strings(input, op_name)


def _pattern(value: Any, what: str) -> bytes:
    known = static_value(value) if isinstance(value, Tensor) else value
    if known is None:
        raise TypeError(f"minitf needs the {what} as a Python string (or a constant), not a tensor computed inside "
                        "the function.\nHint: pass the pattern as a string literal.")
    return known if isinstance(known, bytes) else str(known).encode()


def strip(input: Any, name: str | None = None) -> Any:  # noqa: A002
    """Each string without its leading and trailing whitespace (ASCII spaces, tabs, newlines)."""
    from minitf.ragged import RaggedTensor
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(strip(input.flat_values))
    from minitf.core import bind
    return bind(StringStrip, _text_input(input, "StringStrip"))


def regex_replace(input: Any, pattern: Any, rewrite: Any, replace_global: bool = True,  # noqa: A002
                  name: str | None = None) -> Any:
    r"""Each match of the regular expression `pattern` replaced by `rewrite` (\1 is the first group); only the
    first match unless replace_global."""
    from minitf.ragged import RaggedTensor
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(regex_replace(input.flat_values, pattern, rewrite, replace_global))
    from minitf.core import bind
    return bind(StaticRegexReplace, _text_input(input, "StaticRegexReplace"), pattern=_pattern(pattern, "pattern"),
                rewrite=_pattern(rewrite, "rewrite"), replace_global=bool(replace_global))


def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> Any:  # noqa: A002
    """Whether each whole string matches the regular expression `pattern` (bools)."""
    from minitf.ragged import RaggedTensor
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(regex_full_match(input.flat_values, pattern))
    from minitf.core import bind
    return bind(StaticRegexFullMatch, _text_input(input, "StaticRegexFullMatch"), pattern=_pattern(pattern, "pattern"))


def _as_string_kernel(x: Any, precision: int, scientific: bool, shortest: bool, width: int, fill: str) -> Any:
    array = np.asarray(x)
    spec = "%" + (fill if fill else "") + (str(width) if width > -1 else "") + \
        (f".{precision}" if precision > -1 else "")
    kind = array.dtype.kind
    if kind in "fc":
        number = spec + ("e" if scientific else "g" if shortest else "f")
        one = (lambda v: f"({number % v.real},{number % v.imag})") if kind == "c" else (lambda v: number % v)
    elif kind == "b":
        def one(v: Any) -> str:
            return (spec + "s") % ("true" if v else "false")
    elif kind in "iu":
        def one(v: Any) -> str:
            return (spec + "d") % v
    else:
        return np.array(x, dtype=object)
    out = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        out[index] = one(array[index]).encode()
    return out


AsString = _string_op("AsString", _as_string_kernel)


def as_string(input: Any, precision: int = -1, scientific: bool = False, shortest: bool = False,  # noqa: A002
              width: int = -1, fill: str = "", name: str | None = None) -> Tensor:
    """Numbers (and bools) as text, formatted as C's printf does: floats with 6 decimals unless `precision`,
    `scientific` (1.5e+00) or `shortest` (%g) say otherwise; `width` pads with `fill` (' ' or '0')."""
    from minitf.core import bind
    x = convert_to_tensor(input)
    if scientific and shortest:
        from minitf.errors import InvalidArgumentError
        raise InvalidArgumentError(None, None, "Cannot select both scientific and shortest notation [Op:AsString]"
                                   "\nHint: choose scientific=True or shortest=True, not both.")
    return bind(AsString, x, precision=int(precision), scientific=bool(scientific), shortest=bool(shortest),
                width=int(width), fill=str(fill))


# ---------------------------------------------------------------------------------------------------
# tf.ragged: row partitions as segment ids and back
# ---------------------------------------------------------------------------------------------------

def row_splits_to_segment_ids(splits: Any, name: str | None = None, out_type: Any = None) -> Tensor:
    """For each value, the row it belongs to: splits [0, 2, 2, 3] give [0, 0, 2]."""
    from minitf.ops.sort_ops import searchsorted
    splits = convert_to_tensor(splits, dtype_hint=dtypes.int64)
    if splits.shape.rank not in (None, 1):  # type: ignore[attr-defined]
        raise ValueError(f"Shape {splits.shape} must have rank 1\nHint: row splits are a vector.")  # type: ignore
    out_type = splits.dtype if out_type is None else dtypes.as_dtype(out_type)  # type: ignore[attr-defined]
    positions = array_ops.range(splits[-1], dtype=splits.dtype)  # type: ignore[index,attr-defined]
    rows = searchsorted(splits[1:], positions, side="right", out_type=out_type)  # type: ignore[index]
    return rows


def segment_ids_to_row_splits(segment_ids: Any, num_segments: Any = None, out_type: Any = None,
                              name: str | None = None) -> Tensor:
    """The row splits of sorted segment ids: [0, 0, 2] (with 3 segments) gives [0, 2, 2, 3]."""
    from minitf.ops.segment_ops import bincount
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int64)
    if ids.shape.rank not in (None, 1):  # type: ignore[attr-defined]
        raise ValueError(f"Shape {ids.shape} must have rank 1\nHint: segment ids are a vector.")  # type: ignore
    out_type = ids.dtype if out_type is None else dtypes.as_dtype(out_type)  # type: ignore[attr-defined]
    lengths = bincount(ids, minlength=num_segments, maxlength=num_segments, dtype=out_type)
    zero = array_ops.zeros([1], dtype=out_type)
    return array_ops.concat([zero, m.cumsum(lengths)], axis=0)
