"""Datasets read from files: `Dataset.list_files` (the names matching a pattern), `TextLineDataset` (lines of
text files) and `FixedLengthRecordDataset` (records of a fixed number of bytes). TFRecord files are read by
minitf/io/tfrecord.py.

Each file is read when the dataset is iterated, as TensorFlow does, so a missing file is an error of the
iteration (NotFoundError), not of making the dataset.
"""

from __future__ import annotations

import glob
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.errors import InvalidArgumentError, kernel_prefix
from minitf.data.dataset import DATASETS, UNKNOWN, DatasetV2
from minitf.data.structure import scalar
from minitf.function.cache_keys import TensorSpec
from minitf.io.tfrecord import _compression, file_names, read_file


def list_files(file_pattern: Any, shuffle: bool | None, seed: int | None) -> Any:
    """`Dataset.list_files`: the files matching one or more glob patterns, sorted, then shuffled (the default)
    as `shuffle(len(files), seed)` shuffles them, so a seeded list comes out in TensorFlow's order."""
    patterns = file_names(file_pattern)
    matched = sorted({path for pattern in patterns for path in glob.glob(pattern)})
    if not matched:
        raise InvalidArgumentError(
            None,
            None,
            f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
            f"b'No files matched pattern: {', '.join(patterns)}'\nHint: check the pattern and the folder it "
            "names (glob syntax: *.csv, data/part-?.txt).",
        )
    dataset = DatasetV2.from_tensor_slices(np.array(matched, dtype=object))
    if shuffle is None or shuffle:
        dataset = dataset.shuffle(max(len(matched), 1), seed=seed)
    return dataset


class TextLineDatasetV2(DatasetV2):
    """`tf.data.TextLineDataset`: each line of the files, in order, without its line ending ("\\n" or "\\r\\n")."""

    def __init__(
        self,
        filenames: Any,
        compression_type: str | None = None,
        buffer_size: Any = None,
        num_parallel_reads: Any = None,
        name: str | None = None,
    ) -> None:
        self._files, self._kind = file_names(filenames), _compression(compression_type)
        super().__init__(TensorSpec([], dtypes.string), UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        for path in self._files:
            data = read_file(path, self._kind, "a text file to read line by line")
            lines = data.split(b"\n")
            if lines and lines[-1] == b"":  # a final line ending ends the last line; it starts no new one
                lines.pop()
            for line in lines:
                yield scalar(np.array(line.removesuffix(b"\r"), dtype=object), dtypes.string)


class FixedLengthRecordDatasetV2(DatasetV2):
    """`tf.data.FixedLengthRecordDataset`: the files cut into records of `record_bytes` bytes each, after a
    header of `header_bytes` and before a footer of `footer_bytes`."""

    def __init__(
        self,
        filenames: Any,
        record_bytes: int,
        header_bytes: int | None = None,
        footer_bytes: int | None = None,
        buffer_size: Any = None,
        compression_type: str | None = None,
        num_parallel_reads: Any = None,
        name: str | None = None,
    ) -> None:
        self._files, self._kind = file_names(filenames), _compression(compression_type)
        self._record, self._header, self._footer = int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0)
        super().__init__(TensorSpec([], dtypes.string), UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        for path in self._files:
            data = read_file(path, self._kind, "a file of fixed-length records")
            body = data[self._header : len(data) - self._footer]
            if len(body) % self._record:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"{kernel_prefix('IteratorGetNext_output_types_1')}Excluding the header ({self._header} bytes) "
                    f'and footer ({self._footer} bytes), input file "{path}" has body length {len(body)} bytes, '
                    f"which is not an exact multiple of the record length ({self._record} bytes). "
                    "[Op:IteratorGetNext] name: \nHint: check record_bytes, header_bytes and footer_bytes.",
                )
            for start in range(0, len(body), self._record):
                yield scalar(np.array(body[start : start + self._record], dtype=object), dtypes.string)


DATASETS.provide(list_files=list_files)
