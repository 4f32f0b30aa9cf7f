"""`tf.data`: input pipelines (minitf/data/; TFRecord files in minitf/io/tfrecord.py)."""

import minitf.left_out as left_out
from minitf.api.data import experimental
from minitf.data import ragged_batching as _ragged_batching  # provides Dataset.ragged_batch
from minitf.data.dataset import AUTOTUNE, Dataset
from minitf.data.dataset import INFINITE as INFINITE_CARDINALITY
from minitf.data.dataset import UNKNOWN as UNKNOWN_CARDINALITY
from minitf.data.file_sources import FixedLengthRecordDatasetV2 as FixedLengthRecordDataset
from minitf.data.file_sources import TextLineDatasetV2 as TextLineDataset
from minitf.data.iterators import NumpyIterator
from minitf.data.reshaping import DatasetSpec
from minitf.data.sources import Options
from minitf.io.tfrecord import TFRecordDataset

LEFT_OUT: dict[str, str] = {
    "Iterator": "the abstract class of dataset iterators is not exported; iterate a dataset with `for` or iter()",
    "IteratorSpec": "iterators cannot be passed into a tf.function in minitf; pass the dataset or its elements",
    "ThreadingOptions": "minitf's pipelines run on the calling thread; there is no thread pool to configure",
}
__getattr__ = left_out.module_getattr("tf.data", LEFT_OUT)
