"""What minitf leaves out of TensorFlow's and Keras's API, said plainly when a learner reaches for it.

Each public namespace that leaves names out keeps one table, name -> reason, and answers a left-out name with
`LeftOutError`: a message that names the thing, says why minitf does not have it and how to run the code on real
TensorFlow instead. The error is an `AttributeError` (so `hasattr` and `getattr(module, name, default)` keep working
in learners' feature checks) and a `NotImplementedError` (so it reads as what it is). String identifiers that a
`get()` function does not implement raise `LeftOutIdentifierError`, a `ValueError` as Keras raises for an unknown one.
"""

from collections.abc import Callable, Mapping
from typing import NoReturn

SWITCH = (
    "To run this code on real TensorFlow, install it (pip install tensorflow-cpu) and write `import tensorflow as tf` "
    "instead of `import minitf as tf` (in a lesson: `from use_tensorflow import tf` below the setup cell)."
)


class LeftOutError(AttributeError, NotImplementedError):
    """A public TensorFlow/Keras name that minitf does not implement."""


class LeftOutIdentifierError(ValueError, NotImplementedError):
    """A string identifier (`optimizer="..."`, `loss="..."`) that Keras accepts and minitf does not implement."""


def message(qualified_name: str, reason: str) -> str:
    return f"minitf does not implement {qualified_name}: {reason}. {SWITCH}"


def module_getattr(namespace: str, left_out: Mapping[str, str]) -> Callable[[str], NoReturn]:
    """A module-level `__getattr__` for `namespace` (e.g. "tf.keras.layers"): left-out names raise LeftOutError
    with their reason, any other missing name the usual AttributeError."""

    def __getattr__(name: str) -> NoReturn:
        if name in left_out:
            raise LeftOutError(message(f"{namespace}.{name}", left_out[name]))
        raise AttributeError(f"module '{namespace}' has no attribute '{name}'")

    return __getattr__


def refuse_identifier(family: str, identifier: str, reason: str) -> NoReturn:
    """Raise for a string identifier of `family` ("optimizer", "loss", ...) that minitf leaves out."""
    raise LeftOutIdentifierError(message(f'the {family} identifier "{identifier}"', reason))
