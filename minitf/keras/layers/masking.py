"""Masks: which steps of a padded sequence are real. A layer that makes a mask (`Embedding(mask_zero=True)`,
`Masking`) attaches it to its output as `_keras_mask`; the next layer is called with it (`call(..., mask=...)`
when its `call` takes a mask) and, if it supports masking, attaches the mask its `compute_mask` gives to its own
output, so the mask travels down a model as in Keras (layer.py: `mask_of`, `propagate`). Recurrent layers skip
masked steps (rnn.py); a layer that does not support masking drops the mask with Keras's warning."""

from __future__ import annotations

from typing import Any

from minitf.keras.layers.layer import Layer
from minitf.ops.array.shape_ops import expand_dims
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import not_equal
from minitf.ops.math.reductions import reduce_any


class Masking(Layer):
    """Masks the steps whose features all equal `mask_value` (and zeroes them)."""

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        keep = reduce_any(not_equal(inputs, self.mask_value), axis=-1)
        outputs = inputs * cast(expand_dims(keep, -1), inputs.dtype)
        outputs._keras_mask = keep
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "mask_value": self.mask_value}
