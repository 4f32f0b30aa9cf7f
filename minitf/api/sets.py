"""`tf.sets`: rows of tensors as sets (minitf/composite/set_ops.py)."""

import minitf.left_out as left_out
from minitf.composite.set_ops import difference, intersection, size, union

LEFT_OUT: dict[str, str] = {}
__getattr__ = left_out.module_getattr("tf.sets", LEFT_OUT)
