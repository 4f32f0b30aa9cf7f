"""tf.data's file sources on both engines, over the same files: Dataset.list_files (sorted, or shuffled in
TensorFlow's seeded order), TextLineDataset (line endings, blank lines, several files, GZIP), interleave over
files with cycle_length and num_parallel_calls, FixedLengthRecordDataset, and the errors for no matching file, a
missing file and a body that is not a whole number of records."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from enumeration import assert_enumerated
from harness import same_error, same_program

TESTED = [
    "AUTOTUNE",
    "Dataset",
    "DatasetSpec",
    "FixedLengthRecordDataset",
    "INFINITE_CARDINALITY",
    "NumpyIterator",
    "Options",
    "TFRecordDataset",
    "TextLineDataset",
    "UNKNOWN_CARDINALITY",
    "experimental",
]


def test_every_tf_data_name_is_tested_or_left_out() -> None:
    assert_enumerated("data", TESTED)


@pytest.fixture
def folder(tmp_path: Path) -> str:
    (tmp_path / "part-1.csv").write_bytes(b"x,y\n1,2\r\n3,4")
    (tmp_path / "part-2.csv").write_bytes(b"x,y\n5,6\n\n7,8\n")
    (tmp_path / "part-3.csv").write_bytes(b"")
    (tmp_path / "notes.txt").write_bytes(b"not a part\n")
    (tmp_path / "lines.gz").write_bytes(gzip.compress(b"one\ntwo\n"))
    (tmp_path / "records.bin").write_bytes(b"HabcdefghF")
    return str(tmp_path)


def test_text_lines_of_one_and_several_files(folder: str) -> None:
    def case(tf: Any, seen: list) -> None:
        one = tf.data.TextLineDataset(f"{folder}/part-1.csv")
        seen.extend([list(one.as_numpy_iterator()), repr(one.element_spec), one.cardinality(), repr(one).split(" ")[0]])
        files = [f"{folder}/part-2.csv", f"{folder}/part-3.csv", f"{folder}/part-1.csv"]
        seen.append(list(tf.data.TextLineDataset(files).as_numpy_iterator()))
        seen.append(list(tf.data.TextLineDataset(f"{folder}/lines.gz", compression_type="GZIP")))

    same_program(case)


def test_list_files_sorted_and_seeded(folder: str) -> None:
    def case(tf: Any, seen: list) -> None:
        pattern = f"{folder}/part-*.csv"
        seen.append(list(tf.data.Dataset.list_files(pattern, shuffle=False).as_numpy_iterator()))
        seen.append(list(tf.data.Dataset.list_files(pattern, seed=42).as_numpy_iterator()))
        both = tf.data.Dataset.list_files([f"{folder}/*.txt", f"{folder}/part-1*"], shuffle=False)
        seen.extend([list(both.as_numpy_iterator()), repr(both.element_spec), both.cardinality()])
        seen.append(isinstance(both.as_numpy_iterator(), tf.data.NumpyIterator))

    same_program(case)


def test_interleave_reads_files_in_turn(folder: str) -> None:
    def case(tf: Any, seen: list) -> None:
        files = tf.data.Dataset.list_files(f"{folder}/part-*.csv", seed=1)
        lines = files.interleave(
            lambda path: tf.data.TextLineDataset(path).skip(1), cycle_length=2, num_parallel_calls=tf.data.AUTOTUNE
        )
        seen.append(list(lines.as_numpy_iterator()))
        for cycle in (1, 2, 3):  # each pass over `files` reshuffles it, in TensorFlow's order
            seen.append(list(files.interleave(lambda path: tf.data.TextLineDataset(path), cycle).as_numpy_iterator()))
        ordered = tf.data.Dataset.list_files(f"{folder}/part-*.csv", shuffle=False).interleave(
            lambda path: tf.data.TextLineDataset(path), cycle_length=3, block_length=2
        )
        seen.append(list(ordered.as_numpy_iterator()))

    same_program(case)


def test_fixed_length_records(folder: str) -> None:
    def case(tf: Any, seen: list) -> None:
        records = tf.data.FixedLengthRecordDataset(f"{folder}/records.bin", 2, header_bytes=1, footer_bytes=1)
        seen.extend([list(records.as_numpy_iterator()), repr(records.element_spec)])

    same_program(case)


@pytest.mark.parametrize(
    "mistake",
    [
        lambda tf, folder: tf.data.Dataset.list_files(f"{folder}/nothing-*.csv"),
        lambda tf, folder: list(tf.data.TextLineDataset(f"{folder}/missing.csv")),
        lambda tf, folder: list(tf.data.FixedLengthRecordDataset(f"{folder}/records.bin", 3)),
    ],
    ids=["no-match", "missing-file", "partial-record"],
)
def test_mistakes_raise_tensorflows_errors(mistake: Any, folder: str) -> None:
    same_error(mistake, folder)
