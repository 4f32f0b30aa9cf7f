"""Pooling layers: the largest or the mean value of each window (MaxPooling, AveragePooling, 1-D and 2-D,
with minitf's pooling ops, conv_ops.py), and of the whole sequence or image (GlobalMax/GlobalAveragePooling)."""

from __future__ import annotations

from typing import Any

from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import channels_last, int_tuple, padding_mode
from minitf.ops.array.creation import zeros_like
from minitf.ops.array.shape_ops import expand_dims
from minitf.ops.array.where import where
from minitf.ops.math import reductions
from minitf.ops.math.cast import cast
from minitf.ops.nn.conv_by_rank import avg_pool1d, max_pool1d
from minitf.ops.nn.pooling import avg_pool2d, max_pool2d


class Pooling(Layer):
    """A window of `pool_size` moved by `strides` (the window size unless given)."""

    rank = 2
    operations: tuple[Any, Any] = (max_pool1d, max_pool2d)

    def __init__(
        self,
        pool_size: Any,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        self.pool_size = int_tuple(pool_size, self.rank, "pool_size")
        self.strides = self.pool_size if strides is None else int_tuple(strides, self.rank, "strides")
        self.padding = padding_mode(padding)
        self.data_format = channels_last(data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs: Any) -> Any:
        pool = self.operations[self.rank - 1]
        return pool(inputs, list(self.pool_size), list(self.strides), self.padding.upper())

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class MaxPooling1D(Pooling):
    rank = 1

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid", **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, **kwargs)


class MaxPooling2D(Pooling):
    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = "valid", **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, **kwargs)


class AveragePooling1D(Pooling):
    rank = 1
    operations = (avg_pool1d, avg_pool2d)


class AveragePooling2D(Pooling):
    operations = (avg_pool1d, avg_pool2d)


class GlobalPooling(Layer):
    """One value per channel: the reduction over every step (or pixel) of each example."""

    rank = 2
    reduce: Any = staticmethod(reductions.reduce_max)

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = channels_last(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self.reduce(inputs, axis=list(range(1, self.rank + 1)), keepdims=self.keepdims)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalMaxPooling1D(GlobalPooling):
    rank = 1


class GlobalMaxPooling2D(GlobalPooling):
    rank = 2


class GlobalAveragePooling1D(GlobalPooling):
    """The mean over the steps of a sequence; masked steps (padding) are left out of it."""

    rank = 1
    reduce = staticmethod(reductions.reduce_mean)

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(data_format, keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Any:
        steps = 1 if self.data_format == "channels_last" else 2
        if mask is None:
            return reductions.reduce_mean(inputs, axis=steps, keepdims=self.keepdims)
        keep = expand_dims(cast(mask, "bool"), 2 if self.data_format == "channels_last" else 1)
        total = reductions.reduce_sum(where(keep, inputs, zeros_like(inputs)), axis=steps, keepdims=self.keepdims)
        return total / reductions.reduce_sum(cast(keep, inputs.dtype), axis=steps, keepdims=self.keepdims)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None  # one vector per sequence: no steps left to mask


class GlobalAveragePooling2D(GlobalPooling):
    rank = 2
    reduce = staticmethod(reductions.reduce_mean)


MaxPool1D, MaxPool2D, AvgPool1D, AvgPool2D = MaxPooling1D, MaxPooling2D, AveragePooling1D, AveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
