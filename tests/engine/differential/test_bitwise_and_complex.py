"""tf.bitwise and complex numbers (tf.complex, tf.math.angle, real/imag gradients): values, dtypes, printing,
errors, traced and under a tape, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

A = np.array([0, 1, 5, 12, -7, 127], np.int32)
B = np.array([3, 3, 1, 10, 2, -1], np.int32)
SHIFT = np.array([0, 1, 4, 31, 32, 40], np.int32)
U8 = np.array([0, 1, 200, 255], np.uint8)
U8_SHIFT = np.array([1, 2, 7, 9], np.uint8)
RE = np.array([[1.0, -2.0, 0.0], [0.5, 3.0, -1.5]], np.float32)
IM = np.array([[0.5, 1.0, -2.0], [0.0, -0.25, 4.0]], np.float32)


@named_examples(
    (
        "and or xor",
        lambda tf: (
            tf.bitwise.bitwise_and(tf.constant(A), tf.constant(B)),
            tf.bitwise.bitwise_or(tf.constant(A), tf.constant(B)),
            tf.bitwise.bitwise_xor(tf.constant(A), tf.constant(B)),
        ),
    ),
    ("broadcasting", lambda tf: tf.bitwise.bitwise_and(tf.reshape(tf.constant(A), [6, 1]), tf.constant(B[:3]))),
    ("python operand", lambda tf: tf.bitwise.bitwise_or(tf.constant(A), 8)),
    (
        "uint8",
        lambda tf: (
            tf.bitwise.bitwise_xor(tf.constant(U8), tf.constant(U8[::-1].copy())),
            tf.bitwise.invert(tf.constant(U8)),
        ),
    ),
    ("int64", lambda tf: tf.bitwise.bitwise_and(tf.constant(A.astype(np.int64)), tf.constant(B.astype(np.int64)))),
    ("invert", lambda tf: tf.bitwise.invert(tf.constant(A))),
    ("left_shift", lambda tf: tf.bitwise.left_shift(tf.constant(A), tf.constant(SHIFT))),
    ("right_shift", lambda tf: tf.bitwise.right_shift(tf.constant(A), tf.constant(SHIFT))),
    (
        "negative shift",
        lambda tf: (tf.bitwise.left_shift(tf.constant(A), -1), tf.bitwise.right_shift(tf.constant(A), -2)),
    ),
    (
        "shifts of uint8",
        lambda tf: (
            tf.bitwise.left_shift(tf.constant(U8), tf.constant(U8_SHIFT)),
            tf.bitwise.right_shift(tf.constant(U8), tf.constant(U8_SHIFT)),
        ),
    ),
    ("float refused", lambda tf: tf.bitwise.bitwise_and(tf.constant([1.0]), tf.constant([2.0]))),
    ("float invert refused", lambda tf: tf.bitwise.invert(tf.constant([1.0]))),
    ("dtype mismatch", lambda tf: tf.bitwise.bitwise_or(tf.constant(A), tf.constant(B.astype(np.int64)))),
    ("shape mismatch", lambda tf: tf.bitwise.bitwise_xor(tf.constant(A), tf.constant(B[:4]))),
)
def test_bitwise_ops_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(
    ("complex", lambda tf: tf.complex(tf.constant(RE), tf.constant(IM))),
    ("complex128", lambda tf: tf.complex(tf.constant(RE.astype(np.float64)), tf.constant(IM.astype(np.float64)))),
    ("complex broadcasting", lambda tf: tf.complex(tf.constant(RE), tf.constant(IM[0]))),
    ("complex python numbers", lambda tf: tf.complex(1.0, 2.0)),
    ("complex of ints", lambda tf: tf.complex(tf.constant([1]), tf.constant([2]))),
    ("complex dtype mismatch", lambda tf: tf.complex(tf.constant([1.0]), tf.constant([2.0], tf.float64))),
    (
        "parts",
        lambda tf: (lambda z: (tf.math.real(z), tf.math.imag(z), tf.math.conj(z), tf.abs(z)))(
            tf.complex(tf.constant(RE), tf.constant(IM))
        ),
    ),
    ("angle complex", lambda tf: tf.math.angle(tf.complex(tf.constant(RE), tf.constant(IM)))),
    ("angle real", lambda tf: tf.math.angle(tf.constant(RE))),
    ("angle complex128", lambda tf: tf.math.angle(tf.constant(np.array([1 + 1j, -1 - 0j, -2j])))),
    (
        "complex arithmetic",
        lambda tf: (lambda z: tf.math.real(z * tf.math.conj(z)) + tf.math.imag(z * z))(
            tf.complex(tf.constant(RE), tf.constant(IM))
        ),
    ),
    (
        "angle of a product",
        lambda tf: tf.math.angle(
            tf.complex(tf.constant(RE), tf.constant(IM)) * tf.complex(tf.constant(IM), tf.constant(RE))
        ),
    ),
    (
        "printing",
        lambda tf: (
            str(tf.complex(tf.constant(RE), tf.constant(IM))),
            repr(tf.complex(tf.constant([1.5, -0.0]), tf.constant([2.0, 1e-3]))),
        ),
    ),
)
def test_complex_numbers_match_tensorflow(case: Any) -> None:
    same(case, rtol=1e-5, atol=1e-6)
