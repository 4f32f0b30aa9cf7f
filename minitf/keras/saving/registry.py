"""Custom objects by name: what `@keras.saving.register_keras_serializable(package=...)` records, what
`custom_objects=` and `custom_object_scope` add for one load, and the error when a saved file names a class or
function none of them knows (Keras's TypeError, which says what to register or pass)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# "package>Name" -> the class or function, for every registered object (Keras's global custom objects).
_GLOBAL: dict[str, Any] = {}
# The registered object -> its "package>Name".
_NAMES: dict[Any, str] = {}
# The dictionaries of the `custom_object_scope`s entered, innermost last.
_SCOPES: list[dict[str, Any]] = []


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable[[Any], Any]:
    """Register a class (which needs `get_config`) or a function under "package>name" (name: its own)."""

    def decorator(obj: Any) -> Any:
        registered = f"{package}>{name if name is not None else obj.__name__}"
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL[registered] = obj
        _NAMES[obj] = registered
        return obj

    return decorator


def get_registered_name(obj: Any) -> str:
    """The name a saved file gives `obj`: "package>Name" when registered, else its own `__name__`."""
    return _NAMES.get(obj, getattr(obj, "__name__", type(obj).__name__))


def get_registered_object(
    name: str, custom_objects: dict[str, Any] | None = None, module_objects: dict[str, Any] | None = None
) -> Any:
    """The object for `name`, looked up in the scopes entered, the registry, then `custom_objects`, then
    `module_objects`, as Keras looks; None when none has it."""
    for table in [*reversed(_SCOPES), _GLOBAL, custom_objects or {}, module_objects or {}]:
        if name in table:
            return table[name]
    return None


def get_custom_objects() -> dict[str, Any]:
    """The registry itself: adding an entry registers an object under that name."""
    return _GLOBAL


@contextmanager
def custom_object_scope(custom_objects: dict[str, Any] | None) -> Iterator[None]:
    """Within the `with` block, loading finds these objects by name too."""
    _SCOPES.append(dict(custom_objects or {}))
    try:
        yield
    finally:
        _SCOPES.pop()


CustomObjectScope = custom_object_scope


def not_found(kind: str, name: str, full_config: Any) -> TypeError:
    """Keras's error for a class or function a saved file names and no one registered or passed."""
    return TypeError(
        f"Could not locate {kind} '{name}'. Make sure custom classes and functions are decorated with "
        "`@keras.saving.register_keras_serializable()`. If they are already decorated, make sure they are all "
        f"imported so that the decorator is run before trying to load them. Full object config: {full_config}"
        f"\nHint: pass custom_objects={{'{_key(full_config, name)}': {name.split('>')[-1]}}} to load_model, "
        "or register it with @keras.saving.register_keras_serializable() before loading."
    )


def _key(full_config: Any, name: str) -> str:
    registered = full_config.get("registered_name") if isinstance(full_config, dict) else None
    return registered if registered and registered != "function" else name
