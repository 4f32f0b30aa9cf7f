"""`tf.nest`: nested lists, tuples and dicts flattened to their leaves and packed back (minitf/core/nest.py)."""

from minitf.core.nest import assert_same_structure, flatten, is_nested, map_structure, pack_sequence_as
