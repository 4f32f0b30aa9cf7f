"""`tf.bitwise`: and, or, xor, invert and shifts of integer tensors."""

from minitf.ops.math.bitwise_ops import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)
