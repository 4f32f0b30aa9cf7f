"""Retracing: which existing trace a call can use, and TensorFlow's warning when a function traces too often.

A call whose cache key (cache_keys.py) equals a trace's key uses that trace; otherwise the most specific
trace whose key covers the call's (a trace for shape (None,) covers a call with shape (3,)) is used, and
when none covers it the function traces again. With `reduce_retracing=True` the new trace is for the most
specific key that covers both the call and an earlier trace, so shapes that vary become None once.

Five traces within the last ten calls of one Python function make TensorFlow's retracing warning appear (at
most twice per Python function, counted across the `tf.function`s made from it, as TensorFlow counts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minitf.core import logs
from minitf.function.cache_keys import generalize, is_subtype
from minitf.function.concrete_function import ConcreteFunction

FREQUENT_TRACING_WARNING_MAX_CALL_HISTORY = 10
FREQUENT_TRACING_WARNING_THRESHOLD = 5
FREQUENT_TRACING_WARNING_MAX_WARNING_PER_DETECTOR = 2


def matching_trace(traces: Sequence[ConcreteFunction], key: tuple) -> ConcreteFunction | None:
    """The most specific trace whose key covers `key` (a subtype of all the other candidates), or None."""
    candidates = [cf for cf in traces if is_subtype(("Tuple",) + key, ("Tuple",) + cf._key)]
    if not candidates:
        return None
    for cf in candidates:
        if all(is_subtype(("Tuple",) + cf._key, ("Tuple",) + other._key) for other in candidates):
            return cf
    return candidates[0]


def relaxed_key(traces: Sequence[ConcreteFunction], key: tuple) -> tuple:
    """`reduce_retracing`: the key that covers `key` and the newest trace it can be joined with."""
    for cf in reversed(traces):
        general = generalize(("Tuple",) + key, ("Tuple",) + cf._key)
        if general is not None:
            return general[1:]
    return key


class TracingDetector:
    """Counts how many of the recent calls traced (TensorFlow's _FrequentTracingDetector)."""

    def __init__(self) -> None:
        self.calls_per_tracing: list[int] = []
        self.call_count = 0
        self.warnings = 0

    def called_with_tracing(self, function: Callable) -> None:
        self.call_count += 1
        self.calls_per_tracing.append(1)
        while self.calls_per_tracing:
            if self.call_count - self.calls_per_tracing[0] > FREQUENT_TRACING_WARNING_MAX_CALL_HISTORY:
                self.call_count -= self.calls_per_tracing.pop(0)
            else:
                break
        if self.warnings >= FREQUENT_TRACING_WARNING_MAX_WARNING_PER_DETECTOR:
            return
        if len(self.calls_per_tracing) >= FREQUENT_TRACING_WARNING_THRESHOLD:
            self.warnings += 1
            logs.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is expensive and the "
                "excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) "
                "passing tensors with different shapes, (3) passing Python objects instead of tensors. For (1), "
                "please define your @tf.function outside of the loop. For (2), @tf.function has "
                "reduce_retracing=True option that can avoid unnecessary retracing. For (3), please refer to "
                "https://www.tensorflow.org/guide/function#controlling_retracing and "
                "https://www.tensorflow.org/api_docs/python/tf/function for  more details.",
                len(self.calls_per_tracing),
                self.call_count,
                function,
            )

    def called_without_tracing(self) -> None:
        if not self.calls_per_tracing:
            self.calls_per_tracing = [0]
        self.calls_per_tracing[-1] += 1
        self.call_count += 1


detectors: dict[Any, TracingDetector] = {}


def detector_key(fn: Callable) -> Any:
    target = fn
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    target = getattr(target, "__func__", target)
    return getattr(target, "__code__", target)


def detector_for(python_function: Callable) -> TracingDetector:
    """The counter shared by every `tf.function` made from one Python function (or method)."""
    return detectors.setdefault(detector_key(python_function), TracingDetector())
