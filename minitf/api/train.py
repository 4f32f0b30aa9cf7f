"""`tf.train`: checkpoints (minitf/saved/checkpoint.py) and the `Example` records of TFRecord files
(minitf/io/example_proto.py)."""

import minitf.left_out as left_out
from minitf.io.example_proto import BytesList, Example, Feature, Features, FloatList, Int64List
from minitf.io.sequence_proto import FeatureList, FeatureLists, SequenceExample
from minitf.saved.checkpoint import Checkpoint, CheckpointManager, latest_checkpoint, list_variables

LEFT_OUT: dict[str, str] = {
    **dict.fromkeys(
        ["ClusterDef", "ClusterSpec", "JobDef", "ServerDef"],
        "minitf runs in one process; there are no clusters, servers or jobs to describe",
    ),
    "CheckpointOptions": "checkpoints are written by the calling thread, with no options to set",
    "CheckpointView": "inspecting a checkpoint's object graph is not implemented; use tf.train.list_variables",
    "TrackableView": "inspecting an object's trackable children is not implemented",
    "Coordinator": "threads that feed TensorFlow 1 queues are not coordinated; use Python's threading",
    "ExponentialMovingAverage": "not implemented; keep an average in a tf.Variable and update it with assign",
    "checkpoints_iterator": "waiting for new checkpoints is not implemented; use tf.train.latest_checkpoint",
    "experimental": "tf.train.experimental (loss scaling, PythonState) is not implemented",
    "get_checkpoint_state": "the CheckpointState protocol buffer is not implemented; use tf.train.latest_checkpoint",
    "load_checkpoint": "reading checkpoints through a CheckpointReader is not implemented; use tf.train.list_variables",
    "load_variable": "reading one variable from a checkpoint is not implemented; restore it with tf.train.Checkpoint",
}
__getattr__ = left_out.module_getattr("tf.train", LEFT_OUT)
