"""The progress line `fit`, `evaluate` and `predict` print, character for character as Keras prints it.

With verbose=1 the line is redrawn in place (backspaces, then `\\r`) at most every 0.05 s and once more at the
end of the epoch with the epoch's metrics; verbose=2 prints only that last line, without the bar.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

import numpy as np

BAR_WIDTH = 20
REDRAW_INTERVAL = 0.05


def format_time_per_unit(seconds: float, unit: str) -> str:
    """` 12ms/step`: whole seconds, milliseconds or microseconds, whichever reads best."""
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit}"
    if seconds >= 1e-3:
        return f" {seconds * 1000.0:.0f}ms/{unit}"
    return f" {seconds * 1000000.0:.0f}us/{unit}"


def format_value(value: Any, signed: bool = True) -> str:
    """Four decimals, or scientific notation for values near zero (`0.0000e+00`). Keras's verbose=2 line tests
    the value itself, not its size (`signed=False`), so negative values print in scientific notation there. A
    metric of one value per class (F1Score) shows their mean."""
    value = float(np.mean(value))
    small = abs(value) <= 1e-3 if signed else value <= 1e-3
    return f" {value:.4e}" if small else f" {value:.4f}"


def _eta(seconds: float) -> str:
    if seconds > 3600:
        return f"{int(seconds // 3600)}:{int((seconds % 3600) // 60):02d}:{int(seconds % 60):02d}"
    if seconds > 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


class Progbar:
    """`keras.utils.Progbar`: metrics are shown as given (the callers pass running means already)."""

    def __init__(
        self,
        target: int | None,
        width: int = BAR_WIDTH,
        verbose: int = 1,
        interval: float = REDRAW_INTERVAL,
        unit_name: str = "step",
    ) -> None:
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self._values: dict[str, Any] = {}
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step: float | None = None
        self._prev_total_width = 0

    def _step_duration(self, current: int, now: float) -> float:
        """Seconds per step, leaving out the first step (it includes tracing) once there are more."""
        if not current:
            return 0.0
        if self._time_after_first_step is not None and current > 1:
            per_step = (now - self._time_after_first_step) / (current - 1)
        else:
            per_step = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_step

    def update(self, current: int, values: list[tuple[str, Any]] | None = None, finalize: bool | None = None) -> None:
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            self._values[name] = value
        now = time.time()
        per_step = self._step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw(current, now, per_step, finalize)
        elif self.verbose == 2 and finalize and self.target:
            count = f"{current:{int(math.log10(self.target)) + 1}d}/{self.target}"
            info = f"{count} - {now - self._start:.0f}s -{format_time_per_unit(per_step, self.unit_name)}"
            info += "".join(f" - {name}:{format_value(value, False)}" for name, value in self._values.items())
            sys.stdout.write(info + "\n")
            sys.stdout.flush()
        self._last_update = now

    def _draw(self, current: int, now: float, per_step: float, finalize: bool) -> None:
        """One redraw: erase the old line, then count, bar, time and metrics. Colour codes take no width."""
        message = "\b" * self._prev_total_width + "\r"
        hidden = 0  # characters of terminal escape codes, which take no room on screen
        if self.target:
            digits = int(math.log10(self.target)) + 1
            bar = f"\x1b[1m{current:{digits}d}/{self.target}\x1b[0m "
            hidden += 8
            done = int(self.width * float(current) / self.target)
            if done > 0:
                bar += f"\x1b[32m{'━' * done}\x1b[0m"
                hidden += 9
            bar += f"\x1b[37m{'━' * (self.width - done)}\x1b[0m"
            hidden += 9
        else:
            bar = f"{current:7d}/Unknown"
        if self.target and not finalize:
            info = f" \x1b[1m{_eta(per_step * (self.target - current))}\x1b[0m"
        else:
            info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
        hidden += 8
        info += format_time_per_unit(per_step, self.unit_name)
        info += "".join(f" - {name}:{format_value(value)}" for name, value in self._values.items())
        total_width = len(bar) + len(info) - hidden
        message += bar + info
        if self._prev_total_width > total_width:
            message += " " * (self._prev_total_width - total_width)
        if finalize:
            message += "\n"
        sys.stdout.write(message)
        sys.stdout.flush()
        self._prev_total_width = total_width
