"""`tf.debugging`: checks that stop a program with a clear error when a tensor is not what it should be,
and the switch that logs where ops run."""

from minitf.core.devices import get_log_device_placement, set_log_device_placement
from minitf.ops.checks.assert_ops import (
    Assert,
    assert_greater,
    assert_greater_equal,
    assert_less,
    assert_less_equal,
    assert_rank,
)
from minitf.ops.checks.check_ops import assert_equal, assert_shapes, check_numerics
