"""Which float kernels minitf computes with: NumPy's (the default) or TensorFlow's exact ones (`minitf/exact/`).

`minitf.api.experimental.numerics("tensorflow")` switches for the rest of the program; used in a `with` statement
it switches back at the end of the block:

    with tf.experimental.numerics("tensorflow"):
        print(tf.reduce_sum(x))        # TensorFlow's last digit, on x86-64 with AVX

The switch replaces what `minitf/exact/kernels.py` lists (the kernels of some ops, so the eager path never
tests a mode on each call) and tells `tf.function` to compile its graphs again (generated code calls kernels
directly).
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from minitf.function.compiling import optimizer

MODES = ("numpy", "tensorflow")
_mode = ["numpy"]
# (owner, attribute) -> its value in each mode; filled on the first switch to "tensorflow"
_values: dict[tuple[object, str], dict[str, Any]] = {}


def get_numerics() -> str:
    """The kernels in use: "numpy" (the default) or "tensorflow"."""
    return _mode[0]


def _install(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(
            f"numerics must be one of {', '.join(map(repr, MODES))}; got {mode!r}.\n"
            'Hint: "numpy" is the default, "tensorflow" reproduces TensorFlow\'s last digits.'
        )
    if mode == _mode[0]:
        return
    if mode == "tensorflow" and not _values:
        # Loaded on first use only: the exact kernels' tables cost import time nobody else should pay.
        from minitf.exact.kernels import overrides

        for owner, attribute, exact in overrides():
            _values[owner, attribute] = {"numpy": getattr(owner, attribute), "tensorflow": exact}
    for (owner, attribute), values in _values.items():
        setattr(owner, attribute, values[mode])
    _mode[0] = mode
    optimizer.invalidate()


class numerics:  # a function to users, as tf.device is
    """Switch to `mode` ("numpy" or "tensorflow") now; as a context manager, switch back when the block ends."""

    def __init__(self, mode: str) -> None:
        self._previous = get_numerics()
        _install(mode)

    def __enter__(self) -> numerics:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        _install(self._previous)
