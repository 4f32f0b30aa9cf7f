"""`tf.io`: tensors as bytes, `Example` parsing and TFRecord files (minitf/io/)."""

from minitf.io.parsing import FixedLenFeature, RaggedFeature, VarLenFeature, parse_example, parse_single_example
from minitf.io.tensor_proto import parse_tensor, serialize_tensor
from minitf.io.tfrecord import TFRecordOptions, TFRecordWriter
