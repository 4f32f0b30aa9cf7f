"""`tf.io.decode_raw` reads each string's bytes as numbers, as TensorFlow does: dtypes, byte order, padding to
`fixed_length`, the shapes it gives inside a tf.function, and the errors for strings of unequal or unfitting
lengths (the tensors guide decodes "Duck" to its byte values this way)."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

FLOATS = np.arange(3, dtype=np.float64).tobytes()

CASES = [
    ("bytes_of_a_word", lambda tf: tf.io.decode_raw(tf.constant("Duck"), tf.uint8)),
    ("int16_rows", lambda tf: tf.io.decode_raw(tf.constant(["abcd", "efgh"]), tf.int16)),
    ("big_endian", lambda tf: tf.io.decode_raw(tf.constant(["abcd", "efgh"]), tf.int16, little_endian=False)),
    ("float32_of_a_matrix", lambda tf: tf.io.decode_raw(tf.constant([["abcdefgh"]]), tf.float32)),
    ("float64_round_trip", lambda tf: tf.io.decode_raw(tf.constant(FLOATS), tf.float64)),
    ("empty_string", lambda tf: tf.io.decode_raw(tf.constant(""), tf.int32)),
    ("padded", lambda tf: tf.io.decode_raw(tf.constant(["ab", "cdef"]), tf.uint8, fixed_length=4)),
    ("cut", lambda tf: tf.io.decode_raw(tf.constant(["abcdef"]), tf.int16, fixed_length=4)),
    ("bool", lambda tf: tf.io.decode_raw(tf.constant(["\x00\x01"]), tf.bool)),
    ("unequal_lengths", lambda tf: tf.io.decode_raw(tf.constant(["ab", "cde"]), tf.uint8)),
    ("length_not_a_multiple", lambda tf: tf.io.decode_raw(tf.constant(["abc"]), tf.int32)),
    ("fixed_length_not_a_multiple", lambda tf: tf.io.decode_raw(tf.constant(["ab"]), tf.int16, fixed_length=3)),
]


@named_examples(*CASES)
def test_decode_raw_reads_bytes_like_tensorflow(case: Any) -> None:
    same(case)


def test_decode_raw_in_a_function_has_an_unknown_last_axis_like_tensorflow() -> None:
    def case(tf: Any) -> Any:
        traced = tf.function(lambda s: tf.io.decode_raw(s, tf.int16))
        return traced.get_concrete_function(tf.TensorSpec([None], tf.string)).structured_outputs.shape.as_list()

    same(case)
