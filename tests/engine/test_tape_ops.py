"""Every differentiable op's gradient rule, checked three ways.

For each case (an op with particular shapes, axes and flags, broadcasting included):
(a) the gradient for a random output cotangent (`output_gradients`) equals TensorFlow's, with the same
    dtype and shape (so broadcast gradients are summed back to each input's shape);
(b) in float64 it equals central finite differences of <cotangent, f(x)>, element by element;
(c) the second derivative through nested tapes (the rule's own gradient) equals TensorFlow's.
Inputs and cotangents are drawn from a generator seeded by the case's name: the same on every run.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from harness import ENGINES, assert_equal

# RuntimeWarnings of the NumPy the tests compute with themselves (log(0), 0 * inf...) are not what they check.
pytestmark = [pytest.mark.tf, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

minitf = ENGINES["minitf"]
real_tf = ENGINES["tensorflow"]


@dataclass
class Case:
    """One op call: `fn(tf, *inputs)` with inputs of `shapes`, each drawn from its domain."""

    name: str
    fn: Callable[..., Any]
    shapes: Sequence[tuple[int, ...]]
    domains: Sequence[str] = field(default_factory=tuple)  # per input: any | positive | unit | matrix
    dtype: str = "float32"  # dtype of the TensorFlow comparison (finite differences always use float64)
    fd_eps: float = 1e-6
    fd_atol: float = 1e-6
    tf_rtol: float = 2e-5
    # Why a check does not apply (None: it does). Finite differences cannot see tf.stop_gradient, and
    # TensorFlow's own second derivative of some rules leaves out a term.
    not_finite_differences: str | None = None
    not_second_order: str | None = None

    def domain(self, i: int) -> str:
        return self.domains[i] if i < len(self.domains) else "any"


def _rng(name: str, salt: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"{name}/{salt}".encode()))


def draw_inputs(case: Case, dtype: str) -> list[np.ndarray]:
    rng = _rng(case.name, "inputs")
    arrays = []
    for i, shape in enumerate(case.shapes):
        kind = case.domain(i)
        if kind == "positive":
            a = rng.uniform(0.5, 2.0, size=shape)
        elif kind == "unit":
            a = rng.uniform(-0.9, 0.9, size=shape)
        elif kind == "matrix":  # well conditioned: a random matrix plus a multiple of the identity
            a = rng.normal(size=shape) + 3.0 * np.eye(shape[-1])
        else:
            a = rng.normal(size=shape)
        arrays.append(np.asarray(a, dtype=dtype))
    return arrays


def cotangents_for(case: Case, outputs: Any, dtype_of: Callable[[Any], str]) -> Any:
    """A random cotangent shaped like each output (a list for multi-output cases)."""
    rng = _rng(case.name, "cotangent")
    many = isinstance(outputs, list | tuple)
    result = [np.asarray(rng.normal(size=tuple(o.shape)), dtype=dtype_of(o)) for o in (outputs if many else [outputs])]
    return result if many else result[0]


def first_order(tf: Any, case: Case, arrays: list[np.ndarray], cotangent: Any) -> Any:
    xs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = case.fn(tf, *xs)
    seeds = [tf.constant(c) for c in cotangent] if isinstance(cotangent, list) else tf.constant(cotangent)
    return tape.gradient(y, xs, output_gradients=seeds)


def second_order(tf: Any, case: Case, arrays: list[np.ndarray], cotangent: Any, directions: list[np.ndarray]) -> Any:
    """d/dx <v, d<c, f(x)^2>/dx>: differentiates every gradient rule once more.

    Squaring the output makes the cotangent reaching the rule depend on x, so even a linear op's gradient
    op (PadGrad, GatherGrad, ...) needs a gradient of its own.
    """
    xs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as outer:
        outer.watch(xs)
        with tf.GradientTape() as inner:
            inner.watch(xs)
            y = case.fn(tf, *xs)
            y = [tf.square(t) for t in y] if isinstance(y, list | tuple) else tf.square(y)
        seeds = [tf.constant(c) for c in cotangent] if isinstance(cotangent, list) else tf.constant(cotangent)
        grads = inner.gradient(y, xs, output_gradients=seeds)
        grads = [tf.convert_to_tensor(g) for g in grads if g is not None]
        total = tf.add_n([tf.reduce_sum(g * d) for g, d in zip(grads, directions)])
    return outer.gradient(total, xs)


def forward_value(case: Case, arrays: list[np.ndarray], cotangent: Any) -> float:
    """<cotangent, f(x)> evaluated with minitf (its forward ops are checked against TensorFlow elsewhere)."""
    y = case.fn(minitf, *[minitf.constant(a) for a in arrays])
    outputs, seeds = (y, cotangent) if isinstance(y, list | tuple) else ([y], [cotangent])
    return float(sum(np.sum(np.asarray(o.numpy(), dtype=np.float64) * c) for o, c in zip(outputs, seeds)))


def _dtype_name(t: Any) -> str:
    return t.dtype.name


# ---------------------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------------------

BROADCAST_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2)), ((4, 1, 3), (2, 1))]


def _binary_cases() -> list[Case]:
    ops = {
        "add": (lambda tf, x, y: tf.add(x, y), ("any", "any")),
        "subtract": (lambda tf, x, y: x - y, ("any", "any")),
        "multiply": (lambda tf, x, y: tf.multiply(x, y), ("any", "any")),
        "divide": (lambda tf, x, y: x / y, ("any", "positive")),
        "pow": (lambda tf, x, y: tf.pow(x, y), ("positive", "any")),
        "maximum": (lambda tf, x, y: tf.maximum(x, y), ("any", "any")),
        "minimum": (lambda tf, x, y: tf.minimum(x, y), ("any", "any")),
        "squared_difference": (lambda tf, x, y: tf.math.squared_difference(x, y), ("any", "any")),
        "floormod": (lambda tf, x, y: tf.math.floormod(x, y), ("any", "positive")),
    }
    return [
        Case(f"{name}{list(a)}{list(b)}", fn, (a, b), domains)
        for name, (fn, domains) in ops.items()
        for a, b in BROADCAST_PAIRS
    ]


def _unary_cases() -> list[Case]:
    ops = {
        "negative": (lambda tf, x: tf.negative(x), "any"),
        "abs": (lambda tf, x: tf.abs(x), "any"),
        "sign": (lambda tf, x: tf.sign(x) * x, "any"),
        "square": (lambda tf, x: tf.square(x), "any"),
        "sqrt": (lambda tf, x: tf.sqrt(x), "positive"),
        "exp": (lambda tf, x: tf.exp(x), "any"),
        "log": (lambda tf, x: tf.math.log(x), "positive"),
        "sin": (lambda tf, x: tf.sin(x), "any"),
        "cos": (lambda tf, x: tf.cos(x), "any"),
        "tan": (lambda tf, x: tf.math.tan(x), "unit"),
        "tanh": (lambda tf, x: tf.tanh(x), "any"),
        "sigmoid": (lambda tf, x: tf.sigmoid(x), "any"),
        "relu": (lambda tf, x: tf.nn.relu(x), "any"),
        "leaky_relu": (lambda tf, x: tf.nn.leaky_relu(x), "any"),
        "elu": (lambda tf, x: tf.nn.elu(x), "any"),
        "softplus": (lambda tf, x: tf.nn.softplus(x), "any"),
        "reciprocal": (lambda tf, x: tf.math.reciprocal(x), "positive"),
        "rsqrt": (lambda tf, x: tf.math.rsqrt(x), "positive"),
        "log1p": (lambda tf, x: tf.math.log1p(x), "positive"),
        "expm1": (lambda tf, x: tf.math.expm1(x), "any"),
        "identity": (lambda tf, x: tf.identity(x), "any"),
        "real": (lambda tf, x: tf.math.real(x), "any"),
        "conj": (lambda tf, x: tf.math.conj(x), "any"),
        "l2_loss": (lambda tf, x: tf.nn.l2_loss(x), "any"),
    }
    return [
        Case(f"{name}{list(shape)}", fn, (shape,), (domain,))
        for name, (fn, domain) in ops.items()
        for shape in [(), (2, 3)]
    ]


def _reduction_cases() -> list[Case]:
    reductions = {
        "reduce_sum": lambda tf: tf.reduce_sum,
        "reduce_mean": lambda tf: tf.reduce_mean,
        "reduce_max": lambda tf: tf.reduce_max,
        "reduce_min": lambda tf: tf.reduce_min,
        "reduce_prod": lambda tf: tf.reduce_prod,
        "reduce_logsumexp": lambda tf: tf.reduce_logsumexp,
        "reduce_std": lambda tf: tf.math.reduce_std,
        "reduce_variance": lambda tf: tf.math.reduce_variance,
        "reduce_euclidean_norm": lambda tf: tf.math.reduce_euclidean_norm,
    }
    variants = [
        ((2, 3, 2), None, False),
        ((2, 3, 2), 1, False),
        ((2, 3, 2), [0, 2], True),
        ((2, 3, 2), -1, True),
        ((4,), 0, False),
    ]
    cases = []
    for name, get in reductions.items():
        for shape, axis, keep in variants:

            def fn(tf: Any, x: Any, get: Any = get, axis: Any = axis, keep: bool = keep) -> Any:
                return get(tf)(x, axis=axis, keepdims=keep)

            cases.append(Case(f"{name}{list(shape)}axis={axis},keepdims={keep}", fn, (shape,)))
    return cases


def _nn_cases() -> list[Case]:
    labels = np.array([2, 0, 1])
    return [
        Case("softmax[3,4]", lambda tf, x: tf.nn.softmax(x), ((3, 4),)),
        Case("softmax[3,4]axis=0", lambda tf, x: tf.nn.softmax(x, axis=0), ((3, 4),)),
        Case("log_softmax[3,4]", lambda tf, x: tf.nn.log_softmax(x), ((3, 4),)),
        Case("log_softmax[2,3,2]axis=1", lambda tf, x: tf.nn.log_softmax(x, axis=1), ((2, 3, 2),)),
        Case(
            "softmax_cross_entropy_with_logits[3,4]",
            lambda tf, labels, logits: tf.nn.softmax_cross_entropy_with_logits(
                labels=tf.nn.softmax(labels), logits=logits
            ),
            ((3, 4), (3, 4)),
            not_second_order="TensorFlow's SoftmaxCrossEntropyWithLogits rule sends the second-order term only "
            "to the logits, so its labels-logits cross derivative differs from the true one",
        ),
        Case(
            "softmax_cross_entropy_with_logits[3,4]fixed_labels",
            lambda tf, logits: tf.nn.softmax_cross_entropy_with_logits(
                labels=tf.nn.softmax(tf.constant(np.linspace(-1.0, 1.0, 12).reshape(3, 4), dtype=logits.dtype)),
                logits=logits,
            ),
            ((3, 4),),
        ),
        Case(
            "sparse_softmax_cross_entropy_with_logits[3,4]",
            lambda tf, logits: tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.constant(labels), logits=logits
            ),
            ((3, 4),),
        ),
    ]


def _elementwise_special_cases() -> list[Case]:
    condition = np.array([[True, False, True], [False, False, True]])
    return [
        Case("cumsum[5]", lambda tf, x: tf.cumsum(x), ((5,),)),
        Case("cumsum[2,3]axis=1,exclusive", lambda tf, x: tf.cumsum(x, axis=1, exclusive=True), ((2, 3),)),
        Case("cumsum[2,3]axis=0,reverse", lambda tf, x: tf.cumsum(x, axis=0, reverse=True), ((2, 3),)),
        Case(
            "cumsum[2,3]axis=-1,exclusive,reverse",
            lambda tf, x: tf.cumsum(x, axis=-1, exclusive=True, reverse=True),
            ((2, 3),),
        ),
        Case("cumprod[4]", lambda tf, x: tf.math.cumprod(x), ((4,),)),
        Case(
            "cumprod[2,3]axis=1,exclusive,reverse",
            lambda tf, x: tf.math.cumprod(x, axis=1, exclusive=True, reverse=True),
            ((2, 3),),
        ),
        Case("clip_by_value[2,3]", lambda tf, x: tf.clip_by_value(x, -0.5, 0.7), ((2, 3),)),
        Case(
            "clip_by_value[2,3]tensor_bounds",
            lambda tf, x, lo, hi: tf.clip_by_value(x, lo - 1.0, hi + 1.0),
            ((2, 3), (2, 3), (3,)),
        ),
        Case("where[2,3]", lambda tf, x, y: tf.where(tf.constant(condition), x, y), ((2, 3), (2, 3))),
        Case("where[2,3]broadcast", lambda tf, x, y: tf.where(tf.constant(condition), x, y), ((3,), (2, 1))),
        Case("where[2,3]scalar_branch", lambda tf, x, y: tf.where(tf.constant(condition), x, y), ((2, 3), ())),
        Case("cast float32->float64", lambda tf, x: tf.cast(x, tf.float64) * 1.5, ((2, 3),), fd_eps=1e-3, fd_atol=1e-3),
        Case(
            "cast float64->float32",
            lambda tf, x: tf.cast(x, tf.float32) * 1.5,
            ((2, 3),),
            dtype="float64",
            fd_eps=1e-3,
            fd_atol=1e-3,
        ),
        Case(
            "cast float32->float16->float32",
            lambda tf, x: tf.cast(tf.cast(x, tf.float16), tf.float32),
            ((3,),),
            fd_eps=1e-1,
            fd_atol=1e-1,
        ),
    ]


def _linalg_cases() -> list[Case]:
    cases = [
        Case("matmul[2,3][3,4]", lambda tf, a, b: tf.matmul(a, b), ((2, 3), (3, 4))),
        Case("matmul[3,2][3,4]transpose_a", lambda tf, a, b: tf.matmul(a, b, transpose_a=True), ((3, 2), (3, 4))),
        Case("matmul[2,3][4,3]transpose_b", lambda tf, a, b: tf.matmul(a, b, transpose_b=True), ((2, 3), (4, 3))),
        Case(
            "matmul[3,2][4,3]transpose_both",
            lambda tf, a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
            ((3, 2), (4, 3)),
        ),
        Case("matmul[2,2,3][2,3,4]batched", lambda tf, a, b: tf.matmul(a, b), ((2, 2, 3), (2, 3, 4))),
        Case("matmul[2,1,2,3][3,3,2]broadcast_batch", lambda tf, a, b: tf.matmul(a, b), ((2, 1, 2, 3), (3, 3, 2))),
        Case(
            "matmul[2,3,2][3,4]batch_and_matrix_transpose_a",
            lambda tf, a, b: tf.matmul(a, b, transpose_a=True),
            ((2, 3, 2), (3, 4)),
        ),
        Case(
            "matmul[2,2,3][2,4,3]batched_transpose_b",
            lambda tf, a, b: tf.matmul(a, b, transpose_b=True),
            ((2, 2, 3), (2, 4, 3)),
        ),
        Case("operator@[2,3][3,2]", lambda tf, a, b: a @ b, ((2, 3), (3, 2))),
        Case("inv[3,3]", lambda tf, a: tf.linalg.inv(a), ((3, 3),), ("matrix",), dtype="float64"),
        Case("inv[2,3,3]", lambda tf, a: tf.linalg.inv(a), ((2, 3, 3),), ("matrix",), dtype="float64"),
        Case("det[3,3]", lambda tf, a: tf.linalg.det(a), ((3, 3),), ("matrix",), dtype="float64"),
        Case("det[2,2,2]", lambda tf, a: tf.linalg.det(a), ((2, 2, 2),), ("matrix",), dtype="float64"),
        Case(
            "solve[3,3][3,2]",
            lambda tf, a, b: tf.linalg.solve(a, b),
            ((3, 3), (3, 2)),
            ("matrix", "any"),
            dtype="float64",
        ),
        Case(
            "solve[2,2,2][2,2,1]",
            lambda tf, a, b: tf.linalg.solve(a, b),
            ((2, 2, 2), (2, 2, 1)),
            ("matrix", "any"),
            dtype="float64",
        ),
        Case("norm[2,3]", lambda tf, x: tf.norm(x), ((2, 3),)),
        Case("norm[2,3]axis=1", lambda tf, x: tf.norm(x, axis=1), ((2, 3),)),
        Case("norm[2,3]ord=1,axis=0,keepdims", lambda tf, x: tf.norm(x, ord=1, axis=0, keepdims=True), ((2, 3),)),
        Case("norm[4]ord=inf", lambda tf, x: tf.norm(x, ord=np.inf), ((4,),)),
        Case("tensordot[2,3][3,4]axes=1", lambda tf, a, b: tf.tensordot(a, b, axes=1), ((2, 3), (3, 4))),
        Case("tensordot[2,3,2][3,2,4]axes=2", lambda tf, a, b: tf.tensordot(a, b, axes=2), ((2, 3, 2), (3, 2, 4))),
        Case(
            "tensordot[2,3][4,2]axes=[[0],[1]]", lambda tf, a, b: tf.tensordot(a, b, axes=[[0], [1]]), ((2, 3), (4, 2))
        ),
        Case("tensordot[2][3]axes=0", lambda tf, a, b: tf.tensordot(a, b, axes=0), ((2,), (3,))),
    ]
    return cases


def _shape_cases() -> list[Case]:
    mask1 = np.array([True, False, True])
    mask2 = np.array([[True, False, True], [False, True, True]])
    return [
        Case("transpose[2,3]", lambda tf, x: tf.transpose(x), ((2, 3),)),
        Case("transpose[2,3,4]perm", lambda tf, x: tf.transpose(x, perm=[1, 2, 0]), ((2, 3, 4),)),
        Case("reshape[2,3]->[3,-1]", lambda tf, x: tf.reshape(x, [3, -1]), ((2, 3),)),
        Case("reshape[1]->[]", lambda tf, x: tf.reshape(x, []), ((1,),)),
        Case("expand_dims[2,3]axis=1", lambda tf, x: tf.expand_dims(x, 1), ((2, 3),)),
        Case("expand_dims[]axis=-1", lambda tf, x: tf.expand_dims(x, -1), ((),)),
        Case("squeeze[2,1,3,1]", lambda tf, x: tf.squeeze(x), ((2, 1, 3, 1),)),
        Case("squeeze[2,1,3,1]axis=3", lambda tf, x: tf.squeeze(x, axis=3), ((2, 1, 3, 1),)),
        Case("concat axis=0", lambda tf, a, b: tf.concat([a, b], axis=0), ((2, 3), (1, 3))),
        Case("concat three axis=-1", lambda tf, a, b, c: tf.concat([a, b, c], axis=-1), ((2, 1), (2, 3), (2, 2))),
        Case("stack axis=0", lambda tf, a, b: tf.stack([a, b]), ((2, 3), (2, 3))),
        Case("stack axis=2", lambda tf, a, b, c: tf.stack([a, b, c], axis=2), ((2, 3), (2, 3), (2, 3))),
        Case("unstack[3,2]", lambda tf, x: tf.unstack(x), ((3, 2),)),
        Case("unstack[2,3]axis=1,partly_used", lambda tf, x: [tf.unstack(x, axis=1)[i] for i in (0, 2)], ((2, 3),)),
        Case("split[6,2]num=3", lambda tf, x: tf.split(x, 3), ((6, 2),)),
        Case("split[2,5]sizes,axis=1,partly_used", lambda tf, x: tf.split(x, [1, 3, 1], axis=1)[1:], ((2, 5),)),
        Case("tile[2,3]", lambda tf, x: tf.tile(x, [2, 3]), ((2, 3),)),
        Case("tile[3]", lambda tf, x: tf.tile(x, [4]), ((3,),)),
        Case("gather[4,3]", lambda tf, x: tf.gather(x, [3, 0, 3]), ((4, 3),)),
        Case("gather[2,4]axis=1", lambda tf, x: tf.gather(x, [1, 1, 2], axis=1), ((2, 4),)),
        Case("gather[5]2d_indices", lambda tf, x: tf.gather(x, [[0, 4], [4, 4]]), ((5,),)),
        Case("boolean_mask[3]", lambda tf, x: tf.boolean_mask(x, mask1), ((3,),)),
        Case("boolean_mask[3,2]", lambda tf, x: tf.boolean_mask(x, mask1), ((3, 2),)),
        Case("boolean_mask[2,3]2d_mask", lambda tf, x: tf.boolean_mask(x, mask2), ((2, 3),)),
        Case("reverse[2,3]axis=1", lambda tf, x: tf.reverse(x, [1]), ((2, 3),)),
        Case("reverse[2,3]both", lambda tf, x: tf.reverse(x, [0, -1]), ((2, 3),)),
        Case("pad[2,3]constant", lambda tf, x: tf.pad(x, [[1, 0], [2, 1]]), ((2, 3),)),
        Case("pad[2,3]constant_value", lambda tf, x: tf.pad(x, [[0, 1], [1, 1]], constant_values=2.0), ((2, 3),)),
        Case("pad[3,3]reflect", lambda tf, x: tf.pad(x, [[1, 2], [2, 1]], mode="REFLECT"), ((3, 3),)),
        Case("pad[2,3]symmetric", lambda tf, x: tf.pad(x, [[2, 1], [1, 3]], mode="SYMMETRIC"), ((2, 3),)),
        Case("slice[4,3][1:3]", lambda tf, x: x[1:3], ((4, 3),)),
        Case("slice[4,3][::-2,1]", lambda tf, x: x[::-2, 1], ((4, 3),)),
        Case("slice[4,3][-1]", lambda tf, x: x[-1], ((4, 3),)),
        Case("slice[2,3,4][...,None,1:]", lambda tf, x: x[..., None, 1:], ((2, 3, 4),)),
        Case("slice[2,3,4][0,:,-1]", lambda tf, x: x[0, :, -1], ((2, 3, 4),)),
        Case("slice[4][5:]empty", lambda tf, x: x[5:] * 2.0 + tf.reduce_sum(x), ((4,),)),
        Case("broadcast_to[3]->[2,3]", lambda tf, x: tf.broadcast_to(x, [2, 3]), ((3,),)),
        Case("broadcast_to[2,1]->[3,2,4]", lambda tf, x: tf.broadcast_to(x, [3, 2, 4]), ((2, 1),)),
        Case("fill", lambda tf, x: tf.fill([2, 3], x), ((),)),
        Case("linspace", lambda tf, a, b: tf.linspace(a, b, 4), ((), ())),
        Case("linspace num=1", lambda tf, a, b: tf.linspace(a, b, 1), ((), ())),
        Case(
            "stop_gradient",
            lambda tf, x, y: tf.stop_gradient(x) * y + x,
            ((2,), (2,)),
            not_finite_differences="finite differences see through tf.stop_gradient",
        ),
    ]


def _composition_cases() -> list[Case]:
    """A few ops chained, with a variable, so that rules meet each other and the variable path."""
    return [
        Case("dense layer", lambda tf, x, w, b: tf.nn.relu(tf.matmul(x, w) + b), ((4, 3), (3, 2), (2,))),
        Case(
            "mse of a linear model",
            lambda tf, x, w, y: tf.reduce_mean(tf.square(tf.matmul(x, w) - y)),
            ((5, 2), (2, 1), (5, 1)),
        ),
        Case("same input twice", lambda tf, x: x * x + tf.sin(x) * x, ((3,),)),
    ]


CASES = (
    _binary_cases()
    + _unary_cases()
    + _reduction_cases()
    + _nn_cases()
    + _elementwise_special_cases()
    + _linalg_cases()
    + _shape_cases()
    + _composition_cases()
)
BY_NAME = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES), "case names must be unique"


# ---------------------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------------------


def _float64(case: Case) -> tuple[list[np.ndarray], Any]:
    arrays = draw_inputs(case, "float64")
    outputs = case.fn(minitf, *[minitf.constant(a) for a in arrays])
    cotangent = cotangents_for(case, outputs, _dtype_name)
    return arrays, cotangent


def check_first_order_against_tensorflow(case: Case) -> None:
    """(a) The gradient for a random cotangent equals TensorFlow's."""
    arrays = draw_inputs(case, case.dtype)
    outputs = case.fn(real_tf, *[real_tf.constant(a) for a in arrays])
    cotangent = cotangents_for(case, outputs, _dtype_name)
    expected = first_order(real_tf, case, arrays, cotangent)
    actual = first_order(minitf, case, arrays, cotangent)
    tolerance = case.tf_rtol if case.dtype == "float32" else 1e-10
    assert_equal(actual, expected, case.name, rtol=tolerance, atol=tolerance, text=False)


def check_central_differences(case: Case) -> None:
    """(b) In float64 the gradient equals central finite differences, element by element."""
    arrays, cotangent = _float64(case)
    grads = first_order(minitf, case, arrays, cotangent)
    eps = case.fd_eps
    for i, a in enumerate(arrays):
        numeric = np.zeros(a.shape)
        for index in np.ndindex(a.shape):
            plus, minus = [b.copy() for b in arrays], [b.copy() for b in arrays]
            plus[i][index] += eps
            minus[i][index] -= eps
            numeric[index] = (forward_value(case, plus, cotangent) - forward_value(case, minus, cotangent)) / (2 * eps)
        analytic = np.zeros(a.shape) if grads[i] is None else minitf.convert_to_tensor(grads[i]).numpy()
        assert grads[i] is None or grads[i].dtype.name == "float64", f"{case.name}: input {i} gradient dtype"
        np.testing.assert_allclose(
            analytic, numeric, rtol=1e-5, atol=case.fd_atol, err_msg=f"{case.name}: gradient of input {i}"
        )


def check_second_order_against_tensorflow(case: Case) -> None:
    """(c) The second derivative through nested tapes equals TensorFlow's."""
    arrays, cotangent = _float64(case)
    rng = _rng(case.name, "direction")
    directions = [rng.normal(size=a.shape) for a in arrays]
    expected_first = first_order(real_tf, case, arrays, cotangent)
    connected = [d for d, g in zip(directions, expected_first) if g is not None]
    expected = second_order(real_tf, case, arrays, cotangent, connected)
    actual = second_order(minitf, case, arrays, cotangent, connected)
    assert_equal(actual, expected, case.name, rtol=1e-9, atol=1e-10, text=False)


@pytest.mark.parametrize("name", list(BY_NAME))
def test_gradient_matches_tensorflow_for_a_random_cotangent(name: str) -> None:
    check_first_order_against_tensorflow(BY_NAME[name])


@pytest.mark.parametrize("name", [c.name for c in CASES if c.not_finite_differences is None])
def test_gradient_matches_central_differences_in_float64(name: str) -> None:
    check_central_differences(BY_NAME[name])


@pytest.mark.sample(45)
@pytest.mark.parametrize("name", [c.name for c in CASES if c.not_second_order is None])
def test_second_order_matches_tensorflow(name: str) -> None:
    check_second_order_against_tensorflow(BY_NAME[name])
