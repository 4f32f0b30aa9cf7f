"""Devices: `tf.device(...)`, `tf.config.list_physical_devices`, `Tensor.device` and placement logging.

minitf runs every op on the one CPU it has, as TensorFlow does on a machine without accelerators. What a
student sees is still TensorFlow's: an eager tensor lives on `/job:localhost/replica:0/task:0/device:CPU:0`;
`with tf.device("/GPU:0"):` is accepted and (soft placement) still computes on the CPU; inside a
`tf.function` the requested device is written on each operation (`op.device == "/device:GPU:0"`), merged
with the enclosing `tf.device` blocks the way TensorFlow merges device specifications.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NamedTuple

from minitf.core import logs
from minitf.core.context import state

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"

_FIELDS = ("job", "replica", "task", "device_type", "device_index")


class DeviceSpec(NamedTuple):
    """A parsed device string; None marks a field the string leaves open."""

    job: str | None = None
    replica: int | None = None
    task: int | None = None
    device_type: str | None = None
    device_index: int | None = None

    @classmethod
    def from_string(cls, spec: str) -> DeviceSpec:
        """Parse `/job:x/replica:0/task:0/device:CPU:0` and its short forms (`cpu:0`, `/GPU:0`, `CPU`)."""
        fields: dict[str, Any] = {}
        for part in spec.split("/"):
            if not part:
                continue
            pieces = part.split(":")
            key = pieces[0].lower()
            if len(pieces) == 2 and key in ("job", "replica", "task"):
                fields[key] = pieces[1] if key == "job" else int(pieces[1])
            elif key == "device" and len(pieces) in (2, 3):
                fields["device_type"] = _device_type(pieces[1])
                if len(pieces) == 3 and pieces[2] != "*":
                    fields["device_index"] = int(pieces[2])
            elif len(pieces) in (1, 2) and (key in ("cpu", "gpu", "tpu") or (len(pieces) == 2 and pieces[1].isdigit())):
                fields["device_type"] = _device_type(pieces[0])
                if len(pieces) == 2 and pieces[1] != "*":
                    fields["device_index"] = int(pieces[1])
            else:
                raise ValueError(
                    f"Unknown attribute '{part}' is encountered while parsing the device spec: "
                    f"'{spec}'.\nHint: write a device as '/CPU:0', '/GPU:0' or "
                    f"'/job:localhost/replica:0/task:0/device:CPU:0'."
                )
        return cls(**fields)

    def merged_into(self, outer: DeviceSpec) -> DeviceSpec:
        """This (inner) specification completed by the fields the enclosing one sets."""
        fields: list[Any] = [mine if mine is not None else theirs for mine, theirs in zip(self, outer)]
        return DeviceSpec(*fields)

    def to_string(self) -> str:
        parts = []
        if self.job is not None:
            parts.append(f"/job:{self.job}")
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)


def _device_type(name: str) -> str:
    return name.upper() if name.upper() in ("CPU", "GPU", "TPU") else name


# The device blocks entered so far, innermost last (None: `tf.device(None)` cleared the outer ones).
_stack: list[DeviceSpec | None] = []


def current_spec() -> DeviceSpec | None:
    """The merged specification of the enclosing `tf.device` blocks (None when there is none)."""
    merged: DeviceSpec | None = None
    for spec in _stack:
        if spec is None:
            merged = None
        else:
            merged = spec if merged is None else spec.merged_into(merged)
    return merged


def graph_device() -> str:
    """The device string a traced operation gets: what the enclosing `tf.device` blocks ask for."""
    if not _stack:
        return ""
    spec = current_spec()
    return "" if spec is None else spec.to_string()


class device:  # TensorFlow's name
    """`tf.device(name)`: ops created in the block are placed on `name` (here: always the CPU).

    `with tf.device(...) as d:` binds None, as in TensorFlow.
    """

    def __init__(self, device_name: str | None) -> None:
        if callable(device_name):
            raise RuntimeError("tf.device does not support functions.\nHint: pass a device name such as '/CPU:0'.")
        self._spec = None if not device_name else DeviceSpec.from_string(str(device_name))

    def __enter__(self) -> None:
        _stack.append(self._spec)

    def __exit__(self, *exc: Any) -> None:
        _stack.pop()


class PhysicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDeviceConfiguration(NamedTuple):
    """One logical device to make out of a physical one (`tf.config.LogicalDeviceConfiguration()`); a CPU
    ignores the memory limit and priority, as TensorFlow's CPU does."""

    memory_limit: int | None = None
    experimental_priority: int | None = None
    experimental_device_ordinal: int | None = None


_PHYSICAL = [PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")]
# The logical devices of the one CPU: one until `set_logical_device_configuration` splits it (as TensorFlow does
# to try MirroredStrategy on one machine). TensorFlow fixes them when its runtime starts (its first op, or the
# first listing of logical devices); minitf fixes them when they are first listed or a strategy is made (its ops
# do not check, so that the eager path stays one flag), and from then on refuses a new configuration as
# TensorFlow does.
_configuration: list[LogicalDeviceConfiguration] | None = None
_initialized = [False]


def _logical() -> list[LogicalDevice]:
    count = len(_configuration) if _configuration else 1
    return [LogicalDevice(name=f"/device:CPU:{i}", device_type="CPU") for i in range(count)]


def mark_initialized() -> None:
    _initialized[0] = True


def set_logical_device_configuration(device: PhysicalDevice, logical_devices: Any) -> None:
    """Split the CPU into `len(logical_devices)` logical CPUs (`/device:CPU:0`, `/device:CPU:1`, ...)."""
    global _configuration
    if device not in _PHYSICAL:
        raise ValueError(f"Unrecognized device: {device!r}\nHint: pass one of tf.config.list_physical_devices().")
    configuration = list(logical_devices) if logical_devices is not None else None
    if _initialized[0]:
        if configuration == (_configuration or None):
            return
        raise RuntimeError(
            "Virtual devices cannot be modified after being initialized\nHint: configure the "
            "logical devices first thing in the program, before any device is listed or used."
        )
    _configuration = configuration


def get_logical_device_configuration(device: PhysicalDevice) -> list[LogicalDeviceConfiguration] | None:
    return None if _configuration is None else list(_configuration)


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The machine's devices: one CPU (`device_type` is compared exactly: 'cpu' finds nothing, as in TensorFlow)."""
    return [d for d in _PHYSICAL if device_type is None or d.device_type == device_type]


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The devices ops can be placed on: the CPU's logical devices (one unless configured otherwise)."""
    mark_initialized()
    return [d for d in _logical() if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    return list_physical_devices(device_type)


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """Accepted for the scripts that hide GPUs (`set_visible_devices([], "GPU")`): there are none to hide."""


def get_device_details(device: PhysicalDevice) -> dict:
    """A CPU has no details to report (GPUs list their name and compute capability)."""
    return {}


# tf.test: what scripts ask before choosing where to run.


def gpu_device_name() -> str:
    return ""


def is_built_with_cuda() -> bool:
    return False


def is_built_with_gpu_support() -> bool:
    return False


def is_gpu_available(cuda_only: bool = False, min_cuda_compute_capability: Any = None) -> bool:
    """False, with TensorFlow's deprecation warning naming the caller's line."""
    caller = sys._getframe(1)
    logs.warning(
        "From %s:%d: is_gpu_available (from tensorflow.python.framework.test_util) is deprecated and will be "
        "removed in a future version.\nInstructions for updating:\nUse `tf.config.list_physical_devices('GPU')` "
        "instead.",
        caller.f_code.co_filename,
        caller.f_lineno,
    )
    return False


# ---------------------------------------------------------------------------------------------------
# Placement logging
# ---------------------------------------------------------------------------------------------------

_log_placement = [False]


def set_log_device_placement(enabled: bool) -> None:
    """`tf.debugging.set_log_device_placement`: print where ops run.

    TensorFlow's C++ runtime writes these lines straight to the process's standard output (file descriptor
    1): in a terminal they follow the program's output, in Jupyter they go to the server's log, not the cell.
    It logs an op the first time it runs with given input dtypes (when its kernel is made), and only if
    the switch was set before the first op of the program ran. minitf writes to the same place, once per op
    and dtypes, whenever the switch is on; it logs the op's own line (`Mul: (Mul): /job:localhost/...`),
    not the `_Arg`/`_Retval` lines of TensorFlow's one-op wrapper functions.
    """
    _log_placement[0] = bool(enabled)
    state.log_placement = _log_placement[0]
    state.refresh()


def get_log_device_placement() -> bool:
    return _log_placement[0]


_logged: set[tuple] = set()


def log_placement(op_name: str, inputs: tuple) -> None:
    """Write TensorFlow's placement line for an eagerly executed op, once per op and input dtypes."""
    key = (op_name, *(getattr(t, "dtype", None) for t in inputs))
    if key not in _logged:
        _logged.add(key)
        os.write(1, f"{op_name}: ({op_name}): {CPU_DEVICE}\n".encode())
