"""tf.map_fn and tf.vectorized_map: apply a function to each slice of the first dimension and stack the results.

Eagerly the function is called once per slice. Inside a tf.function map_fn becomes a `tf.while_loop` writing
into TensorArrays, as in TensorFlow: the function is traced once (on a slice of unknown position), and the
result's static shape is the number of slices, when known, followed by the shape of one result.
vectorized_map loops only when the number of slices is unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import api_handler
from minitf.core.errors import InvalidArgumentError
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.control_flow.loops import while_loop
from minitf.function.control_flow.tensor_array import TensorArray
from minitf.ops.array import shape_ops
from minitf.ops.array.creation import zeros
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import reshape


def _signature_dtypes(signature: Any) -> Any:
    """The dtype of each output named by `fn_output_signature` (a DType, a TensorSpec, or a structure)."""

    def one(spec: Any) -> dtypes.DType:
        return dtypes.as_dtype(getattr(spec, "dtype", spec))

    return nest.map_structure(one, signature)


def _check_elements(flat: list[Tensor]) -> None:
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")


def map_fn(
    fn: Callable[..., Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
    fn_output_signature: Any = None,
) -> Any:
    """Call `fn` on each slice `elems[i]` (a structure of tensors is sliced together) and stack the results.
    The results have the dtypes of `elems` unless `fn_output_signature` names others."""
    if (handler := api_handler(map_fn, elems)) is not None:  # a composite value (minitf/core/dispatch.py)
        return handler(fn, elems, dtype=dtype, fn_output_signature=fn_output_signature)
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    _check_elements(flat)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    expected = (
        _signature_dtypes(signature) if signature is not None else nest.pack_sequence_as(elems, [t.dtype for t in flat])
    )
    length = flat[0].shape[0]
    if length is None or state.graph is not None:  # traced: one loop body, as TensorFlow traces it
        return _map_in_loop(fn, elems, flat, expected, length)
    rows: list[list[Tensor]] = []
    for i in range(length):
        piece = nest.pack_sequence_as(elems, [t[i] for t in flat])
        rows.append(_checked_row(fn(piece), expected, i, rows[0] if rows else None))
    flat_expected = nest.flatten(expected)
    if not rows:
        return nest.pack_sequence_as(expected, [zeros([0], dtype=d) for d in flat_expected])
    stacked = [stack([row[k] for row in rows]) for k in range(len(flat_expected))]
    return nest.pack_sequence_as(expected, stacked)


def _checked_row(result: Any, expected: Any, index: int, first: list[Tensor] | None) -> list[Tensor]:
    """One call's outputs, flattened: same structure, dtypes and shapes as TensorFlow's TensorArrays demand."""
    try:
        nest.assert_same_structure(expected, result)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"The two structures don't have the same nested structure.\n\n{exc}\nHint: fn must return "
            "the structure of elems, or pass fn_output_signature to say what it returns."
        ) from None
    outputs = [convert_to_tensor(v, dtype_hint=d) for v, d in zip(nest.flatten(result), nest.flatten(expected))]
    for out, want in zip(outputs, nest.flatten(expected)):
        if out.dtype is not want:
            raise InvalidArgumentError(
                None,
                None,
                f"TensorArray dtype is {want.name} but Op is trying to write dtype "
                f"{out.dtype.name} \nHint: fn returns {out.dtype.name}; say so with "
                f"fn_output_signature=tf.{out.dtype.name}.",
            )
    if first is not None:
        for out, before in zip(outputs, first):
            if out.shape.as_list() != before.shape.as_list():
                raise ValueError(
                    f"Incompatible shape for value ({tuple(out.shape.as_list())}), expected "
                    f"({tuple(before.shape.as_list())})"
                )
    return outputs


def _map_in_loop(
    fn: Callable[..., Any], elems: Any, flat: list[Tensor], expected: Any, length: int | None = None
) -> Any:
    """The traced form: a while loop that writes each result into a TensorArray. `fn` is traced once, on a
    slice of unknown position, so results of different shapes fail when the graph runs (as in TensorFlow),
    and the static shape is the number of slices (when known) followed by the shape of one result."""
    n = shape_ops.shape(flat[0])[0]
    flat_expected = nest.flatten(expected)
    templates = [TensorArray(d, size=0, dynamic_size=True) for d in flat_expected]

    element_shapes: list[TensorShape] = []

    def body(i: Tensor, *stacks: Tensor) -> tuple:
        piece = nest.pack_sequence_as(elems, [gather(t, i) for t in flat])
        outputs = _checked_row(fn(piece), expected, 0, None)
        element_shapes[:] = [o.shape for o in outputs]
        arrays = [TensorArray._from_stack(s, like) for s, like in zip(stacks, templates)]
        return (i + 1,) + tuple(a.write(i, o)._stack for a, o in zip(arrays, outputs))

    start = (convert_to_tensor(0),) + tuple(t._stack for t in templates)
    invariants = [TensorShape([])] + [TensorShape(None)] * len(templates)
    results = list(while_loop(lambda i, *stacks: i < n, body, start, shape_invariants=invariants))[1:]
    for k, (stacked, shape) in enumerate(zip(results, element_shapes)):  # what TensorFlow's stack knows statically
        if shape.is_fully_defined() and length == 0:  # no row written: the empty stack gets the rows' shape
            results[k] = stacked = reshape(stacked, [0] + shape.as_list())
        if shape.rank is not None:
            stacked.set_shape(TensorShape([length]) + shape)
    return nest.pack_sequence_as(expected, results)


def vectorized_map(fn: Callable[..., Any], elems: Any, fallback_to_while_loop: bool = True, warn: bool = True) -> Any:
    """Like map_fn, but the results take whatever dtype `fn` returns, and results that do not depend on the
    slice are repeated for every slice."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if any(t.shape.rank == 0 for t in flat):
        raise IndexError(
            "list index out of range\nHint: vectorized_map maps over the first dimension; a scalar has none."
        )
    length = flat[0].shape[0]
    if length is None:  # traced with an unknown length: a loop, with the dtypes fn gives the first slice
        probe = fn(nest.pack_sequence_as(elems, [gather(t, 0) for t in flat]))
        expected = nest.map_structure(lambda v: convert_to_tensor(v).dtype, probe)
        return _map_in_loop(fn, elems, flat, expected)
    calls = [fn(nest.pack_sequence_as(elems, [t[i] for t in flat])) for i in range(length)]
    if not calls:
        return zeros([0], dtype=flat[0].dtype)
    rows = [[convert_to_tensor(v) for v in nest.flatten(call)] for call in calls]
    columns = [stack([row[k] for row in rows]) for k in range(len(rows[0]))]
    return nest.pack_sequence_as(calls[0], columns)
