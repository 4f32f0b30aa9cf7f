"""`tf.random`: seeded sampling."""

from minitf.ops.random_ops import normal, set_seed, shuffle, truncated_normal, uniform  # noqa: F401
