"""keras.datasets on both engines, from small files in Keras's cache layout written here in Keras's formats
(npz, gzipped IDX, pickled CIFAR batches in a tar.gz, JSON word indices): every loader returns the same arrays
(values, dtypes, shapes, order) and names as Keras's; offline with no cached file the error names the file and
the folder to put it in. Keras checks a cached file against the real dataset's hash, which a small fixture cannot
match, so its hash check is switched off for these tests."""

from __future__ import annotations

import gzip
import io
import json
import pickle
import tarfile
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
from harness import assert_equal, minitf

from minitf.keras.datasets import _cache as cache

LOADERS = [
    "boston_housing",
    "california_housing",
    "cifar10",
    "cifar100",
    "fashion_mnist",
    "imdb",
    "mnist",
    "reuters",
]


def test_every_keras_dataset_is_there() -> None:
    names = sorted(n for n in dir(keras.datasets) if not n.startswith("_"))
    assert names == LOADERS == sorted(n for n in dir(minitf.keras.datasets) if not n.startswith("_"))
    for name in names:
        public = sorted(n for n in dir(getattr(keras.datasets, name)) if not n.startswith("_"))
        assert [n for n in public if not hasattr(getattr(minitf.keras.datasets, name), n)] == [], name


def _npz(path: Path, **arrays: Any) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def _cifar_archive(path: Path, folder: str, batches: dict[str, dict]) -> None:
    with tarfile.open(path, "w") as tar:  # Keras and minitf read plain and gzipped tars alike
        for name, batch in batches.items():
            data = pickle.dumps({k.encode(): v for k, v in batch.items()}, protocol=4)
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _cifar_batch(rng: np.random.Generator, n: int, **labels: int) -> dict:
    return {
        "data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
        **{k: [int(i) for i in rng.integers(0, v, n)] for k, v in labels.items()},
    }


def _ragged(rng: np.random.Generator, n: int) -> np.ndarray:
    rows = np.empty(n, dtype=object)
    for i in range(n):
        rows[i] = [int(w) for w in rng.integers(1, 40, rng.integers(2, 9))]
    return rows


def _write_datasets(folder: Path, cifar10: bool) -> None:
    """A small copy of every dataset in Keras's layout below `folder` (KERAS_HOME/datasets). Keras's CIFAR-10
    loader reads five training batches of exactly 10,000 images, so that copy is large and written only when
    asked for."""
    (folder / "fashion-mnist").mkdir(parents=True)
    rng = np.random.default_rng(0)
    digits = {k: rng.integers(0, 256, (n, 28, 28), dtype=np.uint8) for k, n in (("x_train", 12), ("x_test", 5))}
    _npz(
        folder / "mnist.npz",
        **digits,
        y_train=rng.integers(0, 10, 12, dtype=np.uint8),
        y_test=np.arange(5, dtype=np.uint8),
    )
    for prefix, n in (("train", 9), ("t10k", 4)):
        labels = bytes(8) + rng.integers(0, 10, n, dtype=np.uint8).tobytes()
        images = bytes(16) + rng.integers(0, 256, (n, 28, 28), dtype=np.uint8).tobytes()
        (folder / "fashion-mnist" / f"{prefix}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(labels))
        (folder / "fashion-mnist" / f"{prefix}-images-idx3-ubyte.gz").write_bytes(gzip.compress(images))
    if cifar10:
        ten = {f"data_batch_{i}": _cifar_batch(rng, 10000, labels=10) for i in range(1, 6)}
        ten["test_batch"] = _cifar_batch(rng, 7, labels=10)
        _cifar_archive(folder / "cifar-10-batches-py-target_archive", "cifar-10-batches-py", ten)
    hundred = {part: _cifar_batch(rng, n, fine_labels=100, coarse_labels=20) for part, n in (("train", 8), ("test", 3))}
    _cifar_archive(folder / "cifar-100-python-target_archive", "cifar-100-python", hundred)
    _npz(folder / "boston_housing.npz", x=rng.normal(size=(30, 13)), y=rng.normal(size=30))
    _npz(
        folder / "california_housing.npz",
        x=rng.normal(size=(700, 8)).astype(np.float32),
        y=rng.normal(size=700).astype(np.float32),
    )
    _npz(
        folder / "imdb.npz",
        x_train=_ragged(rng, 10),
        y_train=rng.integers(0, 2, 10),
        x_test=_ragged(rng, 6),
        y_test=rng.integers(0, 2, 6),
    )
    _npz(folder / "reuters.npz", x=_ragged(rng, 15), y=rng.integers(0, 46, 15))
    for name in ("imdb", "reuters"):
        (folder / f"{name}_word_index.json").write_text(json.dumps({"the": 1, "film": 2, "was": 3}))


def _use_keras_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from keras.src.backend import config  # Keras reads KERAS_HOME once, when it is imported
    from keras.src.utils import file_utils

    monkeypatch.setenv("KERAS_HOME", str(home))
    monkeypatch.setattr(config, "_KERAS_DIR", str(home))
    monkeypatch.setattr(file_utils, "validate_file", lambda *args, **kwargs: True)


@pytest.fixture(scope="module")
def small_copies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("keras_home")
    _write_datasets(home / "datasets", cifar10=False)
    return home


@pytest.fixture
def keras_home(small_copies: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A KERAS_HOME holding a small copy of every dataset (but CIFAR-10), seen by both engines."""
    _use_keras_home(small_copies, monkeypatch)
    return small_copies


CALLS = [
    ("mnist", lambda d: d.mnist.load_data()),
    ("fashion_mnist", lambda d: d.fashion_mnist.load_data()),
    ("cifar100-fine", lambda d: d.cifar100.load_data()),
    ("cifar100-coarse", lambda d: d.cifar100.load_data(label_mode="coarse")),
    ("boston_housing", lambda d: d.boston_housing.load_data()),
    ("boston_housing-split", lambda d: d.boston_housing.load_data(test_split=0.5, seed=7)),
    ("california_housing", lambda d: d.california_housing.load_data()),
    ("california_housing-small", lambda d: d.california_housing.load_data(version="small", test_split=0.1)),
    ("imdb", lambda d: d.imdb.load_data()),
    ("imdb-limits", lambda d: d.imdb.load_data(num_words=20, skip_top=4, maxlen=8, seed=1, index_from=2)),
    ("imdb-no-oov", lambda d: d.imdb.load_data(num_words=20, oov_char=None, start_char=None)),
    ("imdb-words", lambda d: d.imdb.get_word_index()),
    ("reuters", lambda d: d.reuters.load_data()),
    ("reuters-limits", lambda d: d.reuters.load_data(num_words=15, maxlen=7, test_split=0.3)),
    ("reuters-words", lambda d: (d.reuters.get_word_index(), d.reuters.get_label_names())),
]


def _lists(value: Any) -> Any:
    """Object arrays of lists (imdb, reuters) as nested lists, so that their contents are compared."""
    if isinstance(value, tuple):
        return tuple(_lists(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype == object:
        return ("object array", value.shape, [[int(w) for w in row] for row in value])
    return value


def _kinds(value: Any) -> Any:
    """The dtype and shape of every array in a loader's result."""
    if isinstance(value, tuple | list):
        return [_kinds(v) for v in value]
    return (value.dtype, value.shape) if isinstance(value, np.ndarray) else type(value).__name__


@pytest.mark.parametrize("call", [c for _, c in CALLS], ids=[n for n, _ in CALLS])
def test_a_loader_returns_what_keras_returns(keras_home: Path, call: Any) -> None:
    expected, actual = call(keras.datasets), call(minitf.keras.datasets)
    assert_equal(_lists(actual), _lists(expected), "load_data", rtol=0, atol=0)
    assert _kinds(actual) == _kinds(expected)


@pytest.mark.slow
def test_cifar10_returns_what_keras_returns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_datasets(tmp_path / "datasets", cifar10=True)
    _use_keras_home(tmp_path, monkeypatch)
    expected, actual = keras.datasets.cifar10.load_data(), minitf.keras.datasets.cifar10.load_data()
    assert_equal(actual, expected, "cifar10", rtol=0, atol=0)
    assert [a.dtype for pair in actual for a in pair] == [e.dtype for pair in expected for e in pair]


def test_offline_without_a_cached_file_the_error_says_where_to_put_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))

    def offline(origin: str, target: Any, *rest: Any) -> None:
        raise cache.urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(cache.urllib.request, "urlretrieve", offline)
    with pytest.raises(cache.DatasetUnavailableError) as caught:
        minitf.keras.datasets.mnist.load_data()
    text = str(caught.value)
    assert "URL fetch failure on https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz" in text
    assert f"put the file at {tmp_path / 'datasets' / 'mnist.npz'}" in text
    assert not (tmp_path / "datasets" / "mnist.npz").exists()


def test_a_wrong_test_split_is_refused_before_any_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    for engine in (keras, minitf.keras):
        with pytest.raises(ValueError, match="Invalid `test_split` argument: 1.5"):
            engine.datasets.boston_housing.load_data(test_split=1.5)
