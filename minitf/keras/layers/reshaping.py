"""Layers that move values around without weights: Reshape, Permute, RepeatVector, and the cropping, zero
padding and up-sampling of sequences (1-D: batch, steps, channels) and images (2-D: batch, rows, cols, channels)."""

from __future__ import annotations

import math
from typing import Any

from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import channels_last
from minitf.ops.array import shape_ops, slicing, tile_pad
from minitf.ops.array.positions import repeat


class Reshape(Layer):
    """Each example to `target_shape` (the batch axis stays; one entry may be -1)."""

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        self.built = True

    def _resolved(self, input_shape: tuple) -> list[int]:
        """-1 replaced by what is left, checked against the input's size as Keras checks it."""
        target = list(self.target_shape)
        size = math.prod(input_shape) if all(d is not None for d in input_shape) else None
        known = math.prod(d for d in target if d != -1)
        if target.count(-1) > 1:
            raise ValueError(f"There must be at most one unknown dimension in output_shape. Received: {tuple(target)}")
        if size is not None and ((-1 in target and size % known) or (-1 not in target and size != known)):
            raise ValueError(
                f"The total size of the output_shape must be equal to the total size of the input shape. "
                f"Received: input_shape={input_shape}, output_shape={tuple(target)}"
            )
        if -1 in target and size is not None:
            target[target.index(-1)] = size // known
        return target

    def call(self, inputs: Any) -> Any:
        target = self._resolved(tuple(inputs.shape.as_list()[1:]))
        batch = inputs.shape.as_list()[0]
        return shape_ops.reshape(inputs, [-1 if batch is None or -1 not in target else batch, *target])

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "target_shape": self.target_shape}


class Permute(Layer):
    """Reorders the axes of each example: `dims` counts from 1 (the batch axis stays first)."""

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                f"Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` must be "
                f"consecutive and start from 1. Received dims={dims}"
            )
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs: Any) -> Any:
        return shape_ops.transpose(inputs, [0, *self.dims])

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """(batch, features) -> (batch, n, features): each example repeated n times."""

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(n, int):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs: Any) -> Any:
        return tile_pad.tile(shape_ops.expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "n": self.n}


def _pairs(value: Any, rank: int, name: str) -> tuple[tuple[int, int], ...]:
    """`1` -> ((1, 1),) * rank; `(1, 2)` -> ((1, 1), (2, 2)) for images, ((1, 2),) for sequences; pairs as given."""
    if isinstance(value, int):
        return ((value, value),) * rank
    items = tuple(value)
    if rank == 1 and len(items) == 2 and all(isinstance(v, int) for v in items):
        return ((items[0], items[1]),)
    if len(items) != rank:
        raise ValueError(f"`{name}` should have {rank} elements. Received: {name}={value}.")
    return tuple((v, v) if isinstance(v, int) else (int(v[0]), int(v[1])) for v in items)


class _Spatial(Layer):
    """A layer over the spatial axes of a channels-last input of `rank` spatial axes."""

    rank = 1

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = channels_last(data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _format_config(self) -> dict[str, Any]:
        return {"data_format": self.data_format} if self.rank > 1 else {}


class _Cropping(_Spatial):
    def __init__(self, cropping: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(data_format, **kwargs)
        self.cropping = _pairs(cropping, self.rank, "cropping")

    def call(self, inputs: Any) -> Any:
        shape = inputs.shape.as_list()
        for axis, (before, after) in enumerate(self.cropping, start=1):
            if shape[axis] is not None and before + after >= shape[axis]:
                raise ValueError(
                    f"`cropping` parameter of `{type(self).__name__}` layer must be smaller than the input length. "
                    f"Received: inputs.shape={tuple(shape)}, and cropping={self.cropping}"
                )
        index = [slice(None)] + [slice(before, -after if after else None) for before, after in self.cropping]
        return slicing.getitem(inputs, tuple(index))

    def get_config(self) -> dict[str, Any]:
        cropping = self.cropping[0] if self.rank == 1 else self.cropping
        return {**super().get_config(), "cropping": cropping, **self._format_config()}


class Cropping1D(_Cropping):
    """Cuts `cropping` steps off the start and end of each sequence."""

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(cropping, **kwargs)


class Cropping2D(_Cropping):
    """Cuts rows off the top and bottom and columns off the left and right of each image."""

    rank = 2

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(cropping, data_format, **kwargs)


class _ZeroPadding(_Spatial):
    def __init__(self, padding: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(data_format, **kwargs)
        self.padding = _pairs(padding, self.rank, "padding")

    def call(self, inputs: Any) -> Any:
        return tile_pad.pad(inputs, [[0, 0], *[list(pair) for pair in self.padding], [0, 0]])

    def get_config(self) -> dict[str, Any]:
        padding = self.padding[0] if self.rank == 1 else self.padding
        return {**super().get_config(), "padding": padding, "data_format": self.data_format}


class ZeroPadding1D(_ZeroPadding):
    """Adds zeros before and after each sequence."""

    def __init__(self, padding: Any = 1, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding2D(_ZeroPadding):
    """Adds rows and columns of zeros around each image."""

    rank = 2

    def __init__(self, padding: Any = (1, 1), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(padding, data_format, **kwargs)


class UpSampling1D(_Spatial):
    """Repeats each step `size` times."""

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(None, **kwargs)
        self.size = int(size)

    def call(self, inputs: Any) -> Any:
        return repeat(inputs, self.size, axis=1)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "size": self.size}


class UpSampling2D(_Spatial):
    """Repeats each row and column `size` times (nearest-neighbour enlargement)."""

    rank = 2

    def __init__(
        self, size: Any = (2, 2), data_format: str | None = None, interpolation: str = "nearest", **kwargs: Any
    ) -> None:
        super().__init__(data_format, **kwargs)
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        if interpolation != "nearest":
            raise ValueError(
                f"minitf's UpSampling2D repeats pixels (interpolation='nearest'); interpolation={interpolation!r} "
                "is left out."
            )
        self.interpolation = interpolation

    def call(self, inputs: Any) -> Any:
        return repeat(repeat(inputs, self.size[0], axis=1), self.size[1], axis=2)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "size": self.size, **self._format_config(), "interpolation": "nearest"}
