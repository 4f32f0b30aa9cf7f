"""Preprocessing layers that compute with NumPy (no gradients flow through them, as in Keras): each has a
NumPy core `_compute`, run through tf.numpy_function, so the layer works eagerly, inside `Dataset.map` and in
a traced function; in a functional model its output shape comes from `compute_output_shape`.

Here: Rescaling, CenterCrop, CategoryEncoding, Hashing, Discretization. The vocabulary layers are in
lookups.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.keras.layers.keras_tensor import KerasTensor
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import channels_last
from minitf.ops.array.slicing import getitem
from minitf.ops.control.python_ops import numpy_function
from minitf.ops.math.cast import cast
from minitf.ops.strings.farmhash import fingerprint64


class NumpyPreprocessing(Layer):
    """A layer whose values come from `_compute(array) -> array` of dtype `output_dtype`."""

    takes_plain_values = True  # as Keras's preprocessing layers: called on lists and strings too

    output_dtype = "int64"
    _keeps_build_shape = False  # Keras's serialized form says input_shape None for these layers

    def _compute(self, values: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def call(self, inputs: Any) -> Any:
        out = numpy_function(lambda v: self._compute(np.asarray(v)), [inputs], self.output_dtype)
        if hasattr(out, "set_shape"):
            out.set_shape(list(self.compute_output_shape(tuple(inputs.shape.as_list()))))
        return out

    def _trace_outputs(self, inputs: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        return KerasTensor(self.compute_output_shape(tuple(inputs.shape)), self.output_dtype)


def encode(indices: np.ndarray, depth: int, mode: str, dtype: str = "float32") -> np.ndarray:
    """Integer indices as `one_hot`, `multi_hot` or `count` vectors of length `depth` (the last axis summed)."""
    if indices.size and (indices.min() < 0 or indices.max() >= depth):
        raise ValueError(
            f"Input values must be in the range 0 <= values < num_tokens with num_tokens={depth}. Received: "
            f"values={indices.tolist()}"
        )
    if mode == "one_hot":
        if indices.ndim > 1 and indices.shape[-1] == 1:
            indices = indices[..., 0]
        return np.eye(depth, dtype=dtype)[indices]
    flat = indices.reshape(-1, indices.shape[-1]) if indices.ndim > 1 else indices.reshape(1, -1)
    counts = np.zeros((flat.shape[0], depth), dtype=dtype)
    for row, values in enumerate(flat):
        np.add.at(counts[row], values, 1)
    if mode == "multi_hot":
        counts = np.minimum(counts, 1)
    return counts if indices.ndim > 1 else counts[0]


def encoded_shape(input_shape: Any, mode: str, depth: int) -> tuple:
    """The shape `encode` gives: indices unchanged for `int`, else a last axis of `depth`."""
    shape = tuple(input_shape)
    if mode == "int":
        return shape
    if mode == "one_hot" and (len(shape) < 2 or shape[-1] != 1):
        return (*shape, depth)
    return (*shape[:-1], depth) if len(shape) > 1 else (depth,)


class Rescaling(Layer):
    """`inputs * scale + offset`, e.g. `Rescaling(1 / 255)` for pixel values."""

    takes_plain_values = True  # as Keras's preprocessing layers: called on lists and strings too

    def __init__(self, scale: Any, offset: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs: Any) -> Any:
        x = inputs if inputs.dtype.is_floating else cast(inputs, self.dtype)
        return x * self.scale + self.offset

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


class CenterCrop(Layer):
    """The central `height` x `width` region of each image."""

    takes_plain_values = True  # as Keras's preprocessing layers: called on lists and strings too

    def __init__(self, height: int, width: int, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.height, self.width = int(height), int(width)
        self.data_format = channels_last(data_format)

    def call(self, inputs: Any) -> Any:
        shape = inputs.shape.as_list()
        rows, cols = shape[-3], shape[-2]
        if rows < self.height or cols < self.width:
            raise ValueError(
                f"minitf's CenterCrop crops only: the image ({rows}x{cols}) is smaller than the crop "
                f"({self.height}x{self.width}), which Keras would resize (left out of minitf)."
            )
        top, left = (rows - self.height) // 2, (cols - self.width) // 2
        index = (Ellipsis, slice(top, top + self.height), slice(left, left + self.width), slice(None))
        out = getitem(inputs, index)
        return out if out.dtype.is_floating else cast(out, self.dtype)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "height": self.height, "width": self.width, "data_format": self.data_format}


class CategoryEncoding(NumpyPreprocessing):
    """Integer categories (0 .. num_tokens - 1) as one-hot, multi-hot or count vectors."""

    output_dtype = "float32"

    def __init__(
        self, num_tokens: int | None = None, output_mode: str = "multi_hot", sparse: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError(
                "num_tokens must be set to use this layer. If the number of tokens is not known "
                "beforehand, use the IntegerLookup layer instead."
            )
        if sparse:
            raise ValueError("minitf's CategoryEncoding leaves out sparse=True")
        self.num_tokens, self.output_mode, self.sparse = int(num_tokens), output_mode, sparse

    def _compute(self, values: np.ndarray) -> np.ndarray:
        return encode(values.astype("int64"), self.num_tokens, self.output_mode)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "num_tokens": self.num_tokens, "output_mode": self.output_mode}


def hash_bins(values: np.ndarray, bins: int) -> np.ndarray:
    """TensorFlow's fast string hash (FarmHash fingerprint64) of each value, modulo `bins`; numbers are hashed
    as their decimal text, as Keras's Hashing does."""
    flat = [v if isinstance(v, bytes) else str(v).encode() for v in values.reshape(-1)]
    return np.array([fingerprint64(v) % bins for v in flat], dtype="int64").reshape(values.shape)


class Hashing(NumpyPreprocessing):
    """Each value (string or integer) hashed into one of `num_bins` bins (bin 0 kept for `mask_value`)."""

    def __init__(
        self,
        num_bins: int,
        mask_value: Any = None,
        salt: Any = None,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("dtype", "int64" if output_mode == "int" else "float32")
        super().__init__(**kwargs)
        if salt is not None:
            raise ValueError("minitf's Hashing leaves out salted (SipHash) hashing; use salt=None")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Invalid value for argument `output_mode`. Received: output_mode={output_mode}")
        self.num_bins, self.mask_value, self.salt = int(num_bins), mask_value, salt
        self.output_mode, self.sparse = output_mode, sparse
        self.output_dtype = "int64" if output_mode == "int" else "float32"

    def _compute(self, values: np.ndarray) -> np.ndarray:
        if self.mask_value is None:
            bins = hash_bins(values, self.num_bins)
        else:
            mask = np.asarray(self.mask_value.encode() if isinstance(self.mask_value, str) else self.mask_value)
            bins = np.where(values == mask, 0, hash_bins(values, self.num_bins - 1) + 1)
        return bins if self.output_mode == "int" else encode(bins, self.num_bins, self.output_mode)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return encoded_shape(input_shape, self.output_mode, self.num_bins)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "num_bins": self.num_bins,
            "salt": self.salt,
            "mask_value": self.mask_value,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
        }


def _summary(values: np.ndarray, epsilon: float) -> np.ndarray:
    """Every `len / (1 / epsilon)`-th sorted value (all of them for small data), each standing for that many."""
    ordered = np.sort(values.reshape(-1))
    step = max(ordered.size * epsilon, 1)
    kept = ordered[int(step - 1) :: int(step)]
    return np.stack([kept, np.full_like(kept, step)])


def _compressed(summary: np.ndarray, epsilon: float) -> np.ndarray:
    """The summary at the cumulative-count fractions epsilon, 2 epsilon, ..., 1 (interpolated)."""
    if summary.shape[1] * epsilon < 1:
        return summary
    fractions = epsilon + np.arange(0.0, 1.0, epsilon)
    cumulative = summary[1].cumsum()
    values = np.interp(fractions, cumulative / cumulative[-1], summary[0])
    counts = np.interp(fractions, cumulative / cumulative[-1], cumulative)
    return np.stack((values, np.diff(counts, prepend=0.0))).astype("float32")


class Discretization(NumpyPreprocessing):
    """Each number replaced by the index of its bin: `bin_boundaries` given, or learned as quantiles by `adapt`."""

    output_dtype = "int32"
    _keeps_build_shape = True

    def __init__(
        self,
        bin_boundaries: Any = None,
        num_bins: int | None = None,
        epsilon: float = 0.01,
        output_mode: str = "int",
        sparse: bool = False,
        dtype: Any = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        if bin_boundaries is not None and num_bins is not None:
            raise ValueError(
                "Both `num_bins` and `bin_boundaries` should not be set. Received: "
                f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`"
            )
        self.bin_boundaries = None if bin_boundaries is None else list(bin_boundaries)
        self.num_bins, self.epsilon, self.output_mode, self.sparse = num_bins, epsilon, output_mode, sparse
        if output_mode != "int":
            self.output_dtype = "float32"

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """Boundaries that split `data` into `num_bins` bins of about equal counts, found as Keras finds them:
        each batch summarized by every (1 / epsilon)-th sorted value with its count, summaries merged, and
        the boundaries read off the cumulative counts."""
        single = isinstance(data, np.ndarray) or hasattr(data, "numpy") or not hasattr(data, "__iter__")
        batches = [data] if single else list(data)[:steps]  # a list or a Dataset is a sequence of batches
        summary = np.zeros((2, 0), dtype="float32")
        for batch in batches:
            merged = np.concatenate((_summary(np.asarray(batch).astype("float32"), self.epsilon), summary), axis=1)
            summary = _compressed(merged[:, np.argsort(merged[0])], self.epsilon)
        self.bin_boundaries = _compressed(summary, 1.0 / int(self.num_bins or 1))[0, :-1].tolist()

    def _compute(self, values: np.ndarray) -> np.ndarray:
        if self.bin_boundaries is None:
            raise ValueError(
                "You need to either pass the `bin_boundaries` argument at construction time or call adapt(dataset)."
            )
        indices = np.searchsorted(np.asarray(self.bin_boundaries), values, side="right")
        if self.output_mode == "int":
            return indices.astype("int32")
        return encode(indices, len(self.bin_boundaries) + 1, self.output_mode)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return encoded_shape(input_shape, self.output_mode, len(self.bin_boundaries or []) + 1)

    def get_config(self) -> dict[str, Any]:
        return {
            "bin_boundaries": self.bin_boundaries,
            "num_bins": self.num_bins,
            "epsilon": self.epsilon,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "name": self.name,
            "dtype": self.dtype,
        }
