"""Serialization against TensorFlow: `tf.io.serialize_tensor` / `parse_tensor` (TensorProto bytes),
`tf.train.Example` protos (text format, wire format), `tf.io.parse_single_example` / `parse_example`, and TFRecord
files, which each engine writes and the other reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from harness import EAGER, TAPE, TRACED, alike, minitf, named_examples, real_tf, same, same_error

pytestmark = pytest.mark.tf

TENSORS = [
    ("float32_matrix", np.array([[1.0, 2.5], [-3.0, 4.0]], np.float32)),
    ("int32_scalar", np.array(7, np.int32)),
    ("int64_empty", np.zeros([0, 3], np.int64)),
    ("bool_vector", np.array([True, False, True])),
    ("float64", np.array([1e-300, np.pi])),
    ("uint8", np.array([0, 255], np.uint8)),
    ("float16", np.array([0.5, -2.0], np.float16)),
    ("complex64", np.array([1 + 2j], np.complex64)),
]


@pytest.mark.parametrize("array", [a for _, a in TENSORS], ids=[n for n, _ in TENSORS])
def test_serialize_tensor_gives_tensorflows_tensorproto_bytes_and_parses_back(array: np.ndarray) -> None:
    same(lambda tf, x: tf.io.serialize_tensor(x), array, modes=(EAGER, TRACED))
    same(lambda tf, x: tf.io.parse_tensor(tf.io.serialize_tensor(x), out_type=x.dtype), array, modes=(EAGER, TRACED))


def test_string_tensors_serialize_as_string_vals() -> None:
    same(lambda tf: tf.io.serialize_tensor(tf.constant([[b"ab", b""], [b"\xff", b"c"]])))
    same(lambda tf: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(["x", "yz"])), tf.string))


def test_parse_tensor_with_the_wrong_dtype_is_tensorflows_error_with_a_hint() -> None:
    same_error(lambda tf: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1.5])), tf.int32))


def feature(tf: Any, kind: str, values: list) -> Any:
    lists = {"int64": tf.train.Int64List, "float": tf.train.FloatList, "bytes": tf.train.BytesList}
    return tf.train.Feature(**{f"{kind}_list": lists[kind](value=values)})


def example(tf: Any, **features: Any) -> Any:
    return tf.train.Example(features=tf.train.Features(feature=features))


ONE_FEATURE = [
    ("int64", lambda tf: example(tf, n=feature(tf, "int64", [1, -3, 2**40]))),
    ("float", lambda tf: example(tf, x=feature(tf, "float", [0.1, 1.0, 3e20, -2.5e-8, float("inf"), 1 / 3]))),
    ("bytes", lambda tf: example(tf, s=feature(tf, "bytes", [b"hi\xff\n\"'\\", "é".encode(), b""]))),
    ("empty_list", lambda tf: example(tf, e=feature(tf, "int64", []))),
    ("no_features", lambda tf: tf.train.Example()),
    ("empty_features", lambda tf: example(tf)),
]


@named_examples(*ONE_FEATURE)
def test_example_prints_and_serializes_as_tensorflow(case: Any) -> None:
    """With one feature the bytes are TensorFlow's exactly (with several, protobuf's map order is its own)."""
    alike(lambda tf: (str(case(tf)), case(tf).SerializeToString(), str(case(tf).features.feature.get("n", ""))))


def test_feature_lists_print_and_serialize_alone() -> None:
    alike(
        lambda tf: [
            (str(f), repr(f), f.SerializeToString(), f.WhichOneof("kind"))
            for f in (
                feature(tf, "int64", [5]),
                feature(tf, "float", [2.5]),
                feature(tf, "bytes", [b"a"]),
                tf.train.Feature(),
            )
        ]
    )


def test_examples_with_several_features_read_back_in_the_other_engine() -> None:
    for writer, reader in ((minitf, real_tf), (real_tf, minitf)):
        made = example(
            writer,
            b=feature(writer, "bytes", [b"x"]),
            a=feature(writer, "float", [1.5, 2.0]),
            c=feature(writer, "int64", [3]),
        )
        read = reader.train.Example.FromString(made.SerializeToString())
        assert sorted(read.features.feature) == ["a", "b", "c"]
        assert {k: str(v) for k, v in read.features.feature.items()} == {
            k: str(v) for k, v in made.features.feature.items()
        }


def records(tf: Any) -> list[bytes]:
    return [
        example(
            tf,
            id=feature(tf, "int64", [i]),
            x=feature(tf, "float", [i * 0.5, 1.0]),
            tags=feature(tf, "bytes", [b"t"] * i),
            v=feature(tf, "float", [0.25] * i),
        ).SerializeToString()
        for i in range(3)
    ]


def description(tf: Any) -> dict:
    return {
        "id": tf.io.FixedLenFeature([], tf.int64),
        "x": tf.io.FixedLenFeature([2], tf.float32),
        "tags": tf.io.VarLenFeature(tf.string),
        "r": tf.io.RaggedFeature(tf.float32, value_key="v"),
        "missing": tf.io.FixedLenFeature([], tf.int64, default_value=7),
    }


def parse_one(tf: Any, record: Any, features: dict) -> Any:
    return tf.io.parse_single_example(record, features)


PARSING = [
    ("parse_single_example", lambda tf: [repr(tf.io.parse_single_example(r, description(tf))) for r in records(tf)]),
    ("parse_example", lambda tf: repr(tf.io.parse_example(tf.constant(records(tf)), description(tf)))),
    (
        "parse_in_dataset_map",
        lambda tf: [
            (repr(ds.element_spec), [repr(e) for e in ds])
            for ds in [tf.data.Dataset.from_tensor_slices(records(tf)).map(lambda r: parse_one(tf, r, description(tf)))]
        ],
    ),
    (
        "feature_descriptions_print",
        lambda tf: (repr(tf.io.FixedLenFeature([], tf.int64)), repr(tf.io.VarLenFeature(tf.string))),
    ),
    ("wrong_dtype", lambda tf: parse_one(tf, records(tf)[1], {"id": tf.io.FixedLenFeature([], tf.float32)})),
    ("required_missing", lambda tf: parse_one(tf, records(tf)[1], {"no": tf.io.FixedLenFeature([], tf.float32)})),
    ("wrong_length", lambda tf: parse_one(tf, records(tf)[1], {"x": tf.io.FixedLenFeature([3], tf.float32)})),
]


@named_examples(*PARSING)
def test_parsing_examples_matches_tensorflow(case: Any) -> None:
    same(case, modes=(EAGER, TAPE))


def write_records(tf: Any, path: Path, items: list[bytes], compression: str | None = None) -> None:
    with tf.io.TFRecordWriter(str(path), options=compression) as writer:
        for item in items:
            writer.write(item)


def read_records(tf: Any, path: Path, compression: str | None = None) -> list[bytes]:
    return [r.numpy() for r in tf.data.TFRecordDataset([str(path)], compression_type=compression)]


def test_tfrecord_files_are_byte_for_byte_tensorflows(tmp_path: Path) -> None:
    items = [b"", b"abc", bytes(range(256)) * 5, records(real_tf)[1]]
    write_records(minitf, tmp_path / "mine.tfrecord", items)
    write_records(real_tf, tmp_path / "theirs.tfrecord", items)
    assert (tmp_path / "mine.tfrecord").read_bytes() == (tmp_path / "theirs.tfrecord").read_bytes()


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_tfrecord_files_written_by_one_engine_read_in_the_other(tmp_path: Path, compression: str | None) -> None:
    for writer, reader in ((minitf, real_tf), (real_tf, minitf)):
        path = tmp_path / f"{writer.__name__}.tfrecord"
        items = records(writer)
        write_records(writer, path, items, compression)
        assert read_records(reader, path, compression) == items
        parsed = reader.data.TFRecordDataset(str(path), compression_type=compression).map(
            lambda r, tf=reader: tf.io.parse_single_example(r, description(tf))
        )
        assert [int(e["id"]) for e in parsed] == [0, 1, 2]


def test_tfrecord_dataset_spec_and_a_damaged_file(tmp_path: Path) -> None:
    path = tmp_path / "damaged.tfrecord"
    write_records(real_tf, path, [b"abcdef"])
    path.write_bytes(path.read_bytes()[:-6] + b"XX" + path.read_bytes()[-4:])
    alike(lambda tf: repr(tf.data.TFRecordDataset(str(path)).element_spec))
    same_error(lambda tf: list(tf.data.TFRecordDataset(str(path))), hint=False)


def test_missing_files_and_unparsable_bytes_are_tensorflows_errors_with_hints(tmp_path: Path) -> None:
    same_error(lambda tf: list(tf.data.TFRecordDataset(str(tmp_path / "none.tfrecord"))))
    same_error(lambda tf: tf.io.TFRecordWriter(str(tmp_path / "no_folder" / "x.tfrecord")))
    same_error(lambda tf: tf.io.parse_tensor(b"\xff\xff", tf.float32))
