"""Keras's global settings that the numbers depend on."""

_EPSILON = 1e-7


def epsilon() -> float:
    """The small number Keras adds or clips with (1e-7), so no loss takes the log of 0."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    global _EPSILON
    _EPSILON = float(value)
