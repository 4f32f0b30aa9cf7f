"""Where Keras keeps downloaded datasets, and getting a file into it: `keras.utils.get_file`'s layout.

Files live in `$KERAS_HOME/datasets/` (KERAS_HOME defaults to ~/.keras, or /tmp/.keras when the home folder is
not writable), so a file Keras downloaded is found by minitf and the other way round. A file already there is
used as it is; otherwise it is downloaded from Keras's own address. Offline, with no copy in the cache, the
error names the file and the folder to put it in.
"""

from __future__ import annotations

import os
import tarfile
import urllib.error
import urllib.request
from pathlib import Path

KERAS_DATASETS = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


class DatasetUnavailableError(Exception):
    """A dataset file is neither in Keras's cache folder nor downloadable (Keras raises a plain Exception)."""


def keras_home() -> Path:
    """KERAS_HOME, else ~/.keras (or /tmp/.keras when the home folder is not writable), as Keras decides."""
    if "KERAS_HOME" in os.environ:
        return Path(os.environ["KERAS_HOME"]).expanduser()
    home = Path("~").expanduser()
    return (home if os.access(home, os.W_OK) else Path("/tmp")) / ".keras"


def datasets_folder() -> Path:
    base = keras_home()
    if not os.access(base, os.W_OK) and base.exists():
        base = Path("/tmp/.keras")
    folder = base / "datasets"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def download(origin: str, target: Path) -> None:
    """Fetch `origin` into `target` (printing what Keras prints first); a failure leaves no partial file."""
    print(f"Downloading data from {origin}")
    try:
        urllib.request.urlretrieve(origin, target)
    except (urllib.error.URLError, OSError) as exc:
        target.unlink(missing_ok=True)
        reason = getattr(exc, "reason", exc)
        raise DatasetUnavailableError(
            f"URL fetch failure on {origin}: {getattr(exc, 'errno', None)} -- {reason}\n"
            f"minitf found no copy of {target.name} in Keras's cache folder and could not download it.\n"
            f"Hint: download {origin} on a machine with a network and put the file at {target} (the folder is "
            "$KERAS_HOME/datasets, ~/.keras/datasets by default); the next load_data() reads it from there."
        ) from None


def get_file(fname: str, origin: str, cache_subdir: str = "") -> Path:
    """The path of `fname` in the cache (in `cache_subdir` below datasets/), downloaded first if missing."""
    folder = datasets_folder() / cache_subdir
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / fname
    if not target.exists():
        download(origin, target)
    return target


def get_archive(name: str, origin: str) -> Path:
    """The folder an archive unpacks into (`<name>/` in the cache), from `<name>_archive`, as Keras 3 lays them
    out: downloaded first if neither is there."""
    folder = datasets_folder()
    archive, unpacked = folder / f"{name}_archive", folder / name
    if not archive.exists():
        download(origin, archive)
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked, filter="data")
    return unpacked
