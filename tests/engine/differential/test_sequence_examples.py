"""tf.train.SequenceExample and tf.io's sequence parsing on both engines: the messages' text and bytes (each
engine reads the other's), parse_single_sequence_example and parse_sequence_example with context features and
FixedLenSequenceFeature / VarLenFeature / RaggedFeature lists, inside Dataset.map, and the errors for a missing
feature list and a step of the wrong size. Also the enumeration of tf.io and tf.train: every name tested here or
elsewhere (test_serialization.py, test_saved_model.py), or left out with a reason."""

from __future__ import annotations

from typing import Any

import pytest
from enumeration import assert_enumerated
from harness import minitf, real_tf, same_error, same_program

IO_TESTED = [
    "decode_raw",  # test_decode_raw.py
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "RaggedFeature",
    "TFRecordOptions",
    "TFRecordWriter",
    "VarLenFeature",
    "decode_csv",  # test_decode_csv.py
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
]
TRAIN_TESTED = [
    "BytesList",
    "Checkpoint",
    "CheckpointManager",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
    "latest_checkpoint",
    "list_variables",
]


def test_every_tf_io_name_is_tested_or_left_out() -> None:
    assert_enumerated("io", IO_TESTED)


def test_every_tf_train_name_is_tested_or_left_out() -> None:
    assert_enumerated("train", TRAIN_TESTED)


def sequence_example(tf: Any, n: int, words: list[list[int]]) -> Any:
    def ints(v: list[int]) -> Any:
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))

    def floats(v: list[float]) -> Any:
        return tf.train.Feature(float_list=tf.train.FloatList(value=v))

    return tf.train.SequenceExample(
        context=tf.train.Features(
            feature={"id": ints([n]), "title": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"t%d" % n]))}
        ),
        feature_lists=tf.train.FeatureLists(
            feature_list={
                "tokens": tf.train.FeatureList(feature=[ints(w) for w in words]),
                "scores": tf.train.FeatureList(feature=[floats([0.5 * len(w), 1.0]) for w in words]),
            }
        ),
    )


def plain(tf: Any, value: Any) -> Any:
    """Parsed outputs with SparseTensors as their parts and RaggedTensors as lists, to compare across engines."""
    if isinstance(value, dict):
        return {k: plain(tf, v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(plain(tf, v) for v in value)
    if isinstance(value, tf.SparseTensor):
        return ("sparse", value.indices, value.values, value.dense_shape)
    if isinstance(value, tf.RaggedTensor):
        return ("ragged", value.to_list())
    return value


def descriptions(tf: Any) -> tuple[dict, dict]:
    context = {
        "id": tf.io.FixedLenFeature([], tf.int64),
        "title": tf.io.FixedLenFeature([], tf.string),
        "missing": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
    }
    sequence = {"tokens": tf.io.VarLenFeature(tf.int64), "scores": tf.io.FixedLenSequenceFeature([2], tf.float32)}
    return context, sequence


def test_a_sequence_example_prints_and_serializes_as_tensorflows() -> None:
    def case(tf: Any, seen: list) -> None:
        one_key = tf.train.SequenceExample(
            feature_lists=tf.train.FeatureLists(
                feature_list={
                    "x": tf.train.FeatureList(feature=[tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2]))])
                }
            )
        )
        seen.extend([str(one_key), one_key.SerializeToString(), str(tf.train.FeatureList())])
        full = sequence_example(tf, 1, [[1, 2], [3]])
        seen.extend(
            [len(full.SerializeToString()), tf.train.SequenceExample.FromString(full.SerializeToString()) == full]
        )
        seen.append(repr(tf.io.FixedLenSequenceFeature([2], tf.float32)))

    same_program(case)


def test_each_engine_reads_the_others_sequence_examples() -> None:
    for writer, reader in ((minitf, real_tf), (real_tf, minitf)):
        data = sequence_example(writer, 3, [[4], [5, 6]]).SerializeToString()
        back = reader.train.SequenceExample.FromString(data)
        assert [list(f.int64_list.value) for f in back.feature_lists.feature_list["tokens"].feature] == [[4], [5, 6]]
        assert list(back.context.feature["id"].int64_list.value) == [3]


def test_parse_single_and_batched_sequence_examples() -> None:
    def case(tf: Any, seen: list) -> None:
        first = sequence_example(tf, 1, [[1, 2], [3], [4, 5, 6]]).SerializeToString()
        second = sequence_example(tf, 2, [[7]]).SerializeToString()
        context, sequence = descriptions(tf)
        seen.append(plain(tf, tf.io.parse_single_sequence_example(first, context, sequence)))
        seen.append(plain(tf, tf.io.parse_sequence_example([first, second], context, sequence)))
        ragged = {"tokens": tf.io.RaggedFeature(tf.int64)}
        seen.append(plain(tf, tf.io.parse_single_sequence_example(first, None, ragged)))
        seen.append(plain(tf, tf.io.parse_sequence_example([first, second], None, ragged)))
        absent = {"nope": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}
        seen.append(plain(tf, tf.io.parse_single_sequence_example(first, sequence_features=absent)))

    same_program(case)


def test_parsing_sequence_examples_inside_dataset_map() -> None:
    def case(tf: Any, seen: list) -> None:
        records = [sequence_example(tf, n, [[1] * n] * n).SerializeToString() for n in (1, 2)]
        context, sequence = descriptions(tf)
        scores = tf.data.Dataset.from_tensor_slices(records).map(
            lambda s: tf.io.parse_single_sequence_example(s, context, sequence)[1]["scores"]
        )
        seen.extend([repr(scores.element_spec), list(scores.as_numpy_iterator())])

    same_program(case)


@pytest.mark.parametrize(
    ("features", "fragment"),
    [
        (lambda tf: {"nope": tf.io.FixedLenSequenceFeature([], tf.int64)}, "Feature list 'nope' is required"),
        (lambda tf: {"tokens": tf.io.FixedLenSequenceFeature([], tf.int64)}, "Number of values != expected"),
    ],
    ids=["missing-list", "step-size"],
)
def test_mistakes_raise_tensorflows_errors(features: Any, fragment: str) -> None:
    def mistake(tf: Any) -> Any:
        data = sequence_example(tf, 1, [[1, 2], [3]]).SerializeToString()
        return tf.io.parse_single_sequence_example(data, sequence_features=features(tf))

    mine, theirs = same_error(mistake)
    assert fragment in str(mine) and fragment in str(theirs)


def test_no_descriptions_at_all_is_a_value_error() -> None:
    same_error(lambda tf: tf.io.parse_single_sequence_example(b""), hint=False)
