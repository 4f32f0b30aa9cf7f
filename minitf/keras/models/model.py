"""`keras.Model`: a Layer that can be trained (`compile`/`fit`, from training.py), summarised and saved.

`keras.Model(inputs, outputs)` makes a functional model (models/functional.py); a subclass of `keras.Model`
defines its layers in `__init__` and its computation in `call`, and is built on its first call.
"""

from __future__ import annotations

from typing import Any

from minitf.core.tensor import Tensor
from minitf.keras import summary
from minitf.keras.layers.keras_tensor import KerasTensor, flatten
from minitf.keras.layers.layer import Layer
from minitf.keras.training import Trainer


def _describe(value: Any) -> str:
    """An argument as Keras shows it in "Arguments received by ..."."""
    if isinstance(value, Tensor):
        return f"tf.Tensor(shape={tuple(value.shape.as_list())}, dtype={value.dtype.name})"
    return repr(value)


class Model(Trainer, Layer):
    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is Model and (args or "inputs" in kwargs):
            from minitf.keras.models.functional import Functional  # functional.py imports this module

            return Functional(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        Layer.__init__(self, name=kwargs.pop("name", None), trainable=kwargs.pop("trainable", True))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Errors from inside `call` come back with the call's arguments listed, as Keras reports them."""
        inputs = args[0] if args else kwargs.get("inputs")
        if any(isinstance(leaf, KerasTensor) for leaf in flatten(inputs)):
            return super().__call__(*args, **kwargs)
        try:
            return super().__call__(*args, **kwargs)
        except ValueError as error:
            if "Exception encountered when calling" in str(error) or "of layer '" + self.name + "'" in str(error):
                raise
            name = type(self).__name__
            message = str(error).split("\nHint:")[0]
            raise ValueError(
                f"Exception encountered when calling {name}.call().\n\n\x1b[1m{message}\x1b[0m\n\n"
                f"Arguments received by {name}.call():\n  • inputs={_describe(inputs)}\n"
                f"  • training={kwargs.get('training')}\n  • mask=None\n  • kwargs=<class 'inspect._empty'>\n"
                "Hint: the model's input does not fit the shape its layers were built for: check the shape of the "
                "array you pass (model.summary() shows the expected one).") from None

    def _maybe_build(self, inputs: Any) -> None:
        """A subclassed model is built by running it: its layers build themselves on first use."""
        if not self.built:
            self._build_input_shape = tuple(inputs.shape.as_list()) if isinstance(inputs, Tensor) else None
            self.built = True

    def _summary_rows(self) -> tuple[list[Any], list[str] | None]:
        return self.layers, None

    def _summary_output_shape(self) -> str | None:
        return None

    def summary(self, line_length: int | None = None, positions: list[float] | None = None, print_fn: Any = None,
                expand_nested: bool = False, show_trainable: bool = False, layer_range: Any = None) -> None:
        summary.print_summary(self, line_length, positions, print_fn)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    def save(self, filepath: str, overwrite: bool = True) -> None:
        from minitf.keras import saving  # saving.py rebuilds models, so it imports this module

        saving.save_model(self, filepath)

    def save_weights(self, filepath: str, overwrite: bool = True) -> None:
        from minitf.keras import saving  # saving.py rebuilds models, so it imports this module

        saving.save_weights(self, filepath)

    def load_weights(self, filepath: str) -> None:
        from minitf.keras import saving  # saving.py rebuilds models, so it imports this module

        saving.load_weights(self, filepath)
