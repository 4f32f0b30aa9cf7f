"""How many threads one op may use: `tf.config.threading`'s intra-op and inter-op settings.

TensorFlow reads both when its runtime starts and refuses another value afterwards. minitf's only
multi-threaded work is a large compiled region of a `jit_compile=True` function (jit/parallel.py), which
splits its outer loop over the intra-op threads: the setting is fixed once those threads exist, or once the
devices are (devices.py); before that, any value may be set, as in TensorFlow before its first op.
0 (the default) means one thread per core this process may run on.
"""

from __future__ import annotations

import operator
import os

from minitf.core import devices

_settings: dict[str, int | None] = {"intra": None, "inter": None}  # None: never set (reads as 0)
_started = [False]  # the intra-op threads exist


def _set(kind: str, label: str, num_threads: int) -> None:
    value = operator.index(num_threads)  # TensorFlow: TypeError for a str, a float
    if devices._initialized[0] or (kind == "intra" and _started[0]):
        if _settings[kind] == value:
            return
        raise RuntimeError(
            f"{label} parallelism cannot be modified after initialization.\nHint: set it first "
            "thing in the program, before any function with jit_compile=True runs."
        )
    _settings[kind] = value


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Threads one op may use (0: one per core)."""
    _set("intra", "Intra op", num_threads)


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Ops that may run at once (minitf runs one op at a time; kept for TensorFlow's API)."""
    _set("inter", "Inter op", num_threads)


def get_intra_op_parallelism_threads() -> int:
    return _settings["intra"] or 0


def get_inter_op_parallelism_threads() -> int:
    return _settings["inter"] or 0


def cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or `taskset` narrows)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def intra_op_threads() -> int:
    """How many threads a parallel region uses, from now on fixed for this process."""
    _started[0] = True
    wanted = get_intra_op_parallelism_threads()
    return wanted if wanted > 0 else cores()
