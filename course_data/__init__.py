"""Small real data sets that ship with the course, so lessons and grading never download anything.

`load_digits()` reads the 8x8 handwritten digits of the UCI "Optical Recognition of Handwritten Digits" data set
(1,797 images, CC BY 4.0; see README.md in this folder for the source, the credit and the file's checksum).
"""

from __future__ import annotations

import gzip
import hashlib
from importlib import resources

import numpy as np

DIGITS_FILE = "digits.csv.gz"
# The file as it was extracted (see extract_digits.py); load_digits refuses a file that differs.
DIGITS_SHA256 = "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22"

__all__ = ["DIGITS_FILE", "DIGITS_SHA256", "load_digits"]


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """The 1,797 digits as `(images, labels)`: images uint8 of shape (1797, 8, 8) with values 0..16 (the number
    of dark pixels in each 4x4 block of the original 32x32 scan), labels int32 of shape (1797,) with values 0..9."""
    data = resources.files(__name__).joinpath(DIGITS_FILE).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != DIGITS_SHA256:
        raise ValueError(f"{DIGITS_FILE} has sha256 {digest}, not {DIGITS_SHA256}: the file was changed or damaged")
    table = np.loadtxt(gzip.decompress(data).decode("ascii").splitlines(), delimiter=",", dtype=np.int64)
    images = table[:, :64].reshape(-1, 8, 8).astype(np.uint8)
    labels = table[:, 64].astype(np.int32)
    return images, labels
