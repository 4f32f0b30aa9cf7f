"""tf.strings.to_hash_bucket_fast (TensorFlow's FarmHash fingerprint, written in Python) and the string ops a
RaggedTensor of words goes through, against TensorFlow.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

RNG = np.random.default_rng(28)
# Every length up to 200 bytes crosses each of the hash's cases (0-16, 17-32, 33-64, 64-byte blocks) and the
# block loop's leftovers; a few long strings run the loop many times.
BYTE_STRINGS = [bytes(RNG.integers(0, 256, n, dtype=np.uint8)) for n in [*range(0, 200), 255, 256, 257, 1000, 4097]]
WORDS = [["Who", "is", "Dan", "Smith"], ["Pause"], ["Will", "it", "rain", "later", "today"]]


def buckets(n: int) -> Any:
    return lambda tf: tf.strings.to_hash_bucket_fast(tf.constant(np.array(BYTE_STRINGS, dtype=object)), n)


HASHING = [
    ("every_length_many_buckets", buckets(2**62)),
    ("every_length_1024_buckets", buckets(1024)),
    ("one_bucket", buckets(1)),
    ("unicode_words", lambda tf: tf.strings.to_hash_bucket_fast(["héllo", "wörld", "日本", ""], 1000)),
    ("a_scalar", lambda tf: tf.strings.to_hash_bucket_fast("Smith+#", 1024)),
    ("a_matrix", lambda tf: tf.strings.to_hash_bucket_fast([["a", "b"], ["c", "d"]], 7)),
    ("ragged_words", lambda tf: tf.strings.to_hash_bucket_fast(tf.ragged.constant(WORDS), 1024).flat_values),
    ("ragged_words_rows", lambda tf: tf.strings.to_hash_bucket_fast(tf.ragged.constant(WORDS), 1024).row_splits),
    ("numbers", lambda tf: tf.strings.to_hash_bucket_fast([1, 2], 10)),
    ("zero_buckets", lambda tf: tf.strings.to_hash_bucket_fast(["a"], 0)),
]

SUBSTR = [
    ("bytes", lambda tf: tf.strings.substr(["hello", "ab"], 1, 3)),
    ("negative_position", lambda tf: tf.strings.substr("hello", -3, 2)),
    ("per_string_positions", lambda tf: tf.strings.substr(["hello", "ab"], [0, 1], [2, 5])),
    ("position_past_the_end", lambda tf: tf.strings.substr("hello", 7, 2)),
    ("utf8_characters", lambda tf: tf.strings.substr("héllo", 1, 2, unit="UTF8_CHAR")),
    ("ragged", lambda tf: tf.strings.substr(tf.ragged.constant(WORDS), 0, 2).flat_values),
    ("ragged_upper", lambda tf: tf.strings.upper(tf.ragged.constant(WORDS)).flat_values),
]


@named_examples(*HASHING)
def test_hash_buckets_match_tensorflows_fingerprints(case: Any) -> None:
    same(case)


@named_examples(*SUBSTR)
def test_substr_and_string_ops_on_ragged_words_match_tensorflow(case: Any) -> None:
    same(case)
