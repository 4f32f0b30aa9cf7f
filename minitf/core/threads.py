"""How many threads one op may use: `tf.config.threading`'s intra-op and inter-op settings.

TensorFlow reads both when its runtime starts and refuses another value afterwards. minitf's own
multi-threaded work is a large compiled region of a `jit_compile=True` function (jit/parallel.py), which
splits its outer loop over the intra-op threads: the setting is fixed once those threads exist, or once the
devices are (devices.py); before that, any value may be set, as in TensorFlow before its first op.
0 (the default) means one thread per core this process may run on.

NumPy's matrix products run on its BLAS's threads; `one_blas_thread` keeps a product that cannot use them
on the calling thread.
"""

from __future__ import annotations

import contextlib
import operator
import os
import threading
from collections.abc import Iterator
from typing import Any

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


_blas: list[Any] = []  # threadpoolctl's handle on NumPy's BLAS libraries, made on first use
_blas_lock = threading.Lock()  # one thread count for the whole process: two blocks must not interleave


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """NumPy's matrix products on the calling thread alone, for the block.

    For a thin product (one side a few dozen long: a convolution's patches of a grey image are 9 wide) every
    value read is used a few times only, so the product is as fast as memory on one core and a second thread
    gains nothing; on a busy machine the BLAS's threads wait for one another instead, and the same product
    takes several times as long."""
    if not _blas:
        from threadpoolctl import ThreadpoolController  # on first use: it scans the libraries loaded (ms)

        _blas.append(ThreadpoolController().select(user_api="blas"))
    with _blas_lock, _blas[0].limit(limits=1):
        yield
