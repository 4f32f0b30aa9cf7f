"""Public names beyond the core: `tf.sparse`, `tf.ragged`, `tf.strings`, `tf.data`, `tf.saved_model`,
`tf.train` and the composite classes.

The namespaces list only names TensorFlow has there. `install_ragged_dispatch` lets the everyday ops (`tf.add`,
`tf.reduce_sum`, `tf.math.sqrt`, ...) accept RaggedTensors, as TensorFlow's dispatch does.
"""

from __future__ import annotations

import types
from typing import Any

from minitf.composite import sparse as _sparse
from minitf.composite import sparse_ops as _sparse_extra
from minitf.composite.ragged import factories as _ragged_factories  # installs RaggedTensor's factories and conversions
from minitf.composite.ragged.constant import constant as _ragged_constant
from minitf.composite.ragged.dispatch import dispatching as _ragged_dispatching
from minitf.composite.ragged.dispatch import map_flat_values as _map_flat_values
from minitf.composite.ragged.indexing import getitem as _ragged_getitem  # noqa: F401 - installs rt[...] on RaggedTensor
from minitf.composite.ragged.tensor import RaggedTensor  # noqa: F401
from minitf.composite.sparse import SparseTensor  # noqa: F401
from minitf.composite.specs import RaggedTensorSpec, SparseTensorSpec  # noqa: F401
from minitf.data import dataset as _dataset
from minitf.data import methods as _dataset_methods
from minitf.data import ragged_batching as _ragged_batching  # also adds Dataset.ragged_batch
from minitf.data import reshaping as _dataset_reshaping
from minitf.data import sources as _dataset_sources
from minitf.io import example_proto as _example
from minitf.io import parsing as _parsing
from minitf.io import tensor_proto as _tensor_proto
from minitf.io import tfrecord as _tfrecord
from minitf.ops.math import segment_ops as _segment_ops
from minitf.ops.strings import farmhash as _farmhash
from minitf.ops.strings import string_tensors as _strings
from minitf.ops.strings import text_ops as _string_ops
from minitf.saved import checkpoint as _checkpoint
from minitf.saved import saved_model as _saved_model

sparse = types.SimpleNamespace(
    SparseTensor=_sparse.SparseTensor, to_dense=_sparse.to_dense, from_dense=_sparse.from_dense,
    add=_sparse.add, reorder=_sparse.reorder, sparse_dense_matmul=_sparse.sparse_dense_matmul,
    reduce_sum=_sparse.sparse_reduce_sum, transpose=_sparse.sparse_transpose, map_values=_sparse.map_values,
    concat=_sparse_extra.concat, slice=_sparse_extra.slice, reduce_max=_sparse_extra.reduce_max,
)

ragged = types.SimpleNamespace(constant=_ragged_constant, map_flat_values=_map_flat_values,
                               range=_ragged_factories.ragged_range,
                               row_splits_to_segment_ids=_segment_ops.row_splits_to_segment_ids,
                               segment_ids_to_row_splits=_segment_ops.segment_ids_to_row_splits)

strings = types.SimpleNamespace(
    split=_strings.split, to_number=_strings.to_number, length=_strings.length,
    bytes_split=_strings.bytes_split, join=_strings.join, lower=_strings.lower, upper=_strings.upper,
    unicode_decode=_strings.unicode_decode, unicode_encode=_strings.unicode_encode,
    reduce_join=_strings.reduce_join, unicode_split=_string_ops.unicode_split, strip=_string_ops.strip,
    regex_replace=_string_ops.regex_replace, regex_full_match=_string_ops.regex_full_match,
    as_string=_string_ops.as_string, substr=_string_ops.substr, to_hash_bucket_fast=_farmhash.to_hash_bucket_fast,
)

data = types.SimpleNamespace(
    Dataset=_dataset.Dataset, TFRecordDataset=_tfrecord.TFRecordDataset, Options=_dataset_sources.Options,
    DatasetSpec=_dataset_reshaping.DatasetSpec,
    AUTOTUNE=_dataset.AUTOTUNE, INFINITE_CARDINALITY=_dataset.INFINITE,
    UNKNOWN_CARDINALITY=_dataset.UNKNOWN,
    experimental=types.SimpleNamespace(cardinality=lambda dataset: dataset.cardinality(), AUTOTUNE=_dataset.AUTOTUNE,
                                       assert_cardinality=_dataset_sources.assert_cardinality,
                                       Counter=_dataset_sources.counter,
                                       INFINITE_CARDINALITY=_dataset.INFINITE, UNKNOWN_CARDINALITY=_dataset.UNKNOWN,
                                       dense_to_ragged_batch=_ragged_batching.dense_to_ragged_batch),
)

_dataset_methods.install()

saved_model = types.SimpleNamespace(save=_saved_model.save, load=_saved_model.load)

train = types.SimpleNamespace(Checkpoint=_checkpoint.Checkpoint, CheckpointManager=_checkpoint.CheckpointManager,
                              latest_checkpoint=_checkpoint.latest_checkpoint,
                              list_variables=_checkpoint.list_variables,
                              Example=_example.Example, Features=_example.Features, Feature=_example.Feature,
                              BytesList=_example.BytesList, FloatList=_example.FloatList,
                              Int64List=_example.Int64List)

io = types.SimpleNamespace(serialize_tensor=_tensor_proto.serialize_tensor, parse_tensor=_tensor_proto.parse_tensor,
                           FixedLenFeature=_parsing.FixedLenFeature, VarLenFeature=_parsing.VarLenFeature,
                           RaggedFeature=_parsing.RaggedFeature, parse_single_example=_parsing.parse_single_example,
                           parse_example=_parsing.parse_example, TFRecordWriter=_tfrecord.TFRecordWriter,
                           TFRecordOptions=_tfrecord.TFRecordOptions)

_ELEMENTWISE = ("abs", "add", "subtract", "multiply", "divide", "truediv", "maximum", "minimum", "negative",
                "square", "sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid", "cast", "equal", "not_equal",
                "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not",
                "floor", "round", "sign", "pow",
                # tf.strings: one string in, one value out, so a RaggedTensor of strings keeps its rows
                "substr", "to_hash_bucket_fast", "upper", "lower", "strip", "regex_replace", "regex_full_match",
                "as_string", "to_number")
_REDUCTIONS = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod")
_ARRAY = ("concat", "tile", "reverse")  # the ragged versions: minitf/composite/ragged/array_ops.py
_SHAPES = ("shape", "zeros", "ones")  # ragged shapes: minitf/composite/ragged/dynamic_shape.py
_KINDS = {"gather": "ids", "embedding_lookup": "ids", "join": "listed", "map_fn": "map"}


def install_ragged_dispatch(*namespaces: Any) -> None:
    """Replace the everyday ops in each namespace by versions that also take RaggedTensors.

    One wrapper per function, so that names TensorFlow shares stay the same object (`tf.add is tf.math.add`).
    """
    wrappers: dict[int, Any] = {}
    for namespace in namespaces:
        for name in _ELEMENTWISE + _REDUCTIONS + _ARRAY + _SHAPES + tuple(_KINDS):
            fn = getattr(namespace, name, None)
            if fn is None or getattr(fn, "_ragged_aware", False):
                continue
            wrapped = wrappers.get(id(fn))
            if wrapped is None:
                kind = "reduce" if name in _REDUCTIONS else "array" if name in _ARRAY else "shape" \
                    if name in _SHAPES else _KINDS.get(name, "elementwise")
                wrapped = _ragged_dispatching(fn, kind)
                wrapped._ragged_aware = True  # type: ignore[attr-defined]
                wrappers[id(fn)] = wrapped
            setattr(namespace, name, wrapped)


install_ragged_dispatch(strings)
