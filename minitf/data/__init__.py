"""`tf.data`: input pipelines (see dataset.py)."""

from minitf.data.dataset import AUTOTUNE, Dataset, DatasetV2, OwnedIterator  # noqa: F401
from minitf.data.dataset import INFINITE as INFINITE_CARDINALITY  # noqa: F401
from minitf.data.dataset import UNKNOWN as UNKNOWN_CARDINALITY  # noqa: F401
