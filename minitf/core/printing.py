"""How `tf.print` writes values: TensorFlow's number format and summaries. The `StringFormat` and `PrintV2` ops
and `tf.print` itself (printing when it runs, every call of a traced function, to stderr by default and stdout
in Jupyter, as TensorFlow does) are in minitf/ops/state_ops.py."""

from __future__ import annotations

import sys
from typing import Any, cast

import numpy as np

from minitf.core.tensor import EagerTensor, Tensor


def format_value(value: Any, summarize: int = 3) -> str:
    """TensorFlow's print format: numbers as C's `%g` with just enough digits to read back the same value,
    bools as 1/0, strings quoted, complex numbers as `?`, and at most `summarize` entries at each end of an
    axis (all of them when `summarize` is -1)."""
    if isinstance(value, Tensor):
        value = cast(EagerTensor, value)._value
    if not isinstance(value, np.ndarray | np.generic):
        return str(value)
    array = np.asarray(value)
    kind = array.dtype.kind
    if kind == "f":
        double = array.dtype == np.float64
        fmt: Any = lambda v: _float_text(v, double)  # noqa: E731
    elif kind == "b":
        fmt = lambda v: "1" if v else "0"  # noqa: E731
    elif kind == "c":  # TensorFlow has no printer for complex numbers: a flat row of question marks
        if array.ndim == 0:
            return "?"
        shown = array.size if summarize < 0 else min(array.size, summarize)
        return "[" + " ".join(["?"] * shown) + ("..." if shown < array.size else "") + "]"
    elif kind in "OSU":
        fmt = lambda v: '"' + (v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else str(v)) + '"'  # noqa: E731
    else:
        fmt = str
    if array.ndim == 0:
        return fmt(array[()])
    if array.size == 0:  # TensorFlow's own rendering of empty tensors (bools print nothing at all)
        if kind == "b":
            return ""
        return "[]" if array.shape[0] == 0 else "[" + "\n" * (array.ndim - 1) + " ...]"
    limit = sys.maxsize if summarize < 0 else 2 * summarize
    return np.array2string(
        array,
        formatter={"all": fmt},
        separator=" ",
        threshold=limit,
        edgeitems=max(summarize, 1),
        max_line_width=sys.maxsize,
    )


def _float_text(v: Any, double: bool) -> str:
    """TensorFlow's FloatToBuffer/DoubleToBuffer: %.6g (%.15g), or %.9g (%.17g) when that would not read back."""
    if np.isnan(v):
        return "nan" if not np.signbit(v) else "-nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    short, full = (15, 17) if double else (6, 9)
    number = float(v)
    text = f"{number:.{short}g}"
    same = float(text) == number if double else np.float32(float(text)) == np.float32(number)
    return text if same else f"{number:.{full}g}"
