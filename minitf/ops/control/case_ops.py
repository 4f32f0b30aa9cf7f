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

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.function.control_flow.branches import cond
from minitf.ops.array.join_split import stack
from minitf.ops.checks.assert_ops import Assert
from minitf.ops.control.grouping_ops import control_dependencies
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, less_equal
from minitf.ops.math.reductions import reduce_sum


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


def _assert_at_most_true(predicates: Sequence[Tensor], n: int, message: str) -> Any:
    """An assertion that at most `n` of the predicates hold; its message names them as TensorFlow's does (a
    traced tensor's name, "?" for an eager one, which has none)."""
    stacked = stack(list(predicates))
    count = reduce_sum(cast(stacked, dtypes.int32))
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    return Assert(
        less_equal(count, n),
        [f"{message}: more than {n} conditions ({names}) evaluated as True:", stacked],
        summarize=len(predicates),
    )


def _default_action(predicates: list[Tensor], actions: list[Callable[[], Any]]) -> Callable[[], Any]:
    """Without a default, the last pair is the default: its action runs after assertions that its predicate
    holds and that no other one does (they list every predicate, the last one included)."""
    k = len(predicates) - 1
    last_pred, last_action, others = predicates[k], actions[k], predicates[:k]

    def default_action() -> Any:
        checks = [
            _assert_at_most_true(
                others,
                0,
                "Implementation error: selected default action "
                f"#{k} was called, but some of other predicates are True: ",
            ),
            Assert(last_pred, ["Input error: None of conditions evaluated as True:", stack(predicates)]),
        ]
        with control_dependencies(checks):
            return last_action()

    return default_action


def case(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """The result of the first function whose predicate is true (or of `default`)."""
    predicates, actions = _pairs(pred_fn_pairs)
    if default is None:
        if not predicates:
            raise ValueError("Must provide a non-empty list of pred_fn_pairs or a default.")
        default = _default_action(predicates, actions)
        predicates, actions = predicates[:-1], actions[:-1]
    elif not callable(default):
        raise TypeError("default must be callable.")
    fn = default
    for pred, action in reversed(list(zip(predicates, actions))):
        fn = (lambda p, t, f: lambda: cond(p, t, f))(pred, action, fn)
    if exclusive:
        with control_dependencies([_assert_at_most_true(predicates, 1, "Input error: exclusive=True")]):
            return fn()
    return fn()


def switch_case(
    branch_index: Any, branch_fns: Any, default: Callable[[], Any] | None = None, name: str = "switch_case"
) -> Any:
    """branch_fns[branch_index]() (the default, or the last branch, when the index is out of range)."""
    fns = sorted(branch_fns.items()) if isinstance(branch_fns, dict) else list(enumerate(branch_fns))
    if not fns:
        raise ValueError("Must provide at least one item in branch_fns")
    keys = [k for k, _ in fns]
    if keys != list(range(len(fns))):
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
            f"{{{','.join(map(str, keys))}}}"
        )
    index = convert_to_tensor(branch_index)
    if index.dtype is not dtypes.int32:
        raise TypeError(f"branch_index must an int32 Tensor, got {index.dtype}")
    fallback = default if default is not None else fns[-1][1]
    fn = fallback
    for key, action in reversed(fns):
        fn = (lambda k, t, f: lambda: cond(equal(index, k), t, f))(key, action, fn)
    return fn()
