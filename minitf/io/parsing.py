"""`tf.io.parse_single_example` / `tf.io.parse_example`: serialized `tf.train.Example`s to tensors, by a
description of the features (`FixedLenFeature`: a dense tensor of known shape; `VarLenFeature`: a
SparseTensor; `RaggedFeature`: a RaggedTensor). One op (`ParseExampleV2`) does the parsing, so a
`dataset.map(parse)` traces it like any other op and runs it on each record.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.composite.sparse import SparseTensor
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, kernel_prefix
from minitf.core.op import Op, bind
from minitf.core.tensor_shape import TensorShape
from minitf.io.example_proto import Example

_LIST_DTYPES = {"bytes_list": dtypes.string, "float_list": dtypes.float32, "int64_list": dtypes.int64}


class FixedLenFeature(NamedTuple):
    shape: Any
    dtype: Any
    default_value: Any = None


class VarLenFeature(NamedTuple):
    dtype: Any


class RaggedFeature(NamedTuple):
    dtype: Any
    value_key: str | None = None
    partitions: tuple = ()
    row_splits_dtype: Any = dtypes.int32
    validate: bool = False


def _values_of(example: Example, key: str, dtype: dtypes.DType, features: tuple) -> np.ndarray | None:
    feature = example.features.feature.get(key)
    if feature is None or feature.WhichOneof("kind") is None:
        return None
    kind = feature.WhichOneof("kind")
    if _LIST_DTYPES[kind] is not dtype:  # type: ignore[index]
        found = _LIST_DTYPES[kind]  # type: ignore[index]
        raise _parse_error(
            features,
            f"Key: {key}.  Data types don't match. Data type: {found.name} but expected type: {_proto_name(dtype)}",
            f"describe {key!r} with dtype tf.{found.name}.",
        )
    return np.array(getattr(feature, kind).value, dtype=dtype._np)  # type: ignore[arg-type]


def _parse_error(features: tuple, message: str, hint: str) -> Exception:
    """TensorFlow's message: its wrapped function's name lists the op's type attributes, and no `name:` follows."""
    count = {kind: sum(f[1] == kind for f in features) for kind in ("fixed", "varlen", "ragged")}
    node = (
        f"ParseExampleV2_Tdense_{count['fixed']}_num_sparse_{count['varlen']}_ragged_split_types_"
        f"{count['ragged']}_ragged_value_types_{count['ragged']}_sparse_types_{count['varlen']}"
    )
    return InvalidArgumentError(None, None, f"{kernel_prefix(node)}{message} [Op:ParseExampleV2]\nHint: {hint}")


def _proto_name(dtype: dtypes.DType) -> str:
    return {"float32": "float", "string": "string", "int64": "int64"}[dtype.name]


def _parse_kernel(serialized: np.ndarray, *, features: tuple, batched: bool) -> tuple:
    records = [bytes(r) for r in np.asarray(serialized, dtype=object).reshape(-1)]
    examples = [Example.FromString(r) for r in records]
    outputs: list[np.ndarray] = []
    for key, kind, dtype, shape, default in features:
        columns = [_values_of(e, key, dtype, features) for e in examples]
        if kind == "fixed":
            rows = []
            for values in columns:
                if values is None:
                    if default is None:
                        raise _parse_error(
                            features,
                            f"Feature: {key} (data type: {_proto_name(dtype)}) is required but could not be found.",
                            "give the FixedLenFeature a default_value, or add the feature.",
                        )
                    values = np.broadcast_to(np.array(default, dtype=dtype._np), shape).reshape(-1)
                if values.size != int(np.prod(shape)):
                    kind_name = {"float": "float_list", "int64": "int64_list"}.get(_proto_name(dtype), "bytes_list")
                    raise _parse_error(
                        features,
                        f"Key: {key}.  Can't parse serialized Example: Some {kind_name} slice was not parsed.",
                        f"the shape {list(shape)} must hold exactly the "
                        f"{values.size} values; use VarLenFeature for lists of varying length.",
                    )
                rows.append(values.reshape(shape))
            dense = np.stack(rows) if rows else np.zeros((0, *shape), dtype=dtype._np)
            outputs.append(dense if batched else dense[0])
            continue
        lists = [c if c is not None else np.zeros(0, dtype=dtype._np) for c in columns]
        flat = np.concatenate(lists) if lists else np.zeros(0, dtype=dtype._np)
        if dtype is dtypes.string:
            flat = flat.astype(object)
        lengths = [len(c) for c in lists]
        if kind == "ragged":
            outputs += [flat, np.concatenate([[0], np.cumsum(lengths)]).astype(shape[0])]
            continue
        indices = [[b, j] for b, n in enumerate(lengths) for j in range(n)]
        index_array = np.array(indices, dtype=np.int64).reshape(-1, 2)
        dense_shape = np.array([len(lengths), max(lengths, default=0)], dtype=np.int64)
        if not batched:
            index_array, dense_shape = index_array[:, 1:], dense_shape[1:]
        outputs += [index_array, flat, dense_shape]
    return tuple(outputs)


def _parse_rule(shapes_: Any, types: Any, attrs: dict) -> list:
    outer = [shapes_[0][0]] if attrs["batched"] else []
    specs: list = []
    for _, kind, dtype, shape, _ in attrs["features"]:
        if kind == "fixed":
            specs.append((TensorShape(outer + list(shape)), dtype))
        elif kind == "ragged":
            specs += [(TensorShape([None]), dtype), (TensorShape([None]), dtypes.as_dtype(shape[0]))]
        else:
            rank = 2 if attrs["batched"] else 1
            specs += [
                (TensorShape([None, rank]), dtypes.int64),
                (TensorShape([None]), dtype),
                (TensorShape([rank]), dtypes.int64),
            ]
    return specs


ParseExampleV2 = Op("ParseExampleV2", _parse_kernel, shape=_parse_rule, num_outputs=-1)


def _describe(features: dict) -> tuple:
    described = []
    for key in _in_tensorflows_order(features):
        spec = features[key]
        dtype = dtypes.as_dtype(spec.dtype)
        if dtype not in (dtypes.float32, dtypes.int64, dtypes.string):
            raise ValueError(
                f"Unsupported dtype {dtype.name}. Supported dtypes are tf.float32, tf.int64 and "
                f"tf.string.\nHint: parse as tf.int64 or tf.float32, then tf.cast."
            )
        if isinstance(spec, FixedLenFeature):
            default = None if spec.default_value is None else np.asarray(spec.default_value).tolist()
            described.append((key, "fixed", dtype, tuple(int(d) for d in spec.shape), _frozen(default)))
        elif isinstance(spec, RaggedFeature):
            if spec.partitions:
                raise NotImplementedError(
                    "minitf parses RaggedFeatures without partitions.\nHint: describe one "
                    "ragged dimension (partitions=())."
                )
            described.append(
                (spec.value_key or key, "ragged", dtype, (dtypes.as_dtype(spec.row_splits_dtype)._np,), None)
            )
        elif isinstance(spec, VarLenFeature):
            described.append((key, "varlen", dtype, (), None))
        else:
            raise ValueError(
                f"Unsupported feature spec {spec!r}.\nHint: use tf.io.FixedLenFeature, VarLenFeature or RaggedFeature."
            )
    return tuple(described)


def _in_tensorflows_order(features: dict) -> list[str]:
    """Sparse features first, then dense, then ragged, each by name: the order TensorFlow's dict has."""
    rank = {VarLenFeature: 0, FixedLenFeature: 1, RaggedFeature: 2}
    return sorted(features, key=lambda k: (rank.get(type(features[k]), 3), k))


def _frozen(value: Any) -> Any:
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


def _parse(serialized: Any, features: dict, batched: bool) -> dict:
    description = _describe(features)
    parts = list(
        bind(ParseExampleV2, convert_to_tensor(serialized, dtype=dtypes.string), features=description, batched=batched)
    )
    out: dict[str, Any] = {}
    for name, (_, kind, *_) in zip(_in_tensorflows_order(features), description):
        if kind == "fixed":
            out[name] = parts.pop(0)
        elif kind == "ragged":
            values, splits = parts.pop(0), parts.pop(0)
            out[name] = RaggedTensor.from_row_splits(values, splits) if batched else values
        else:
            indices, values, shape = parts.pop(0), parts.pop(0), parts.pop(0)
            out[name] = SparseTensor(indices, values, shape)
    return out


def parse_single_example(serialized: Any, features: dict, example_names: Any = None, name: str | None = None) -> dict:
    """One serialized Example (a scalar string) to a dict of tensors, one per described feature."""
    return _parse(serialized, features, batched=False)


def parse_example(serialized: Any, features: dict, example_names: Any = None, name: str | None = None) -> dict:
    """A vector of serialized Examples to a dict of batched tensors (dense, sparse or ragged)."""
    return _parse(serialized, features, batched=True)
