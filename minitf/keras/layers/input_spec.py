"""`InputSpec`: what a layer accepts (rank, last axis), checked on every call with Keras's messages."""

from __future__ import annotations

from typing import Any


class InputSpec:
    def __init__(
        self,
        ndim: int | None = None,
        min_ndim: int | None = None,
        max_ndim: int | None = None,
        axes: dict[int, int] | None = None,
        dtype: str | None = None,
        name: str | None = None,
    ) -> None:
        self.ndim, self.min_ndim, self.max_ndim = ndim, min_ndim, max_ndim
        self.axes, self.dtype, self.name = axes or {}, dtype, name


def _shape_tuple(x: Any) -> tuple:
    return tuple(x.shape.as_list()) if hasattr(x.shape, "as_list") else tuple(x.shape)


def check_input(spec: InputSpec | None, x: Any, layer_name: str, index: int = 0) -> None:
    """Raise Keras's ValueError when `x` does not fit `spec` (the shape a layer was built for, usually)."""
    if spec is None:
        return
    shape = _shape_tuple(x)
    ndim = len(shape)
    where = f"Input {index} with name '{spec.name}' of layer '{layer_name}' is incompatible with the layer: "
    if spec.ndim is not None and ndim != spec.ndim:
        raise ValueError(f"{where}expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(f"{where}expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(f"{where}expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape received: {shape}")
    for axis, value in spec.axes.items():
        if value is not None and shape[axis] not in {value, None}:
            raise ValueError(
                f"{where}expected axis {axis} of input shape to have value {value}, "
                f"but received input with shape {shape}"
            )
