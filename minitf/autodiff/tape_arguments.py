"""What goes into and comes out of `GradientTape.gradient` (and `jacobian`), apart from the differentiation.

TensorFlow checks a tape's targets and sources and the `unconnected_gradients` option with errors of its own, logs a
few warnings once, and hands back rank-0 gradients as NumPy scalars. None of this is how a tape works, so it lives
here, out of minitf/autodiff/tape.py's way.
"""

from __future__ import annotations

import enum
from typing import Any, cast

import numpy as np

from minitf.core import logs
from minitf.core.tensor import EagerTensor, Tensor


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def unconnected(value: UnconnectedGradients | str) -> UnconnectedGradients:
    """The `unconnected_gradients` option as the enum (TensorFlow accepts "none" and "zero" too)."""
    if isinstance(value, UnconnectedGradients):
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(
            f"Unknown value for unconnected_gradients: {value!r}\nHint: use "
            f"tf.UnconnectedGradients.NONE (the default) or tf.UnconnectedGradients.ZERO."
        ) from None


def differentiable(value: Any, role: str) -> Any:
    """A target or source as given (tensor or variable); anything else fails with TensorFlow's error class.

    TensorFlow reads `value.dtype` first (AttributeError for Python numbers and NumPy arrays, whose `dtype`
    is not a TensorFlow dtype) or converts it to a dtype (TypeError for strings and None).
    """
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        return value
    hint = (
        f"\nHint: the {role}s of a gradient must be tf.Tensors or tf.Variables recorded by the tape, not "
        f"{type(value).__name__} values like {value!r}. "
        + (
            "Wrap the value with tf.constant(...) and tape.watch(...) it before computing with it."
            if role == "source"
            else "Compute the target with TensorFlow ops inside the tape's `with` block."
        )
    )
    if value is None or isinstance(value, str | bytes):
        raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.{hint}")
    kind = type(value)
    kind_name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    attribute = "_id" if isinstance(value, np.ndarray) else "dtype"
    raise AttributeError(f"{kind_name!r} object has no attribute {attribute!r}{hint}")


def numpy_scalar(t: Tensor) -> Tensor:
    """Rank-0 gradients hold a NumPy scalar, as every eager scalar does (some kernels return 0-d arrays).

    The same tensor object is kept (only its storage changes, not its value), so that an outer tape that
    recorded it can still differentiate it.
    """
    v = getattr(t, "_value", None)  # (IndexedSlices have none)
    if type(v) is np.ndarray and v.ndim == 0:
        cast(EagerTensor, t)._value = v[()]
    return t


PERSISTENT_INSIDE = (
    "Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient than "
    "calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to increased CPU "
    "and memory usage). Only call GradientTape.gradient inside the context if you actually want to trace the "
    "gradient in order to compute higher order derivatives."
)
_warned: dict[str, int] = {}


def warn_first_n(n: int, message: str, *args: Any) -> None:
    """Log `message` only its first `n` times in this process, as TensorFlow's `log_first_n` does."""
    count = _warned.get(message, 0)
    if count < n:
        _warned[message] = count + 1
        logs.warning(message, *args)
