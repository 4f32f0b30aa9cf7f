"""`tf.case` and `tf.switch_case`: a chain of `tf.cond`s, built the way TensorFlow builds it.

`tf.case` tries the (predicate, function) pairs in order and calls the first function whose predicate is
true; without a `default` the last pair is the default, guarded by an assertion that some predicate held.
With `exclusive=True` an assertion checks that at most one predicate is true. `tf.switch_case` picks a
branch by an integer index (the default, or the last branch, when the index is out of range). Eagerly only
the chosen function runs; inside a tf.function every branch is traced into nested If ops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minitf import dtypes
from minitf.conversion import convert_to_tensor
from minitf.function.control_flow import cond
from minitf.ops.assert_ops import Assert, control_dependencies
from minitf.ops.cast_where import cast
from minitf.ops.comparisons import equal, less_equal
from minitf.ops.join_split import stack
from minitf.ops.reductions import reduce_sum
from minitf.tensor import Tensor


def _pairs(pred_fn_pairs: Any) -> tuple[list[Tensor], list[Callable[[], Any]]]:
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    if not isinstance(pred_fn_pairs, list | tuple):
        raise TypeError(f"pred_fn_pairs must be a list or tuple or dict, got {type(pred_fn_pairs).__name__}")
    predicates, actions = [], []
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be Tensor, got: {pred}")
        if pred.dtype is not dtypes.bool:
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
        predicates.append(pred)
        actions.append(fn)
    return predicates, actions


def _count_true(predicates: Sequence[Tensor]) -> Tensor:
    return reduce_sum(cast(stack(list(predicates)), dtypes.int32))


def case(pred_fn_pairs: Any, default: Callable[[], Any] | None = None, exclusive: bool = False,
         strict: bool = False, name: str = "case") -> Any:
    """The result of the first function whose predicate is true (or of `default`)."""
    predicates, actions = _pairs(pred_fn_pairs)
    if default is None:
        if not predicates:
            raise ValueError("Must provide a non-empty list of pred_fn_pairs or a default.")
        last_pred, last_action = predicates[-1], actions[-1]
        others = predicates[:-1]
        every: Any = list(predicates)  # rebound to a stacked tensor below when exclusive

        def fallback() -> Any:
            checks = [Assert(last_pred, ["Input error: None of conditions evaluated as True:", stack(every)])]
            if others:
                checks.append(Assert(less_equal(_count_true(others), 0),
                                     [f"Implementation error: selected default action #{len(others)} was called, "
                                      "but some of other predicates are True: ", stack(others)]))
            with control_dependencies(checks):
                return last_action()

        default, predicates, actions = fallback, others, actions[:-1]
    elif not callable(default):
        raise TypeError("default must be callable.")
    fn = default
    for pred, action in reversed(list(zip(predicates, actions))):
        fn = (lambda p, t, f: lambda: cond(p, t, f))(pred, action, fn)
    if exclusive and len(predicates) > 1:
        every = stack(list(predicates))
        check = Assert(less_equal(_count_true(predicates), 1),
                       ["Input error: exclusive=True: more than 1 conditions evaluated as True:", every])
        with control_dependencies([check]):
            return fn()
    return fn()


def switch_case(branch_index: Any, branch_fns: Any, default: Callable[[], Any] | None = None,
                name: str = "switch_case") -> Any:
    """branch_fns[branch_index]() (the default, or the last branch, when the index is out of range)."""
    fns = sorted(branch_fns.items()) if isinstance(branch_fns, dict) else list(enumerate(branch_fns))
    if not fns:
        raise ValueError("Must provide at least one item in branch_fns")
    keys = [k for k, _ in fns]
    if keys != list(range(len(fns))):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
                         f"{{{','.join(map(str, keys))}}}")
    index = convert_to_tensor(branch_index)
    if index.dtype is not dtypes.int32:
        raise TypeError(f"branch_index must an int32 Tensor, got {index.dtype}")
    fallback = default if default is not None else fns[-1][1]
    fn = fallback
    for key, action in reversed(fns):
        fn = (lambda k, t, f: lambda: cond(equal(index, k), t, f))(key, action, fn)
    return fn()
