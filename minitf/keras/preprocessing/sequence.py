"""`tf.keras.preprocessing.sequence` (also `tf.keras.utils.pad_sequences`): lists of token ids of different
lengths made into one rectangular array, the first step of every text model before an Embedding."""

from __future__ import annotations

from typing import Any

import numpy as np

import minitf.left_out as left_out


def pad_sequences(
    sequences: Any,
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray:
    """A (samples, maxlen, ...) array: each sequence cut to `maxlen` (its start dropped with truncating="pre", its
    end with "post") and filled up with `value` before it (padding="pre") or after it ("post")."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, step_shape = [], None
    for sequence in sequences:
        try:
            lengths.append(len(sequence))
        except TypeError as error:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {sequence}") from error
        if step_shape is None and len(sequence):
            step_shape = np.asarray(sequence).shape[1:]  # each step's own shape, from the first non-empty sequence
    step_shape = step_shape or ()
    if maxlen is None:
        maxlen = int(np.max(lengths))
    text_dtype = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not text_dtype:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )
    padded = np.full((len(sequences), maxlen, *step_shape), value, dtype=dtype)
    for index, sequence in enumerate(sequences):
        if not len(sequence):
            continue
        if truncating not in ("pre", "post"):
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(sequence[-maxlen:] if truncating == "pre" else sequence[:maxlen], dtype=dtype)
        if kept.shape[1:] != step_shape:
            raise ValueError(
                f"Shape of sample {kept.shape[1:]} of sequence at position {index} is different from expected "
                f"shape {step_shape}"
            )
        if padding == "post":
            padded[index, : len(kept)] = kept
        elif padding == "pre":
            padded[index, -len(kept) :] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return padded


_LEGACY = "it is Keras 2's data preparation; tf.data and keras.utils.timeseries_dataset_from_array replace it"
LEFT_OUT = {"TimeseriesGenerator": _LEGACY, "make_sampling_table": _LEGACY, "skipgrams": _LEGACY}
__getattr__ = left_out.module_getattr("tf.keras.preprocessing.sequence", LEFT_OUT)
