"""`tf.data`: input pipelines (minitf/data/; TFRecord files in minitf/io/tfrecord.py)."""

from minitf.api.data import experimental
from minitf.data import ragged_batching as _ragged_batching  # provides Dataset.ragged_batch
from minitf.data.dataset import AUTOTUNE, Dataset
from minitf.data.dataset import INFINITE as INFINITE_CARDINALITY
from minitf.data.dataset import UNKNOWN as UNKNOWN_CARDINALITY
from minitf.data.reshaping import DatasetSpec
from minitf.data.sources import Options
from minitf.io.tfrecord import TFRecordDataset
