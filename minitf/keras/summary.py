"""`model.summary()`: the table Keras draws (with the `rich` library there; drawn by hand here, the same text).

The table is as wide as the terminal allows (88 characters, or 108 with a "Connected to" column, at most the
terminal's width minus 4). Each column gets a share of that width, and rich takes the border and padding
characters back from the columns in turn, which is the arithmetic in `column_widths`.
"""

from __future__ import annotations

import math
import shutil
from typing import Any

import numpy as np

UNITS = ["B", "KB", "MB", "GB", "TB", "PB"]


def readable_memory_size(size: float) -> str:
    """`4.98 KB`: bytes in the largest unit (of 1024) that keeps the number at least 1."""
    for unit in UNITS:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} {UNITS[-1]}"


def count_params(weights: list[Any]) -> int:
    unique = {id(w): w for w in weights}.values()
    return int(sum(math.prod(w.shape.as_list()) for w in unique))


def memory_size(weights: list[Any]) -> float:
    unique = {id(w): w for w in weights}.values()
    return float(sum(math.prod(w.shape.as_list()) * np.dtype(w.dtype.as_numpy_dtype).itemsize for w in unique))


def format_shape(shape: Any) -> str:
    """`(None, 16)`; Keras joins the dimensions itself, so a 1-tuple prints as `(16)`."""
    return f"({', '.join(str(d) for d in shape)})"


def column_widths(line_length: int, positions: list[float]) -> list[int]:
    """Cell widths (borders and the two padding spaces included) as rich sizes a table of fixed columns."""
    widths, current = [], 0
    for position in positions:
        width = int(position * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        current += width
        widths.append(width + 2)  # one space of padding either side
    excess = sum(widths) + len(widths) + 1 - line_length
    # rich's `ratio_reduce`: the excess is taken from the columns in equal shares, rounded as Python rounds
    reduced, remaining, shares = [], excess, len(widths)
    for width in widths:
        taken = min(width, round(remaining / shares))
        reduced.append(width - taken)
        remaining -= taken
        shares -= 1
    return reduced


def wrap(text: str, width: int) -> list[str]:
    """Word-wrap as rich does: words are not broken; a word longer than the cell ends in `…`."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= width or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    lines.append(current)
    return [line if len(line) <= width else line[: width - 1] + "…" for line in lines]


def _rule(widths: list[int], left: str, fill: str, middle: str, right: str) -> str:
    return left + middle.join(fill * width for width in widths) + right


def _row(cells: list[str], widths: list[int], alignments: list[str], bar: str) -> list[str]:
    wrapped = [wrap(cell, width - 2) for cell, width in zip(cells, widths, strict=True)]
    height = max(len(lines) for lines in wrapped)
    out = []
    for i in range(height):
        parts = []
        for lines, width, align in zip(wrapped, widths, alignments, strict=True):
            text = lines[i] if i < len(lines) else ""
            parts.append(" " + _aligned(text, width - 2, align) + " ")
        out.append(bar + bar.join(parts) + bar)
    return out


def _aligned(text: str, width: int, align: str) -> str:
    if align == "right":
        return text.rjust(width)
    if align == "center":  # as rich centres: the odd space goes to the right
        left = (width - len(text)) // 2
        return " " * left + text.ljust(width - left)
    return text.ljust(width)


def table(
    header: list[str], rows: list[list[str]], alignments: list[str], line_length: int, positions: list[float]
) -> list[str]:
    widths = column_widths(line_length, positions)
    lines = [
        _rule(widths, "┏", "━", "┳", "┓"),
        *_row(header, widths, alignments, "┃"),
        _rule(widths, "┡", "━", "╇", "┩"),
    ]
    for i, row in enumerate(rows):
        if i:
            lines.append(_rule(widths, "├", "─", "┼", "┤"))
        lines.extend(_row(row, widths, alignments, "│"))
    lines.append(_rule(widths, "└", "─", "┴", "┘"))
    return lines


def layer_params(layer: Any) -> str:
    if not layer.built:
        return "0 (unbuilt)"
    return f"{layer.count_params():,}"


def summary_lines(
    model: Any, line_length: int | None = None, positions: list[float] | None = None, show_trainable: bool = False
) -> list[str]:
    """The summary as a list of lines (what `print_fn` receives joined); `show_trainable` adds a column that says
    whether each layer's weights train (Y), are frozen (N) or do not exist (-)."""
    layers, connections = model._summary_rows()
    if connections is None:
        default_length, positions = 88, positions or [0.45, 0.80, 1.0]
        header, alignments = ["Layer (type)", "Output Shape", "Param #"], ["left", "left", "right"]
    else:
        default_length, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        alignments = ["left", "left", "right", "left"]
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header, alignments = [*header, "Trainable"], [*alignments, "center"]
    line_length = line_length or min(default_length, shutil.get_terminal_size().columns - 4)
    rows = []
    for i, layer in enumerate(layers):
        shape = layer._summary_output_shape()
        row = [f"{layer.name} ({type(layer).__name__})", "?" if shape is None else shape, layer_params(layer)]
        if connections is not None:
            row.append(connections[i])
        if show_trainable:
            row.append(("Y" if layer.trainable else "N") if layer.weights else "-")
        rows.append(row)
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    optimizer_weights = optimizer.variables if optimizer is not None and optimizer.built else None
    total = count_params(trainable) + count_params(non_trainable) + count_params(optimizer_weights or [])
    total_size = memory_size(trainable) + memory_size(non_trainable) + memory_size(optimizer_weights or [])
    lines = [
        f'Model: "{model.name}"',
        *table(header, rows, alignments, line_length, positions),
        f" Total params: {total:,} ({readable_memory_size(total_size)})",
        f" Trainable params: {count_params(trainable):,} ({readable_memory_size(memory_size(trainable))})",
        f" Non-trainable params: {count_params(non_trainable):,} ({readable_memory_size(memory_size(non_trainable))})",
    ]
    if optimizer_weights is not None:
        lines.append(
            f" Optimizer params: {count_params(optimizer_weights):,} "
            f"({readable_memory_size(memory_size(optimizer_weights))})"
        )
    return lines


def print_summary(
    model: Any,
    line_length: int | None = None,
    positions: list[float] | None = None,
    print_fn: Any = None,
    show_trainable: bool = False,
) -> None:
    text = "\n".join(summary_lines(model, line_length, positions, show_trainable)) + "\n"
    if print_fn is None:
        print(text, end="")
    else:
        print_fn(text)
