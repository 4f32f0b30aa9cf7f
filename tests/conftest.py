"""Settings every test process needs before anything starts TensorFlow.

oneDNN: TensorFlow switches its oneDNN CPU kernels on by itself on processors with AVX-512 (not on every
machine, so a run can pass on one machine and die on another). With them on, `tf.nn.conv2d` of a rank-3
input (tests/engine/differential/test_conv.py, "conv2d rank 3") does not raise TensorFlow's InvalidArgumentError
("convolution input must be 4-dimensional") but aborts the whole process (a failed check in
tensor_format.h, exit code 134), ending the test run. With `TF_ENABLE_ONEDNN_OPTS=0` TensorFlow uses its
Eigen kernels, the ones it uses on machines without AVX-512, and raises the error. Set here, at the top of
the test tree, so it holds for every test file and for the notebook kernels they start (which inherit the
environment).

BLAS threads: the suite runs one test at a time, and so do the notebook kernels it starts. NumPy's OpenBLAS
starts a thread per core for every matrix product; on two busy cores the digits chapter's 1437x64 @ 64x32
products then took about 8 ms of CPU each instead of 1.7 ms with one thread (its training cell: 20 s instead of
5 s). One thread per process gives the same numbers (OpenBLAS splits the output, not the sums) in less time.

Tiers: every property test (hypothesis, tens of generated examples, each compared with TensorFlow eagerly,
traced and under a tape) is marked `slow` here, so the fast tier (`-m "not slow"`) runs the named examples and
unit tests and the property tests run with everything else in `./run test` (docs/testing.md).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import is_hypothesis_test

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.slow)
