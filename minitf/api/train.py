"""`tf.train`: checkpoints (minitf/saved/checkpoint.py) and the `Example` records of TFRecord files
(minitf/io/example_proto.py)."""

from minitf.io.example_proto import BytesList, Example, Feature, Features, FloatList, Int64List
from minitf.saved.checkpoint import Checkpoint, CheckpointManager, latest_checkpoint, list_variables
