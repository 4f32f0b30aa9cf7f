"""`keras.backend`: the global settings the numbers depend on, and clearing the session."""

import minitf.keras.naming as naming

_EPSILON = 1e-7


def epsilon() -> float:
    """The small number Keras adds or clips with (1e-7), so no loss takes the log of 0."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    global _EPSILON
    _EPSILON = float(value)


def clear_session() -> None:
    """Forget the names handed out so far: the next Dense is `dense` again (what Keras's clear_session does to
    names; minitf keeps no other global Keras state)."""
    naming.reset()
