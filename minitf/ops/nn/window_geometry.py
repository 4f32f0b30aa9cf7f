"""How a window moves over an NHWC image, as TensorFlow computes it: the output size and the padding before and
after along each spatial axis (SAME, VALID or explicit pairs), the graph-building check that a window fits, the
padded image, and the strided view each tap (i, j) of a filter or pooling window reads.

Convolution and pooling (conv_ops.py) share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core.errors import InvalidArgumentError


def axis_geometry(size: int, window: int, stride: int, dilation: int, padding: Any) -> tuple[int, int, int]:
    """(output size, padding before, padding after) along one axis."""
    span = (window - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)  # ceil
        total = max((out - 1) * stride + span - size, 0)
        return out, total // 2, total - total // 2
    before, after = (0, 0) if padding == "VALID" else padding
    return int((size + before + after - span + stride) / stride), before, after  # C++'s truncating division


def output_geometry(
    shape: Sequence[int], window: Sequence[int], attrs: dict, op_name: str = "Conv2D"
) -> list[tuple[int, int, int]]:
    pads = attrs["padding"] if attrs["padding"] in ("SAME", "VALID") else None
    geometry = [
        axis_geometry(shape[1 + a], window[a], attrs["strides"][a], attrs["dilations"][a], pads or attrs["padding"][a])
        for a in (0, 1)
    ]
    for a, (out, _, _) in enumerate(geometry):
        if out < 0:
            span = (window[a] - 1) * attrs["dilations"][a] + 1
            raise InvalidArgumentError(
                None,
                None,
                f"Computed output size would be negative: {out} [input_size: "
                f"{shape[1 + a]}, effective_filter_size: {span}, stride: "
                f"{attrs['strides'][a]}] [Op:{op_name}]\nHint: the window is larger than the "
                "(padded) image; use padding='SAME' or a smaller window.",
            )
    return geometry


def window_fits(size: int | None, window: int, dilation: int, padding: Any) -> None:
    """Graph building: TensorFlow's shape function subtracts the (dilated) window from the padded size and
    refuses a negative result, even where the eager kernel returns an empty output."""
    if size is None or padding == "SAME":
        return
    before, after = (0, 0) if padding == "VALID" else padding
    span = (window - 1) * dilation + 1
    if size + before + after < span:
        raise ValueError(
            f"Negative dimension size caused by subtracting {span} from {size + before + after}\nHint: "
            "the window is larger than the image; use padding='SAME' or a smaller window."
        )


def padded(x: np.ndarray, geometry: list[tuple[int, int, int]], fill: Any = 0) -> np.ndarray:
    (_, top, bottom), (_, left, right) = geometry
    return np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)


def tap(xp: np.ndarray, i: int, j: int, geometry: list[tuple[int, int, int]], attrs: dict) -> tuple:
    """The index of the padded input that filter tap (i, j) reads for every output position."""
    (oh, _, _), (ow, _, _) = geometry
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]
    return (
        slice(None),
        slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
        slice(j * dw, j * dw + sw * (ow - 1) + 1, sw),
        slice(None),
    )


def empty_output(geometry: list[tuple[int, int, int]]) -> bool:
    return geometry[0][0] == 0 or geometry[1][0] == 0
