"""`Dataset.unbatch` gives each row of each batch as an element (the tf.data guide undoes `batch` with it), and
`map(..., num_parallel_calls=...)` prints as TensorFlow's `_ParallelMapDataset`, as in TensorFlow."""

from __future__ import annotations

from typing import Any

from harness import EAGER, TAPE, named_examples, same, same_error

CASES = [
    ("rows_of_batches", lambda tf: list(tf.data.Dataset.range(7).batch(3).unbatch().as_numpy_iterator())),
    (
        "rows_of_pairs",
        lambda tf: list(
            tf.data.Dataset.from_tensor_slices(([[1, 2], [3, 4]], [[5, 6], [7, 8]])).unbatch().as_numpy_iterator()
        ),
    ),
    ("spec", lambda tf: repr(tf.data.Dataset.from_tensors({"a": [[1.0, 2.0]]}).unbatch().element_spec)),
    ("cardinality", lambda tf: int(tf.data.Dataset.range(6).batch(2).unbatch().cardinality())),
    ("parallel_map", lambda tf: repr(tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=2))),
    ("map", lambda tf: repr(tf.data.Dataset.range(3).map(lambda x: x))),
]


@named_examples(*CASES)
def test_unbatch_and_map_datasets_match_tensorflow(case: Any) -> None:
    same(case, modes=(EAGER, TAPE))


def test_unbatching_scalars_raises_like_tensorflow() -> None:
    same_error(lambda tf: tf.data.Dataset.range(3).unbatch(), hint=False)
