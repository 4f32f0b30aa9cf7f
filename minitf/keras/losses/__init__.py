"""`keras.losses`: loss objects (`Huber()`), loss functions (`huber`) and the names `compile(loss=...)` accepts.

functions.py and crossentropy.py compute the per-sample values, loss.py turns them into one number (weights and
reduction), classes.py gives each function Keras's class. `get` resolves a name as Keras does: class names give
a new object, function names and aliases ("mae", "kld", "bce") the function.
"""

from __future__ import annotations

import inspect
from typing import Any

import minitf.keras.losses.classes as classes
import minitf.keras.losses.crossentropy as crossentropy
import minitf.keras.losses.functions as functions
import minitf.left_out as left_out
from minitf.keras.losses.loss import Loss, LossFunctionWrapper

LEFT_OUT: dict[str, str] = {
    "CTC": "connectionist temporal classification needs a CTC decoder op, which minitf does not have",
    "ctc": "connectionist temporal classification needs a CTC decoder op, which minitf does not have",
    "Circle": "a metric-learning loss over pairwise similarities, beyond a first course",
    "circle": "a metric-learning loss over pairwise similarities, beyond a first course",
}
__getattr__ = left_out.module_getattr("tf.keras.losses", LEFT_OUT)

CLASSES: list[type[Loss]] = sorted(
    (
        value
        for name, value in vars(classes).items()
        if isinstance(value, type)
        and issubclass(value, Loss)
        and name[0] != "_"
        and name not in ("Loss", "LossFunctionWrapper")
    ),
    key=lambda cls: cls.__name__,
)
PUBLIC_FUNCTIONS = {
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_generalized_cross_entropy",
    "categorical_hinge",
    "cosine_similarity",
    "dice",
    "hinge",
    "huber",
    "kl_divergence",
    "log_cosh",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "poisson",
    "sparse_categorical_crossentropy",
    "squared_hinge",
    "tversky",
}
FUNCTIONS: list[Any] = [
    value
    for module in (functions, crossentropy)
    for name, value in vars(module).items()
    if inspect.isfunction(value) and value.__module__ == module.__name__ and name in PUBLIC_FUNCTIONS
]
# The classes and functions are this module's names: `keras.losses.Huber`, `keras.losses.huber`.
globals().update({value.__name__: value for value in [*CLASSES, *FUNCTIONS]})
ALIASES = {
    "mse": functions.mean_squared_error,
    "MSE": functions.mean_squared_error,
    "mae": functions.mean_absolute_error,
    "MAE": functions.mean_absolute_error,
    "mape": functions.mean_absolute_percentage_error,
    "MAPE": functions.mean_absolute_percentage_error,
    "msle": functions.mean_squared_logarithmic_error,
    "MSLE": functions.mean_squared_logarithmic_error,
    "kld": functions.kl_divergence,
    "KLD": functions.kl_divergence,
    "bce": crossentropy.binary_crossentropy,
    "BCE": crossentropy.binary_crossentropy,
}
BY_NAME: dict[str, Any] = {
    **{cls.__name__: cls for cls in [*CLASSES, Loss, LossFunctionWrapper]},
    **{function.__name__: function for function in FUNCTIONS},
    **ALIASES,
}
ALL = CLASSES  # the classes a saved file may name


def serialize(loss: Any) -> Any:
    """A loss as Keras writes it into a config: a dict for objects, a named function for functions."""
    if isinstance(loss, Loss):
        config = loss.get_config()
        return {"module": "keras.losses", "class_name": type(loss).__name__, "config": config, "registered_name": None}
    return {"module": "builtins", "class_name": "function", "config": loss.__name__, "registered_name": "function"}


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    if isinstance(config, str):
        return _by_name(config, custom_objects)
    found = _by_name(config["class_name"], custom_objects)
    if config["class_name"] == "function":
        return _by_name(config["config"], custom_objects)
    return found.from_config(config.get("config", {})) if isinstance(found, type) and issubclass(found, Loss) else found


def _by_name(name: str, custom_objects: dict[str, Any] | None = None) -> Any:
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name == "function":
        return name
    if name in BY_NAME:
        return BY_NAME[name]
    if name in LEFT_OUT:
        left_out.refuse_identifier("loss", name, LEFT_OUT[name])
    raise ValueError(f"Could not interpret loss identifier: {name}")


def get(identifier: Any) -> Any:
    """A loss for a name: a class name gives a new object, a function name the function; objects pass through."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        found = deserialize(identifier)
    elif isinstance(identifier, str):
        found = _by_name(identifier)
    else:
        found = identifier
    if inspect.isclass(found):
        found = found()
    if callable(found):
        return found
    raise ValueError(f"Could not interpret loss identifier: {identifier}")


def is_binary_or_sparse_categorical(y_true: Any, y_pred: Any) -> tuple[bool, bool]:
    """How compile reads "accuracy" and "crossentropy": one output is binary; labels with one axis fewer (or a
    last axis of 1 against several classes) are sparse."""
    is_binary = y_pred.shape[-1] == 1
    is_sparse = y_true.shape.rank < y_pred.shape.rank or (y_true.shape[-1] == 1 and y_pred.shape[-1] > 1)
    return is_binary, is_sparse


def _crossentropy_for_shapes(y_true: Any, y_pred: Any) -> Any:
    is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
    if is_binary:
        return crossentropy.binary_crossentropy(y_true, y_pred)
    if is_sparse:
        return crossentropy.sparse_categorical_crossentropy(y_true, y_pred)
    return crossentropy.categorical_crossentropy(y_true, y_pred)


def for_compile(identifier: Any) -> Loss | None:
    """What `compile(loss=...)` keeps: a Loss object; functions and function names are wrapped, named as given."""
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier.lower() in ("crossentropy", "ce"):
        return LossFunctionWrapper(_crossentropy_for_shapes, name=identifier)
    found = get(identifier)
    if isinstance(found, Loss):
        return found
    name = identifier if isinstance(identifier, str) else getattr(found, "__name__", "loss")
    return LossFunctionWrapper(found, name=name)


__all__ = sorted([*(value.__name__ for value in [*CLASSES, *FUNCTIONS]), "Loss", "deserialize", "get", "serialize"])
