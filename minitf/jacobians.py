"""Jacobians inside a tf.function when a shape is unknown (an input_signature with None).

Eagerly, and traced with known shapes, `GradientTape.jacobian` runs one backward pass per target entry in a
Python loop (minitf/tape.py). With an unknown number of entries that loop cannot be unrolled while tracing,
so here it becomes a `tf.while_loop` whose body is one backward pass seeded with the one-hot row of entry
`i`, writing each gradient into a TensorArray, as TensorFlow's fallback for `pfor` does. The result's static
shape is what TensorFlow's shows: the target's static shape followed by the source's (for batch_jacobian,
the source's without its batch dimension).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from minitf.indexed_slices import dense
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape

if TYPE_CHECKING:
    from minitf.function.symbolic_tensor import SymbolicTensor


def needs_loop(*tensors: Any) -> bool:
    """Whether some shape is only known when the function runs."""
    return any(not t.shape.is_fully_defined() for t in tensors)


def _rows_in_loop(count: Tensor, seed_of: Callable[[Tensor], Tensor], tape: Any, target: Tensor,
                  sources: list[Any]) -> tuple[list[Tensor], list[bool]]:
    """For i in range(count): the gradients of `target` seeded with `seed_of(i)` with respect to each source,
    stacked along a new first axis; and whether each source is connected to the target at all."""
    import minitf as tf
    from minitf.function.control_flow import TensorArray
    from minitf.tape import UnconnectedGradients

    templates = [TensorArray(s.dtype, size=0, dynamic_size=True) for s in sources]
    connected = [False] * len(sources)

    def body(i: Tensor, *stacks: Tensor) -> tuple:
        grads = tape._backward([target], [seed_of(i)])
        rows = []
        for k, s in enumerate(sources):
            g = tape._source_gradient(grads, s, UnconnectedGradients.NONE)
            connected[k] = connected[k] or g is not None
            rows.append(tf.zeros_like(s) if g is None else tf.convert_to_tensor(dense(g)))
        arrays = [TensorArray._from_stack(st, like) for st, like in zip(stacks, templates)]
        return (i + 1,) + tuple(a.write(i, r)._stack for a, r in zip(arrays, rows))

    start = (tf.constant(0),) + tuple(t._stack for t in templates)
    invariants = [TensorShape([])] + [TensorShape(None)] * len(templates)
    stacked = list(tf.while_loop(lambda i, *stacks: i < count, body, start, shape_invariants=invariants))[1:]
    return stacked, connected


def _reshaped_like(x: Tensor, like: Tensor) -> Tensor:
    """`x`'s values in `like`'s shape, known only at run time (minitf's Reshape takes static sizes)."""
    from minitf.core import bind
    from minitf.ops.math_ops import ReshapeLike
    return bind(ReshapeLike, x, like)


def _outer_shaped(leading: Tensor, trailing: Tensor, dtype: Any) -> Tensor:
    """Zeros of shape leading.shape + trailing.shape (by broadcasting, so unknown sizes are fine)."""
    import minitf as tf
    a, b = tf.zeros_like(leading, dtype=dtype), tf.zeros_like(trailing, dtype=dtype)
    for _ in range(cast(int, trailing.shape.rank)):  # ranks are known (_ranks_known)
        a = tf.expand_dims(a, -1)
    for _ in range(cast(int, leading.shape.rank)):
        b = tf.expand_dims(b, 0)
    return a + b


def _ranks_known(*tensors: Any) -> None:
    if any(t.shape.rank is None for t in tensors):
        raise ValueError("minitf computes a Jacobian inside tf.function only for tensors of known rank.\nHint: give "
                         "the input_signature a shape such as [None, 3] instead of None.")


def jacobian(tape: Any, target: Tensor, sources: list[Any], unconnected_none: bool) -> list[Any]:
    """`tape.jacobian(target, sources)` with shapes known only at run time: one list entry per source."""
    import minitf as tf
    _ranks_known(target, *sources)
    size = tf.size(target)

    def seed_of(i: Tensor) -> Tensor:
        return _reshaped_like(tf.cast(tf.equal(tf.range(size), i), target.dtype), target)

    stacked, connected = _rows_in_loop(size, seed_of, tape, target, sources)
    result: list[Any] = []
    for s, rows, linked in zip(sources, stacked, connected):
        like = _outer_shaped(tf.convert_to_tensor(target), tf.convert_to_tensor(s), rows.dtype)
        if not linked:  # None, or zeros that depend on no input (as TensorFlow's)
            result.append(None if unconnected_none else like)
            continue
        out = _reshaped_like(rows, like)
        cast("SymbolicTensor", out).set_shape(target.shape.concatenate(s.shape))  # traced: the loop's result
        result.append(out)
    return result


def batch_jacobian(tape: Any, target: Tensor, source: Tensor) -> Tensor:
    """`tape.batch_jacobian(target, source)` with shapes known only at run time: [batch, target dims...,
    source dims...], one backward pass per entry of a target row, seeded in every example at once."""
    import minitf as tf
    _ranks_known(target, source)
    size = tf.size(target)
    known_row = target.shape[1:].num_elements()
    row_size = tf.constant(known_row) if known_row is not None else size // tf.shape(target)[0]

    def seed_of(j: Tensor) -> Tensor:
        return _reshaped_like(tf.cast(tf.equal(tf.range(size) % row_size, j), target.dtype), target)

    (rows,), (linked,) = _rows_in_loop(row_size, seed_of, tape, target, [source])
    like = _outer_shaped(tf.convert_to_tensor(target), tf.reduce_sum(tf.zeros_like(source), axis=0), target.dtype)
    if not linked:  # zeros even when unconnected, as TensorFlow's batch_jacobian gives
        out = like
    else:  # rows: [row_size, batch, source dims...] -> [batch, row_size, source dims...] -> target + source dims
        batch_first = tf.transpose(rows, [1, 0] + list(range(2, cast(int, source.shape.rank) + 1)))
        out = _reshaped_like(batch_first, like)
    cast("SymbolicTensor", out).set_shape(target.shape.concatenate(source.shape[1:]))  # traced
    return out
