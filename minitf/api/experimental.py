"""`tf.experimental`: `DynamicRaggedShape` (what `tf.shape` of a RaggedTensor returns), and minitf's own switch
between NumPy's float kernels and TensorFlow's exact ones (`numerics`, `get_numerics`: minitf/numerics.py).
TensorFlow's other experimental names (extension types, dlpack, ...) are not part of minitf."""

from minitf.composite.ragged.dynamic_shape import DynamicRaggedShape
from minitf.numerics import get_numerics, numerics

__all__ = ["DynamicRaggedShape", "get_numerics", "numerics"]
