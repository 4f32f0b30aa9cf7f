"""Write course_data/digits.csv.gz once, from the copy of the UCI digits inside scikit-learn's wheel on PyPI.

Run by hand (`python -m course_data.extract_digits`) only to recreate the file; the course never runs it and
never depends on scikit-learn. It asks pip for the wheel (no install), takes the one data file out unchanged,
checks its shape and value ranges, and prints its sha256 for README.md and DIGITS_SHA256.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

MEMBER = "sklearn/datasets/data/digits.csv.gz"
TARGET = Path(__file__).with_name("digits.csv.gz")


def check(data: bytes) -> None:
    """1,797 rows of 64 pixels (0..16) and a label (0..9), every digit present."""
    table = np.loadtxt(gzip.decompress(data).decode("ascii").splitlines(), delimiter=",", dtype=np.int64)
    if table.shape != (1797, 65):
        raise SystemExit(f"expected 1797 rows of 65 numbers, found shape {table.shape}")
    if table[:, :64].min() < 0 or table[:, :64].max() > 16:
        raise SystemExit("pixel values outside 0..16")
    if sorted(set(table[:, 64].tolist())) != list(range(10)):
        raise SystemExit("labels are not the digits 0..9")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="1.9.1", help="the scikit-learn release whose wheel to read")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "-q",
                "-d",
                folder,
                f"scikit-learn=={args.version}",
            ],
            check=True,
        )
        wheel = next(Path(folder).glob("scikit_learn-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            data = archive.read(MEMBER)
    check(data)
    TARGET.write_bytes(data)
    print(f"wrote {TARGET} ({len(data)} bytes) from {wheel.name}")
    print(f"sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
