"""`tf.queue`: queues of tensors (minitf/ops/queues.py)."""

import minitf.left_out as left_out
from minitf.ops.queues import FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue

LEFT_OUT: dict[str, str] = {}
__getattr__ = left_out.module_getattr("tf.queue", LEFT_OUT)
