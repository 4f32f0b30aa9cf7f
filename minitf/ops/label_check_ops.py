"""The range check of sparse class labels, as an op of its own so that it runs with a traced function.

TensorFlow's `SparseSoftmaxCrossEntropyWithLogits` kernel checks that every label lies in [0, classes) each
time it runs: eagerly that is at the call, inside a `tf.function` when the graph runs (the labels may be
computed or fed). minitf composes the loss of `one_hot` and `log_softmax`, which would quietly give a zero row
for a label out of range; this stateful op (never folded, pruned or moved) raises TensorFlow's error instead.
"""

from __future__ import annotations

import numpy as np

from minitf.core import Op, bind
from minitf.errors import InvalidArgumentError, op_error
from minitf.tensor import Tensor


def _label_range_kernel(labels: np.ndarray, classes: int) -> np.ndarray:
    """`labels` unchanged when each lies in [0, classes); TensorFlow's InvalidArgumentError otherwise."""
    flat = np.ravel(labels)
    bad = np.flatnonzero((flat < 0) | (flat >= classes))
    if bad.size:
        raise op_error(InvalidArgumentError, "SparseSoftmaxCrossEntropyWithLogits",
                       f"Received a label value of {flat[bad[0]]} which is outside the valid range of [0, {classes}).  "
                       f"Label values: {' '.join(str(v) for v in flat)}",
                       hint=f"labels are class numbers 0 ... {classes - 1}, one per example.")
    return labels


CheckLabelRange = Op("CheckLabelRange", _label_range_kernel, shape=lambda s, t, a: [(s[0], t[0])], stateful=True)


def checked_labels(labels: Tensor, classes: int) -> Tensor:
    """`labels`, checked against [0, classes) now (eagerly) or when the traced graph runs."""
    return bind(CheckLabelRange, labels, classes=int(classes))
