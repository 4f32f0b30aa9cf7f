"""`tf.data.experimental`: where some of tf.data's names lived first (TensorFlow still exports them here)."""

from minitf.data.dataset import AUTOTUNE
from minitf.data.dataset import INFINITE as INFINITE_CARDINALITY
from minitf.data.dataset import UNKNOWN as UNKNOWN_CARDINALITY
from minitf.data.ragged_batching import dense_to_ragged_batch
from minitf.data.sources import assert_cardinality, cardinality
from minitf.data.sources import counter as Counter
