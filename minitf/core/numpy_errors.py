"""NumPy's floating-point warnings (1/0, log(0), overflow, ...) silenced while minitf's kernels run, and only then.

TensorFlow returns inf and nan without a word; NumPy warns, and a warning printed on stderr costs a student the
points of a graded cell. So kernels run with NumPy's floating-point errors ignored, and the program's own setting
stays as it is: importing or using minitf changes neither `warnings.filters` nor the program's NumPy error handling.

NumPy keeps that setting in a context variable, the one `np.errstate` sets. `QUIET` is a context made once, at
import, in which that variable says "ignore"; `QUIET.run(kernel, *values)` runs a kernel in it, which costs a tenth
of setting the variable and putting it back around every call. A context is entered by one caller at a time: a
kernel that runs minitf ops itself (tf.py_function's), or a second thread running a kernel at the same moment,
gets a RuntimeError from `QUIET.run` before its kernel starts, and runs in a copy of it instead (`run_in_copy`).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import numpy as np


class _EachCall:
    """NumPy 1.x keeps the setting per thread, not in a context variable: `np.errstate` around each call."""

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    def copy(self) -> _EachCall:
        return self


def _quiet_context() -> contextvars.Context | _EachCall:
    before = np.geterr()
    context = contextvars.Context()  # (empty: no variable of the importing program is carried along)
    context.run(np.seterr, all="ignore")  # sets NumPy's variable inside `context` only (NumPy 2)
    if np.geterr() != before:
        np.seterr(**before)
        return _EachCall()
    return context


QUIET = _quiet_context()


def in_use(error: RuntimeError) -> bool:
    """Is `error` the one `QUIET.run` raises when the context is already entered?"""
    return str(error).startswith("cannot enter context")


def run_in_copy(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` with NumPy's floating-point errors ignored, while `QUIET` itself is in use."""
    return QUIET.copy().run(fn, *args, **kwargs)


def quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` with NumPy's floating-point errors ignored (a compiled graph's run, say)."""
    try:
        return QUIET.run(fn, *args, **kwargs)
    except RuntimeError as error:
        if not in_use(error):
            raise
    return run_in_copy(fn, *args, **kwargs)
