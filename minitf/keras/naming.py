"""Names as Keras gives them: `dense`, `dense_1`, ... per class, and the `path` of a weight (`sequential/dense/kernel`).

Keras counts names per prefix for the whole session, so the second `Dense()` is `dense_1` even in another
model. Weights get a path from the layers being built around them, which is how a saved file finds them again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

_counts: dict[str, int] = {}
_scope: list[str] = []


def snake_case(class_name: str) -> str:
    """`BatchNormalization` -> `batch_normalization`, `ReLU` -> `re_lu`, as Keras derives default names."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", class_name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


def unique_name(prefix: str) -> str:
    """The first `prefix` is itself, later ones `prefix_1`, `prefix_2`, ..."""
    count = _counts.get(prefix, 0)
    _counts[prefix] = count + 1
    return prefix if count == 0 else f"{prefix}_{count}"


def reset() -> None:
    """Start counting again (what `keras.backend.clear_session()` does to names)."""
    _counts.clear()


@contextmanager
def path_scope(name: str) -> Iterator[None]:
    """Weights created inside get `name/` in front of their path (once: a layer's `add_weight` inside its own
    `build` does not repeat the layer's name)."""
    if _scope and _scope[-1] == name:
        yield
        return
    _scope.append(name)
    try:
        yield
    finally:
        _scope.pop()


def current_path(name: str) -> str:
    return "/".join([*_scope, name])
