"""TFRecord files, in TensorFlow's byte format: each record is its length (8 bytes, little-endian), a masked
CRC-32C of those 8 bytes (4), the data, and a masked CRC-32C of the data (4). `tf.io.TFRecordWriter` writes
them and `tf.data.TFRecordDataset` reads them, so a file written by either engine reads in the other.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.errors import DataLossError, NotFoundError, kernel_prefix
from minitf.data.dataset import UNKNOWN, DatasetV2
from minitf.data.structure import scalar
from minitf.function.cache_keys import TensorSpec


def _crc32c_table() -> list[int]:
    """CRC-32C (Castagnoli, reversed polynomial 0x82F63B78): the remainder of every byte, worked out once."""
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """TensorFlow stores CRCs rotated right by 15 bits plus a constant, so data holding CRCs checks well."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def encode_record(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data))


def _compression(options: Any) -> str:
    kind = getattr(options, "compression_type", options) or ""
    if kind not in ("", "GZIP", "ZLIB"):
        raise ValueError(f"Unsupported compression type: {kind}\nHint: use '', 'GZIP' or 'ZLIB'.")
    return kind


class TFRecordOptions:
    """`tf.io.TFRecordOptions(compression_type)`: '' (none), 'GZIP' or 'ZLIB'."""

    def __init__(self, compression_type: str | None = None, **unused: Any) -> None:
        self.compression_type = compression_type or ""


class TFRecordWriter:
    """Writes records (bytes) to a TFRecord file; close it (or use `with`) to finish the file."""

    def __init__(self, path: str, options: Any = None) -> None:
        self._path, self._kind = str(path), _compression(options)
        self._records: list[bytes] = []
        try:
            open(self._path, "wb").close()
        except OSError as exc:
            raise NotFoundError(
                None, None, f"{self._path}; {exc.strerror}\nHint: make the folder first (os.makedirs)."
            ) from None

    def write(self, record: Any) -> None:
        self._records.append(_as_bytes(record))

    def flush(self) -> None:
        data = b"".join(encode_record(r) for r in self._records)
        if self._kind == "GZIP":
            data = gzip.compress(data)
        elif self._kind == "ZLIB":
            data = zlib.compress(data)
        with open(self._path, "wb") as f:
            f.write(data)

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_file(path: str, compression: str, hint: str) -> bytes:
    """A data file's bytes, uncompressed; a missing file is TensorFlow's NotFoundError (when iterating)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        raise NotFoundError(
            None,
            None,
            f"{kernel_prefix('IteratorGetNext_output_types_1')}{path}; No such file or "
            "directory [Op:IteratorGetNext] name: \nHint: check the file name (" + hint + ").",
        ) from None
    if compression == "GZIP":
        data = gzip.decompress(data)
    elif compression == "ZLIB":
        data = zlib.decompress(data)
    return data


def file_names(filenames: Any) -> list[str]:
    """A dataset's `filenames` argument (a name, a list of names or a string tensor) as a list of paths."""
    if hasattr(filenames, "numpy"):
        filenames = filenames.numpy()
    names = [filenames] if isinstance(filenames, str | bytes) else list(np.asarray(filenames).reshape(-1))
    return [n.decode() if isinstance(n, bytes) else str(n) for n in names]


def _as_bytes(record: Any) -> bytes:
    if isinstance(record, str):
        return record.encode()
    if hasattr(record, "numpy"):
        record = record.numpy()
    return bytes(record)


def read_records(path: str, compression: str = "") -> Iterator[bytes]:
    """Every record of a TFRecord file, with both CRCs checked."""
    data = read_file(path, compression, "written with tf.io.TFRecordWriter?")
    pos = 0
    while pos < len(data):
        header = data[pos : pos + 12]
        if len(header) < 12:
            raise _data_loss(
                f"truncated record at {pos}' failed with Read less bytes than requested",
                "the file ends in the middle of a record.",
            )
        (length,), (length_crc,) = struct.unpack("<Q", header[:8]), struct.unpack("<I", header[8:])
        if masked_crc(header[:8]) != length_crc:
            raise _data_loss(f"corrupted record at {pos}", "this is not a TFRecord file, or it is damaged.")
        record = data[pos + 12 : pos + 12 + length]
        (data_crc,) = struct.unpack("<I", data[pos + 12 + length : pos + 16 + length] or b"\0\0\0\0")
        if len(record) < length or masked_crc(record) != data_crc:
            raise _data_loss(f"corrupted record at {pos + 12}", "this is not a TFRecord file, or it is damaged.")
        yield record
        pos += 16 + length


def _data_loss(message: str, hint: str) -> Exception:
    """TensorFlow's error while reading: from inside the iterator of a dataset of one component (strings)."""
    return DataLossError(
        None,
        None,
        f"{kernel_prefix('IteratorGetNext_output_types_1')}{message} [Op:IteratorGetNext] name: \nHint: {hint}",
    )


class TFRecordDataset(DatasetV2):
    """The records of one or more TFRecord files, in order, each a scalar string."""

    def __init__(
        self,
        filenames: Any,
        compression_type: str | None = None,
        buffer_size: Any = None,
        num_parallel_reads: Any = None,
        name: str | None = None,
    ) -> None:
        self._files = file_names(filenames)
        self._kind = _compression(compression_type)
        super().__init__(TensorSpec([], dtypes.string), UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        for path in self._files:
            for record in read_records(path, self._kind):
                yield scalar(np.array(record, dtype=object), dtypes.string)
