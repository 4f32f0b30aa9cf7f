"""Layers that merge a list of inputs into one (Add, Subtract, Multiply, Average, Maximum, Minimum,
Concatenate, Dot) and their functional forms (`keras.layers.add([a, b])`, `concatenate`, ...)."""

from __future__ import annotations

from functools import reduce
from typing import Any

from minitf.keras.layers.layer import Layer
from minitf.ops.array import join_split, shape_ops
from minitf.ops.linalg.linalg_ops import matmul
from minitf.ops.linalg.norms import l2_normalize
from minitf.ops.math import binary_math


def _shapes(inputs: Any) -> list[tuple]:
    return [tuple(x.shape.as_list() if hasattr(x.shape, "as_list") else x.shape) for x in inputs]


class Merge(Layer):
    """The elementwise merges: inputs of one shape (or broadcastable shapes) folded with `_merge`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape, list | tuple) or not isinstance(input_shape[0], list | tuple):
            raise ValueError(
                f"A merge layer should be called on a list of inputs. Received: input_shape={input_shape} "
                "(not a list of shapes)"
            )
        if len(input_shape) < 1:
            raise ValueError(
                f"A merge layer should be called on a list of at least 1 input. Got {len(input_shape)} inputs. "
                f"Full input_shape received: {input_shape}"
            )
        for first, second in zip(input_shape, input_shape[1:], strict=False):
            for left, right in zip(reversed(first[1:]), reversed(second[1:]), strict=False):
                if None not in (left, right) and 1 not in (left, right) and left != right:
                    raise ValueError(
                        f"Inputs have incompatible shapes. Received shapes {tuple(first[1:])} and {tuple(second[1:])}"
                    )

    def _merge(self, inputs: list[Any]) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any) -> Any:
        return self._merge(list(inputs))


class Add(Merge):
    """The sum of the inputs."""

    def _merge(self, inputs: list[Any]) -> Any:
        return reduce(binary_math.add, inputs)


class Subtract(Merge):
    """The first input minus the second."""

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(
                f"A `Subtract` layer should be called on exactly 2 inputs. Received: input_shape={list(input_shape)}"
            )

    def _merge(self, inputs: list[Any]) -> Any:
        return binary_math.subtract(inputs[0], inputs[1])


class Multiply(Merge):
    """The elementwise product of the inputs."""

    def _merge(self, inputs: list[Any]) -> Any:
        return reduce(binary_math.multiply, inputs)


class Average(Merge):
    """The elementwise mean of the inputs."""

    def _merge(self, inputs: list[Any]) -> Any:
        return reduce(binary_math.add, inputs) / float(len(inputs))


class Maximum(Merge):
    """The elementwise largest of the inputs."""

    def _merge(self, inputs: list[Any]) -> Any:
        return reduce(binary_math.maximum, inputs)


class Minimum(Merge):
    """The elementwise smallest of the inputs."""

    def _merge(self, inputs: list[Any]) -> Any:
        return reduce(binary_math.minimum, inputs)


class Concatenate(Layer):
    """The inputs joined along `axis` (the last by default); the other axes must match."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape[0], list | tuple) or len(input_shape) < 1:
            raise ValueError(
                f"A `Concatenate` layer should be called on a list of at least 1 input. Received: "
                f"input_shape={input_shape}"
            )
        rank = len(input_shape[0])
        axis = self.axis % rank
        rest = [tuple(d for i, d in enumerate(shape) if i != axis and i != 0) for shape in input_shape]
        if any(len(shape) != rank for shape in input_shape) or any(
            None not in (x, y) and x != y for shape in rest for x, y in zip(shape, rest[0], strict=True)
        ):
            raise ValueError(
                "A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. "
                f"Received: input_shape={[tuple(s) for s in input_shape]}"
            )

    def call(self, inputs: Any) -> Any:
        return join_split.concat(list(inputs), axis=self.axis)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axis": self.axis}


class Dot(Layer):
    """Dot products of two batches of vectors (or along `axes` of matrices); `normalize` makes them cosines."""

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(axes, int) and not (isinstance(axes, list | tuple) and len(axes) == 2):
            raise TypeError(f"Invalid type for argument `axes`: it should be a list or an int. Received: axes={axes}")
        self.axes, self.normalize = axes, normalize

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape[0], list | tuple) or len(input_shape) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on a list of 2 inputs. Received: input_shape={input_shape}"
            )

    def _axes(self, first: Any, second: Any) -> tuple[int, int]:
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else tuple(self.axes)
        return pair[0] % first.shape.rank, pair[1] % second.shape.rank

    def call(self, inputs: Any) -> Any:
        first, second = inputs
        left, right = self._axes(first, second)
        if self.normalize:
            first, second = l2_normalize(first, axis=left), l2_normalize(second, axis=right)
        # move the summed axis of the first input last and that of the second first (after the batch axis)
        first = shape_ops.transpose(first, [i for i in range(first.shape.rank) if i != left] + [left])
        second = shape_ops.transpose(second, [0, right] + [i for i in range(1, second.shape.rank) if i != right])
        rank_first, rank_second = first.shape.rank, second.shape.rank
        if rank_first == 2:
            first = shape_ops.expand_dims(first, 1)
        if rank_second == 2:
            second = shape_ops.expand_dims(second, 2)
        out = matmul(first, second)
        if rank_second == 2:
            out = shape_ops.squeeze(out, [-1])
        if rank_first == 2:
            out = shape_ops.squeeze(out, [1])
        if out.shape.rank == 1:
            out = shape_ops.expand_dims(out, 1)
        return out

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def add(inputs: list[Any], **kwargs: Any) -> Any:
    """`Add(**kwargs)(inputs)`."""
    return Add(**kwargs)(inputs)


def subtract(inputs: list[Any], **kwargs: Any) -> Any:
    """`Subtract(**kwargs)(inputs)`."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: list[Any], **kwargs: Any) -> Any:
    """`Multiply(**kwargs)(inputs)`."""
    return Multiply(**kwargs)(inputs)


def average(inputs: list[Any], **kwargs: Any) -> Any:
    """`Average(**kwargs)(inputs)`."""
    return Average(**kwargs)(inputs)


def maximum(inputs: list[Any], **kwargs: Any) -> Any:
    """`Maximum(**kwargs)(inputs)`."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs: list[Any], **kwargs: Any) -> Any:
    """`Minimum(**kwargs)(inputs)`."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: list[Any], axis: int = -1, **kwargs: Any) -> Any:
    """`Concatenate(axis, **kwargs)(inputs)`."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: list[Any], axes: Any = -1, normalize: bool = False, **kwargs: Any) -> Any:
    """`Dot(axes, normalize, **kwargs)(inputs)`."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
