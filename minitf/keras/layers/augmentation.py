"""Random image augmentation: RandomFlip mirrors each image of a (batch, rows, cols, channels) input, at
random, left-right and/or upside down. Like Keras's augmentation layers it augments unless told
`training=False` (which `predict` and `evaluate` pass), so a model called directly augments too."""

from __future__ import annotations

from typing import Any

from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import channels_last
from minitf.ops.array import creation, join_split, shape_ops, tile_pad
from minitf.ops.array.where import where
from minitf.ops.math import comparisons
from minitf.ops.math.cast import cast
from minitf.ops.random.random_ops import uniform

_MODES = ("horizontal", "vertical", "horizontal_and_vertical")


class RandomFlip(Layer):
    """Each image, with probability 1/2, flipped left-right (`"horizontal"`), upside down (`"vertical"`), or
    both at once (`"horizontal_and_vertical"`, one coin for both, as Keras flips)."""

    takes_plain_values = True  # as Keras's preprocessing layers: called on lists and strings too

    def __init__(
        self,
        mode: str = "horizontal_and_vertical",
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if mode not in _MODES:
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
        self.mode, self.seed = mode, seed
        self.data_format = channels_last(data_format)
        self.built = True

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        x = inputs if inputs.dtype.is_floating else cast(inputs, self.dtype)
        if training is False:
            return x
        rank = len(x.shape)
        axes = {"horizontal": [rank - 2], "vertical": [rank - 3]}.get(self.mode, [rank - 3, rank - 2])
        shape = shape_ops.shape(x)
        coins = comparisons.less(uniform(join_split.stack([shape[0]]), seed=self.seed), 0.5)  # one per image
        heads = shape_ops.reshape(coins, join_split.concat([shape[:1], creation.ones_like(shape[1:])], axis=0))
        return where(heads, tile_pad.reverse(x, axes), x)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "data_format": self.data_format, "seed": self.seed, "mode": self.mode}
