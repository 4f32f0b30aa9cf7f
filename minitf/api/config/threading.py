"""`tf.config.threading`: the intra-op and inter-op thread counts (minitf/core/threads.py)."""

from minitf.core.threads import (
    get_inter_op_parallelism_threads,
    get_intra_op_parallelism_threads,
    set_inter_op_parallelism_threads,
    set_intra_op_parallelism_threads,
)

__all__ = [
    "get_inter_op_parallelism_threads",
    "get_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
    "set_intra_op_parallelism_threads",
]
