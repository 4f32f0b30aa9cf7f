"""`tf.random.experimental`: where these names lived first (TensorFlow still exports them here)."""

from minitf.ops.random.generator import (
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)
from minitf.ops.random.stateless_random_ops import fold_in as stateless_fold_in
from minitf.ops.random.stateless_random_ops import split as stateless_split
