"""What the installed Keras offers in one family (losses, metrics, optimizers, ...), listed at test time.

`public_names` are the names `keras.<family>` exports; `identifiers` every string its `get()` accepts (Keras keeps
them in the family's `ALL_OBJECTS_DICT`). A test checks each against minitf: implemented, or in the family's
LEFT_OUT table with a reason; a name Keras gains later is then in neither, and the test fails.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

import keras

from minitf import left_out

SERIALIZATION = {"get", "serialize", "deserialize"}


def public_names(family: str) -> list[str]:
    module = keras
    for part in family.split("."):
        module = getattr(module, part)
    return sorted(
        name
        for name in dir(module)
        if not name.startswith("_") and name not in SERIALIZATION and not inspect.ismodule(getattr(module, name))
    )


def identifiers(family: str) -> list[str]:
    return sorted(importlib.import_module(f"keras.src.{family}").ALL_OBJECTS_DICT)


def unaccounted_names(family: str, ours: Any) -> list[str]:
    """Keras's public names that minitf's module neither has nor lists in LEFT_OUT."""
    return [name for name in public_names(family) if name not in ours.LEFT_OUT and name not in vars(ours)]


def left_out_names_raise(ours: Any, namespace: str) -> list[str]:
    """LEFT_OUT names whose attribute access does not raise LeftOutError naming them (should be none)."""
    wrong = []
    for name in ours.LEFT_OUT:
        try:
            getattr(ours, name)
        except left_out.LeftOutError as error:
            if f"{namespace}.{name}" not in str(error):
                wrong.append(name)
        else:
            wrong.append(name)
    return wrong


def unaccounted_identifiers(family: str, get: Callable[[str], Any]) -> list[str]:
    """Identifiers Keras's get() accepts that minitf's get() neither resolves nor refuses as left out (and those
    Keras's get() refuses, such as an abstract base class, that minitf's accepts or refuses otherwise)."""
    theirs = importlib.import_module(f"keras.src.{family}").get
    wrong = []
    for name in identifiers(family):
        try:
            theirs(name)
        except Exception as expected:
            try:
                get(name)
            except (type(expected), left_out.LeftOutIdentifierError):
                continue
            except Exception as error:
                wrong.append(f"{name}: {type(error).__name__} where Keras raises {type(expected).__name__}")
                continue
            wrong.append(f"{name}: accepted where Keras raises {type(expected).__name__}")
            continue
        try:
            get(name)
        except left_out.LeftOutIdentifierError:
            continue
        except Exception as error:
            wrong.append(f"{name}: {type(error).__name__}: {error}")
    return wrong
