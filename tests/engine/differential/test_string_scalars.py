"""A scalar taken out of a string tensor is a string tensor whose `.numpy()` is `bytes`, as in TensorFlow.

NumPy keeps strings in object arrays, so a kernel that reads one element out (a gather, an index, a row of
map_fn or of a dataset) returns Python `bytes` with no `.dtype`: these checks pin down that such results are
still string tensors on every path a student meets them.
"""

from __future__ import annotations

from typing import Any

from harness import EAGER, TAPE, named_examples, only, same, same_program

WORDS = ["So", "long", "and", "thanks"]

ON_VALUES = ((EAGER, TAPE), ".numpy() of a symbolic tensor raises in both engines; the value is what is compared")

SCALARS = [
    ("gather_then_index", lambda tf: tf.gather(tf.constant(WORDS), [2, 0, 3, 1])[3]),
    ("gather_then_index_numpy", only(*ON_VALUES)(lambda tf: tf.gather(tf.constant(WORDS), [2, 0, 3, 1])[3].numpy())),
    ("gather_a_scalar_index", lambda tf: tf.gather(tf.constant(WORDS), 1)),
    ("index_a_matrix", lambda tf: tf.constant([WORDS, WORDS])[1, 2]),
    ("gather_nd_one_element", lambda tf: tf.gather_nd(tf.constant([WORDS]), [0, 3])),
    ("unstack", lambda tf: tf.unstack(tf.constant(WORDS))),
    ("reshape_to_a_scalar", lambda tf: tf.reshape(tf.constant(["x"]), [])),
    ("squeeze_to_a_scalar", lambda tf: tf.squeeze(tf.constant([["x"]]))),
    ("stack_then_index", lambda tf: tf.stack(["a", "b"])[1]),
    ("reverse_then_index", lambda tf: tf.reverse(tf.constant(WORDS), [0])[0]),
    ("boolean_mask_then_index", lambda tf: tf.boolean_mask(tf.constant(WORDS), [False, True, False, True])[1]),
    ("fill_a_scalar", lambda tf: tf.fill([], "#")),
    ("where_on_scalars", lambda tf: tf.where(True, "yes", "no")),
    ("map_fn_lengths", lambda tf: tf.map_fn(tf.strings.length, tf.constant(WORDS), fn_output_signature=tf.int32)),
    ("map_fn_identity", lambda tf: tf.map_fn(lambda s: s, tf.constant(WORDS))),
    ("map_fn_wrong_signature", lambda tf: tf.map_fn(tf.strings.length, tf.constant(WORDS))),
]


@named_examples(*SCALARS)
def test_string_scalars_behave_like_tensorflows(case: Any) -> None:
    same(case)


def test_iterating_string_tensors_and_datasets_gives_bytes_like_tensorflow() -> None:
    def program(tf: Any, seen: list) -> None:
        seen.append([t.numpy() for t in tf.constant(WORDS)])
        seen.append([e.numpy() for e in tf.data.Dataset.from_tensor_slices(WORDS)])
        seen.append([e.numpy() for e in tf.data.Dataset.from_tensor_slices(WORDS).map(lambda s: s)])
        seen.append(list(tf.data.Dataset.from_tensor_slices(WORDS).map(tf.strings.length)))
        first = next(iter(tf.data.Dataset.from_tensor_slices(WORDS)))
        seen.append((repr(first), first.dtype.name, first.shape))
        print(tf.gather(tf.constant(WORDS), [3, 1])[0])

    same_program(program)
