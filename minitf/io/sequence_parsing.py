"""`tf.io.parse_single_sequence_example` / `tf.io.parse_sequence_example`: serialized `tf.train.SequenceExample`s
to tensors. The context is described as for `parse_example` (parsing.py parses it); each feature list by
`FixedLenSequenceFeature` (a dense [steps, *shape] tensor; batched, padded to the longest sequence, with the
lengths returned too), `VarLenFeature` (a SparseTensor [steps, values]) or `RaggedFeature` (a RaggedTensor).
One op (`ParseSequenceExampleV2`) does the parsing, so `dataset.map(parse)` traces it like any other op.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.composite.sparse import SparseTensor
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, dims_text, kernel_prefix
from minitf.core.op import Op, bind
from minitf.core.tensor_shape import TensorShape
from minitf.io.example_proto import Example, Feature
from minitf.io.parsing import (
    _LIST_DTYPES,
    RaggedFeature,
    VarLenFeature,
    _describe,
    _in_tensorflows_order,
    _parse_kernel,
    _parse_rule,
)
from minitf.io.sequence_proto import SequenceExample


class FixedLenSequenceFeature(NamedTuple):
    shape: Any
    dtype: Any
    allow_missing: bool = False
    default_value: Any = None


def _node(context: tuple, sequence: tuple) -> str:
    """The name TensorFlow's message gives the parsing function: the op's type attributes, counted."""
    count = {(part, kind): 0 for part in ("context", "list") for kind in ("fixed", "varlen", "ragged")}
    for part, described in (("context", context), ("list", sequence)):
        for _, kind, *_ in described:
            count[part, kind] += 1
    c, f = (lambda kind: count["context", kind]), (lambda kind: count["list", kind])
    return (
        f"ParseSequenceExampleV2_Ncontext_sparse_{c('varlen')}_Nfeature_list_dense_{f('fixed')}_Nfeature_list_sparse_"
        f"{f('varlen')}_Tcontext_dense_{c('fixed')}_context_ragged_split_types_{c('ragged')}_context_ragged_value_"
        f"types_{c('ragged')}_context_sparse_types_{c('varlen')}_feature_list_dense_types_{f('fixed')}_feature_list_"
        f"ragged_split_types_{f('ragged')}_feature_list_ragged_value_types_{f('ragged')}_feature_list_sparse_types_"
        f"{f('varlen')}"
    )


_NODE = ["ParseSequenceExampleV2"]  # the running kernel's node name, for its error messages


def _error(message: str, hint: str) -> Exception:
    return InvalidArgumentError(
        None,
        None,
        f"{kernel_prefix(_NODE[0])}Name: <unknown>, {message} [Op:ParseSequenceExampleV2]\nHint: {hint}",
    )


def _step_values(step: Feature, key: str, index: int, dtype: dtypes.DType) -> np.ndarray:
    kind = step.WhichOneof("kind")
    if kind is None:
        return np.zeros(0, dtype=dtype._np)
    if _LIST_DTYPES[kind] is not dtype:
        raise _error(
            f"Key: {key}, Index: {index}.  Data types don't match. Expected type: {dtype.name}",
            f"describe {key!r} with dtype tf.{_LIST_DTYPES[kind].name}.",
        )
    values = np.array(getattr(step, kind).value, dtype=dtype._np)
    return values.astype(object) if dtype is dtypes.string else values


def _steps(example: SequenceExample, key: str, dtype: dtypes.DType) -> list[np.ndarray] | None:
    found = example.feature_lists.feature_list.get(key)
    return None if found is None else [_step_values(s, key, i, dtype) for i, s in enumerate(found.feature)]


def _fixed(lists: list, key: str, dtype: dtypes.DType, shape: tuple, allow_missing: bool, default: Any) -> list:
    rows = []
    for steps in lists:
        if steps is None and not allow_missing:
            raise _error(
                f"Feature list '{key}' is required but could not be found.  Did you mean to include it in "
                "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?",
                "give the FixedLenSequenceFeature allow_missing=True, or add the feature list.",
            )
        for i, values in enumerate(steps or []):
            if values.size != int(np.prod(shape)):
                raise _error(
                    f"Key: {key}, Index: {i}.  Number of values != expected.  values size: {values.size} but "
                    f"output shape: {dims_text(shape)}",
                    "every step needs exactly the values of `shape`; use VarLenFeature for varying lengths.",
                )
        rows.append(np.array([v.reshape(shape) for v in steps or []], dtype=dtype._np).reshape(-1, *shape))
    longest = max((len(r) for r in rows), default=0)
    fill = default if default is not None else (b"" if dtype is dtypes.string else 0)
    padded = np.full((len(rows), longest, *shape), fill, dtype=object if dtype is dtypes.string else dtype._np)
    for b, r in enumerate(rows):
        padded[b, : len(r)] = r
    return [padded, np.array([len(r) for r in rows], dtype=np.int64)]


def _var_len(lists: list, dtype: dtypes.DType, batched: bool) -> list:
    indices, values = [], []
    for b, steps in enumerate(lists):
        for t, step in enumerate(steps or []):
            indices += [[b, t, j] for j in range(step.size)]
            values += list(step)
    steps_max = max((len(s or []) for s in lists), default=0)
    width = max((step.size for s in lists for step in s or []), default=0)
    index_array = np.array(indices, dtype=np.int64).reshape(-1, 3)
    shape = np.array([len(lists), steps_max, width], dtype=np.int64)
    if not batched:
        index_array, shape = index_array[:, 1:], shape[1:]
    return [index_array, np.array(values, dtype=object if dtype is dtypes.string else dtype._np), shape]


def _ragged(lists: list, dtype: dtypes.DType, splits_dtype: Any) -> list:
    steps = [step for s in lists for step in s or []]
    values = np.concatenate(steps) if steps else np.zeros(0, dtype=dtype._np)
    inner = np.concatenate([[0], np.cumsum([s.size for s in steps])]).astype(splits_dtype)
    outer = np.concatenate([[0], np.cumsum([len(s or []) for s in lists])]).astype(splits_dtype)
    return [values.astype(object) if dtype is dtypes.string else values, inner, outer]


def _parse_sequence_kernel(serialized: Any, *, context: tuple, sequence: tuple, batched: bool) -> tuple:
    records = [bytes(r) for r in np.asarray(serialized, dtype=object).reshape(-1)]
    examples = [SequenceExample.FromString(r) for r in records]
    _NODE[0] = _node(context, sequence)
    outputs: list[np.ndarray] = []
    if context:
        contexts = np.array([Example(features=e.context).SerializeToString() for e in examples], dtype=object)
        outputs += list(_parse_kernel(contexts if batched else contexts[0], features=context, batched=batched))
    lengths = []
    for key, kind, dtype, shape, extra in sequence:
        lists = [_steps(e, key, dtype) for e in examples]
        if kind == "fixed":
            dense, counts = _fixed(lists, key, dtype, shape, *extra)
            outputs.append(dense if batched else dense[0])
            lengths.append(counts)
        elif kind == "varlen":
            outputs += _var_len(lists, dtype, batched)
        else:
            values, inner, outer = _ragged(lists, dtype, shape[0])
            outputs += [values, inner] + ([outer] if batched else [])
    return tuple(outputs + (lengths if batched else []))


def _parse_sequence_rule(shapes_: Any, types: Any, attrs: dict) -> list:
    batched = attrs["batched"]
    specs = _parse_rule(shapes_, types, {"batched": batched, "features": attrs["context"]}) if attrs["context"] else []
    outer = [shapes_[0][0]] if batched else []
    lengths = []
    for _, kind, dtype, shape, _ in attrs["sequence"]:
        if kind == "fixed":
            specs.append((TensorShape([*outer, None, *shape]), dtype))
            lengths.append((TensorShape(outer), dtypes.int64))
        elif kind == "varlen":
            rank = 3 if batched else 2
            specs += [
                (TensorShape([None, rank]), dtypes.int64),
                (TensorShape([None]), dtype),
                (TensorShape([rank]), dtypes.int64),
            ]
        else:
            splits = dtypes.as_dtype(shape[0])
            specs += [(TensorShape([None]), dtype)] + [(TensorShape([None]), splits)] * (2 if batched else 1)
    return specs + (lengths if batched else [])


ParseSequenceExampleV2 = Op(
    "ParseSequenceExampleV2", _parse_sequence_kernel, shape=_parse_sequence_rule, num_outputs=-1
)


def _describe_sequence(features: dict) -> tuple:
    described: list[tuple] = []
    for key in _sequence_order(features):
        spec = features[key]
        dtype = dtypes.as_dtype(spec.dtype)
        if isinstance(spec, FixedLenSequenceFeature):
            default = None if spec.default_value is None else np.asarray(spec.default_value).item()
            shape = tuple(int(d) for d in spec.shape)
            described.append((key, "fixed", dtype, shape, (bool(spec.allow_missing), default)))
        elif isinstance(spec, VarLenFeature):
            described.append((key, "varlen", dtype, (), None))
        elif isinstance(spec, RaggedFeature):
            described.append(
                (spec.value_key or key, "ragged", dtype, (dtypes.as_dtype(spec.row_splits_dtype)._np,), None)
            )
        else:
            raise ValueError(
                f"Unsupported sequence feature spec {spec!r}.\nHint: describe a feature list with "
                "tf.io.FixedLenSequenceFeature, VarLenFeature or RaggedFeature."
            )
    return tuple(described)


def _sequence_order(features: dict) -> list[str]:
    rank = {VarLenFeature: 0, FixedLenSequenceFeature: 1, RaggedFeature: 2}
    return sorted(features, key=lambda k: (rank.get(type(features[k]), 3), k))


def _parse(serialized: Any, context_features: Any, sequence_features: Any, batched: bool) -> tuple:
    if context_features is None and sequence_features is None:
        raise ValueError("Both context_features and sequence_features are None, but at least one should have values.")
    context_features, sequence_features = dict(context_features or {}), dict(sequence_features or {})
    context, sequence = _describe(context_features) if context_features else (), _describe_sequence(sequence_features)
    parts = list(
        bind(
            ParseSequenceExampleV2,
            convert_to_tensor(serialized, dtype=dtypes.string),
            context=context,
            sequence=sequence,
            batched=batched,
        )
    )
    parsed_context: dict[str, Any] = {}
    for name, (_, kind, *_) in zip(_in_tensorflows_order(context_features), context):
        if kind == "fixed":
            parsed_context[name] = parts.pop(0)
        elif kind == "ragged":
            values, splits = parts.pop(0), parts.pop(0)
            parsed_context[name] = RaggedTensor.from_row_splits(values, splits) if batched else values
        else:
            parsed_context[name] = SparseTensor(parts.pop(0), parts.pop(0), parts.pop(0))
    parsed_lists: dict[str, Any] = {}
    fixed_names = []
    for name, (_, kind, *_) in zip(_sequence_order(sequence_features), sequence):
        if kind == "fixed":
            parsed_lists[name] = parts.pop(0)
            fixed_names.append(name)
        elif kind == "varlen":
            parsed_lists[name] = SparseTensor(parts.pop(0), parts.pop(0), parts.pop(0))
        else:
            values, inner = parts.pop(0), parts.pop(0)
            steps = RaggedTensor.from_row_splits(values, inner)
            parsed_lists[name] = RaggedTensor.from_row_splits(steps, parts.pop(0)) if batched else steps
    if not batched:
        return parsed_context, parsed_lists
    return parsed_context, parsed_lists, dict(zip(fixed_names, parts))


def parse_single_sequence_example(
    serialized: Any,
    context_features: Any = None,
    sequence_features: Any = None,
    example_name: Any = None,
    name: Any = None,
) -> tuple:
    """One serialized SequenceExample to (context tensors, feature list tensors)."""
    return _parse(serialized, context_features, sequence_features, batched=False)


def parse_sequence_example(
    serialized: Any,
    context_features: Any = None,
    sequence_features: Any = None,
    example_names: Any = None,
    name: Any = None,
) -> tuple:
    """A vector of serialized SequenceExamples to (context, feature lists padded to the longest, their lengths)."""
    return _parse(serialized, context_features, sequence_features, batched=True)
