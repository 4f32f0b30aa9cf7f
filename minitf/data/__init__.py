"""`tf.data`: input pipelines (see dataset.py)."""

import types as _types

from minitf.data.dataset import AUTOTUNE, Dataset, DatasetV2, OwnedIterator  # noqa: F401
from minitf.data.dataset import INFINITE as INFINITE_CARDINALITY
from minitf.data.dataset import UNKNOWN as UNKNOWN_CARDINALITY

experimental = _types.SimpleNamespace(
    cardinality=lambda dataset: dataset.cardinality(), AUTOTUNE=AUTOTUNE,
    INFINITE_CARDINALITY=INFINITE_CARDINALITY, UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY)
