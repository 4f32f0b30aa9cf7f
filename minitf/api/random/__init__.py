"""`tf.random`: seeded sampling with TensorFlow's numbers (stateful ops, stateless ops, Generator)."""

from minitf.api.random import experimental
from minitf.ops.random.generator import (
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)
from minitf.ops.random.random_ops import categorical, normal, set_seed, shuffle, truncated_normal, uniform
from minitf.ops.random.stateless_random_ops import (
    fold_in,
    split,
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
)

__all__ = [
    "Algorithm",
    "Generator",
    "categorical",
    "create_rng_state",
    "experimental",
    "fold_in",
    "get_global_generator",
    "normal",
    "set_global_generator",
    "set_seed",
    "shuffle",
    "split",
    "stateless_categorical",
    "stateless_normal",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
]
