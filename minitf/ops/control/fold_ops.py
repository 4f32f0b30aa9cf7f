"""tf.foldl, tf.foldr and tf.scan: an accumulator carried over the slices elems[0], elems[1], ... (or backwards),
`fn(accumulator, slice)` giving the next one; scan stacks every accumulator. Without an initializer the first
slice is the first accumulator.

Eagerly, with a known number of slices, the loop is Python's; traced, it is a while loop (scan writes into
TensorArrays), as TensorFlow builds it, so the number of slices may be unknown until the graph runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitf.core import nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import OutOfRangeError
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.control_flow.loops import while_loop
from minitf.function.control_flow.tensor_array import TensorArray
from minitf.ops.array import shape_ops
from minitf.ops.array.creation import zeros
from minitf.ops.array.join_split import stack


def _slices(elems: Any) -> tuple[list[Tensor], int | None]:
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if any(t.shape.rank == 0 for t in flat):
        raise IndexError(
            "tuple index out of range\nHint: the functions fold and scan over the first dimension; a scalar has none."
        )
    return flat, flat[0].shape[0]


def _empty() -> Exception:
    return OutOfRangeError(
        None,
        None,
        "Tried to read from index 0 but array size is: 0 \nHint: with no slices "
        "there is no first accumulator; pass an initializer.",
    )


def _run(fn: Callable[..., Any], elems: Any, initializer: Any, reverse: bool, keep: bool) -> Any:
    """The accumulators, in the order of the slices (keep=True), or the last one."""
    flat, length = _slices(elems)

    def piece(i: Any) -> Any:
        """Slice i of every element (indexing, so the gradient is dense, as TensorFlow's)."""
        return nest.pack_sequence_as(elems, [t[i] for t in flat])

    if length is not None and state.graph is None:
        order = list(range(length - 1, -1, -1) if reverse else range(length))
        if initializer is None:
            if not order:
                raise _empty()
            acc, order = piece(order[0]), order[1:]
        else:
            acc = nest.map_structure(convert_to_tensor, initializer)
        history = [acc] if initializer is None else []
        for i in order:
            acc = nest.map_structure(convert_to_tensor, fn(acc, piece(i)))
            history.append(acc)
        if not keep:
            return acc
        if reverse:
            history.reverse()
        if not history:
            return nest.map_structure(lambda a: zeros([0] + a.shape.as_list(), dtype=a.dtype), acc)
        return nest.map_structure(lambda *steps: stack(list(steps)), *history)
    return _run_in_loop(fn, elems, flat, piece, initializer, reverse, keep, length)


def _run_in_loop(
    fn: Callable[..., Any],
    elems: Any,
    flat: list[Tensor],
    piece: Callable[[Any], Any],
    initializer: Any,
    reverse: bool,
    keep: bool,
    length: int | None,
) -> Any:
    n = shape_ops.shape(flat[0])[0]
    step = -1 if reverse else 1
    first = n - 1 if reverse else convert_to_tensor(0)
    if initializer is None:
        acc = piece(first)
        start = first + step
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
        start = first
    flat_acc = nest.flatten(acc)
    arrays = [TensorArray(a.dtype, size=0, dynamic_size=True) for a in flat_acc]
    if initializer is None and keep:
        arrays = [ta.write(first, a) for ta, a in zip(arrays, flat_acc)]

    def body(i: Tensor, *carried: Tensor) -> tuple:
        values, stacks = carried[: len(flat_acc)], carried[len(flat_acc) :]
        result = nest.flatten(
            nest.map_structure(convert_to_tensor, fn(nest.pack_sequence_as(acc, list(values)), piece(i)))
        )
        written = [TensorArray._from_stack(s, ta).write(i, r)._stack for s, ta, r in zip(stacks, arrays, result)]
        return (i + step, *result, *written)

    def more(i: Tensor, *carried: Tensor) -> Tensor:
        return i >= 0 if reverse else i < n

    loop_vars = (start, *flat_acc, *(ta._stack for ta in arrays))
    invariants = [TensorShape([])] + [a.shape for a in flat_acc] + [TensorShape(None)] * len(arrays)
    out = list(while_loop(more, body, loop_vars, shape_invariants=invariants))
    if not keep:
        return nest.pack_sequence_as(acc, out[1 : 1 + len(flat_acc)])
    stacks: list[Any] = [TensorArray._from_stack(s, ta).stack() for s, ta in zip(out[1 + len(flat_acc) :], arrays)]
    for s, a in zip(stacks, flat_acc):
        s.set_shape(TensorShape([length]) + a.shape)
    return nest.pack_sequence_as(acc, stacks)


def foldl(
    fn: Callable[..., Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])."""
    return _run(fn, elems, initializer, reverse=False, keep=False)


def foldr(
    fn: Callable[..., Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """fn(...fn(fn(initializer, elems[n-1]), elems[n-2])..., elems[0])."""
    return _run(fn, elems, initializer, reverse=True, keep=False)


def scan(
    fn: Callable[..., Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: str | None = None,
) -> Any:
    """Every accumulator of a fold over elems, stacked (in the order of the slices)."""
    return _run(fn, elems, initializer, reverse=reverse, keep=True)
