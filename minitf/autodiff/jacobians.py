"""`GradientTape.jacobian` and `GradientTape.batch_jacobian`: one backward pass per entry of the target.

Each pass seeds the tape's backward walk (`GradientTape._backward`, minitf/autodiff/tape.py) with a one-hot cotangent
and keeps the gradient of every source: row i of the Jacobian. Eagerly, and traced with known shapes, the passes run in
a Python loop. With an unknown number of entries (an input_signature with None) that loop cannot be unrolled while
tracing, so it becomes a `tf.while_loop` whose body is one backward pass seeded with the one-hot row of entry `i`,
writing each gradient into a TensorArray, as TensorFlow's fallback for `pfor` does. The result's static shape is
what TensorFlow's shows: the target's static shape followed by the source's (for batch_jacobian, the source's
without its batch dimension).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from minitf.autodiff.tape import JACOBIANS, GradientTape
from minitf.autodiff.tape_arguments import UnconnectedGradients, differentiable, numpy_scalar, unconnected
from minitf.composite.indexed_slices import dense
from minitf.core import nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.op import bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.control_flow.loops import while_loop
from minitf.function.control_flow.tensor_array import TensorArray
from minitf.function.tracing.graph import SymbolicTensor
from minitf.ops.array.creation import constant, zeros, zeros_like
from minitf.ops.array.creation import range as tf_range
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import expand_dims, reshape, shape, size, transpose
from minitf.ops.math.cast import cast as tf_cast
from minitf.ops.math.comparisons import equal
from minitf.ops.math.elementwise import ReshapeLike
from minitf.ops.math.reductions import reduce_sum


def jacobian(
    tape: GradientTape,
    target: Any,
    sources: Any,
    unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
    parallel_iterations: int | None = None,
    experimental_use_pfor: bool = True,
) -> Any:
    """`tape.jacobian(target, sources)`: d target[i] / d source[j] for every i and j, in the sources' structure;
    shape = target.shape + source.shape. One backward pass per element of the target, each seeded with a one-hot
    cotangent."""
    if not experimental_use_pfor and not tape._persistent:
        raise RuntimeError(
            "GradientTape must be created with persistent=True to compute the jacobian with eager "
            "execution enabled and with  experimental_use_pfor set to False.\nHint: use "
            "tf.GradientTape(persistent=True), or leave experimental_use_pfor at True."
        )
    tape._begin_answer()
    connect = unconnected(unconnected_gradients)
    target = differentiable(target, "target")
    flat_sources = [differentiable(s, "source") for s in nest.flatten(sources)]
    if state.graph is not None and needs_loop(target, *flat_sources):  # unknown sizes: a graph loop
        looped = _jacobian_in_loop(tape, target, flat_sources, connect is UnconnectedGradients.NONE)
        tape._end_answer()
        return nest.pack_sequence_as(sources, looped)
    target_shape = target.shape.as_list()
    n = int(np.prod(target_shape))
    rows: list[list[Any]] = [[] for _ in flat_sources]
    connected = [False for _ in flat_sources]
    for i in range(n):
        seed = np.zeros(n, dtype=target.dtype._np)
        seed[i] = 1
        grads = tape._backward([target], [seed.reshape(target_shape)])
        for k, s in enumerate(flat_sources):
            connected[k] = connected[k] or tape._source_gradient(grads, s, UnconnectedGradients.NONE) is not None
            rows[k].append(dense(tape._source_gradient(grads, s, UnconnectedGradients.ZERO)))
    result: list[Tensor | None] = []
    for k, s in enumerate(flat_sources):
        if not connected[k] and connect is UnconnectedGradients.NONE:
            result.append(None)
            continue
        full_shape = target_shape + s.shape.as_list()
        stacked = stack(rows[k]) if n else zeros(full_shape, dtype=s.dtype)
        result.append(numpy_scalar(reshape(stacked, full_shape)))
    tape._end_answer()
    return nest.pack_sequence_as(sources, result)


def batch_jacobian(
    tape: GradientTape,
    target: Any,
    source: Any,
    unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
    parallel_iterations: int | None = None,
    experimental_use_pfor: bool = True,
) -> Any:
    """`tape.batch_jacobian(target, source)`: the Jacobian of each example, [batch, target dims, source dims].

    As in TensorFlow, examples are assumed independent: one backward pass per target entry j seeds
    entry j of *every* example at once, so d target[b, j] / d source[b', ...] for b != b' is added in.
    """
    target = differentiable(target, "target")
    if target.shape.rank == 0:
        raise IndexError(
            "list index out of range\nHint: batch_jacobian needs a target of shape [batch, ...] "
            "(rank >= 2); for a scalar target use tape.gradient or tape.jacobian."
        )
    for t in (target, source):
        if t.shape.rank < 2:
            raise ValueError(
                f"Shape {t.shape} must have rank at least 2\nHint: batch_jacobian wants target "
                f"and source of shape [batch, ...] with at least one more axis; use tape.jacobian "
                f"otherwise."
            )
    if None not in (target.shape[0], source.shape[0]) and target.shape[0] != source.shape[0]:
        raise ValueError(
            f"Need first dimension of target shape ({target.shape}) and source shape ({source.shape}) to match."
        )
    if not experimental_use_pfor and not tape._persistent:
        raise RuntimeError(
            "GradientTape must be created with persistent=True to compute the batch_jacobian with "
            "eager execution enabled and  with experimental_use_pfor set to False.\nHint: use "
            "tf.GradientTape(persistent=True), or leave experimental_use_pfor at True."
        )
    tape._begin_answer()
    unconnected(unconnected_gradients)  # validated; TensorFlow's batch_jacobian gives zeros either way
    if state.graph is not None and needs_loop(target, source):  # unknown sizes: a graph loop
        looped = _batch_jacobian_in_loop(tape, target, source)
        tape._end_answer()
        return looped
    target_shape, source_shape = target.shape.as_list(), source.shape.as_list()
    batch = target_shape[0]
    row_size = int(np.prod(target_shape[1:]))
    columns: list[Tensor] = []
    connected = False
    for j in range(row_size):
        seed = np.zeros((batch, row_size), dtype=target.dtype._np)
        seed[:, j] = 1
        grads = tape._backward([target], [seed.reshape(target_shape)])
        g = tape._source_gradient(grads, source, UnconnectedGradients.NONE)
        connected = connected or g is not None
        columns.append(zeros(source_shape, dtype=source.dtype) if g is None else dense(g))
    tape._end_answer()
    full_shape = target_shape + source_shape[1:]
    if not connected or not columns:
        return zeros(full_shape, dtype=target.dtype)  # even for UnconnectedGradients.NONE, as in TensorFlow
    return reshape(stack(columns, axis=1), full_shape)


def needs_loop(*tensors: Any) -> bool:
    """Whether some shape is only known when the function runs."""
    return any(not t.shape.is_fully_defined() for t in tensors)


def _rows_in_loop(
    count: Tensor, seed_of: Callable[[Tensor], Tensor], tape: GradientTape, target: Tensor, sources: list[Any]
) -> tuple[list[Tensor], list[bool]]:
    """For i in range(count): the gradients of `target` seeded with `seed_of(i)` with respect to each source,
    stacked along a new first axis; and whether each source is connected to the target at all."""
    templates = [TensorArray(s.dtype, size=0, dynamic_size=True) for s in sources]
    connected = [False] * len(sources)

    def body(i: Tensor, *stacks: Tensor) -> tuple:
        grads = tape._backward([target], [seed_of(i)])
        rows = []
        for k, s in enumerate(sources):
            g = tape._source_gradient(grads, s, UnconnectedGradients.NONE)
            connected[k] = connected[k] or g is not None
            rows.append(zeros_like(s) if g is None else convert_to_tensor(dense(g)))
        arrays = [TensorArray._from_stack(st, like) for st, like in zip(stacks, templates)]
        return (i + 1,) + tuple(a.write(i, r)._stack for a, r in zip(arrays, rows))

    start = (constant(0),) + tuple(t._stack for t in templates)
    invariants = [TensorShape([])] + [TensorShape(None)] * len(templates)
    stacked = list(while_loop(lambda i, *stacks: i < count, body, start, shape_invariants=invariants))[1:]
    return stacked, connected


def _reshaped_like(x: Tensor, like: Tensor) -> Tensor:
    """`x`'s values in `like`'s shape, known only at run time (minitf's Reshape takes static sizes)."""
    return bind(ReshapeLike, x, like)


def _outer_shaped(leading: Tensor, trailing: Tensor, dtype: Any) -> Tensor:
    """Zeros of shape leading.shape + trailing.shape (by broadcasting, so unknown sizes are fine)."""
    a, b = zeros_like(leading, dtype=dtype), zeros_like(trailing, dtype=dtype)
    for _ in range(cast(int, trailing.shape.rank)):  # ranks are known (_ranks_known)
        a = expand_dims(a, -1)
    for _ in range(cast(int, leading.shape.rank)):
        b = expand_dims(b, 0)
    return a + b


def _ranks_known(*tensors: Any) -> None:
    if any(t.shape.rank is None for t in tensors):
        raise ValueError(
            "minitf computes a Jacobian inside tf.function only for tensors of known rank.\nHint: give "
            "the input_signature a shape such as [None, 3] instead of None."
        )


def _jacobian_in_loop(tape: GradientTape, target: Tensor, sources: list[Any], unconnected_none: bool) -> list[Any]:
    """`tape.jacobian(target, sources)` with shapes known only at run time: one list entry per source."""
    _ranks_known(target, *sources)
    count = size(target)

    def seed_of(i: Tensor) -> Tensor:
        return _reshaped_like(tf_cast(equal(tf_range(count), i), target.dtype), target)

    stacked, connected = _rows_in_loop(count, seed_of, tape, target, sources)
    result: list[Any] = []
    for s, rows, linked in zip(sources, stacked, connected):
        like = _outer_shaped(convert_to_tensor(target), convert_to_tensor(s), rows.dtype)
        if not linked:  # None, or zeros that depend on no input (as TensorFlow's)
            result.append(None if unconnected_none else like)
            continue
        out = _reshaped_like(rows, like)
        cast(SymbolicTensor, out).set_shape(target.shape.concatenate(s.shape))  # traced: the loop's result
        result.append(out)
    return result


def _batch_jacobian_in_loop(tape: GradientTape, target: Tensor, source: Tensor) -> Tensor:
    """`tape.batch_jacobian(target, source)` with shapes known only at run time: [batch, target dims...,
    source dims...], one backward pass per entry of a target row, seeded in every example at once."""
    _ranks_known(target, source)
    count = size(target)
    known_row = target.shape[1:].num_elements()
    row_size = constant(known_row) if known_row is not None else count // shape(target)[0]

    def seed_of(j: Tensor) -> Tensor:
        return _reshaped_like(tf_cast(equal(tf_range(count) % row_size, j), target.dtype), target)

    (rows,), (linked,) = _rows_in_loop(row_size, seed_of, tape, target, [source])
    like = _outer_shaped(convert_to_tensor(target), reduce_sum(zeros_like(source), axis=0), target.dtype)
    if not linked:  # zeros even when unconnected, as TensorFlow's batch_jacobian gives
        out = like
    else:  # rows: [row_size, batch, source dims...] -> [batch, row_size, source dims...] -> target + source dims
        batch_first = transpose(rows, [1, 0] + list(range(2, cast(int, source.shape.rank) + 1)))
        out = _reshaped_like(batch_first, like)
    cast(SymbolicTensor, out).set_shape(target.shape.concatenate(source.shape[1:]))  # traced
    return out


JACOBIANS.provide(jacobian=jacobian, batch_jacobian=batch_jacobian)
