"""`tf.debugging`: checks that stop a program with a clear error when a tensor is not what it should be."""

from minitf.ops.check_ops import assert_equal, assert_shapes, check_numerics  # noqa: F401
