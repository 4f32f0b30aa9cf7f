"""tf.data against TensorFlow: elements, element_spec, cardinality, printing and errors.

Datasets print as `<_MapDataset element_spec=...>` in both engines, so a case may return `repr(ds)`;
elements are compared as tensors, or as NumPy values through `as_numpy_iterator`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import EAGER, EAGER_ONLY, TAPE, examples, minitf, named_examples, real_tf, same
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture(autouse=True)
def no_global_seed() -> Any:
    """Each test starts without a global seed on both engines: a seed left by another test (some set it on
    minitf alone) would change the order of a shuffle."""
    for tf in (minitf, real_tf):
        tf.random.set_seed(None)
    yield
    for tf in (minitf, real_tf):
        tf.random.set_seed(None)


def ds3(tf: Any) -> Any:
    return tf.data.Dataset.from_tensor_slices([1, 2, 3])


def described(ds: Any) -> Any:
    """What a student looks at: the dataset's repr, its cardinality and its elements."""
    return repr(ds), ds.cardinality(), list(ds)


def is_even(x: Any) -> Any:
    return x % 2 == 0


def pair(x: Any) -> Any:
    return x, x * 2


def greater_than_one(x: Any) -> Any:
    return x > 1


def always(x: Any) -> Any:
    return True


def flip_large(tf: Any) -> Any:
    """A map function with Python control flow on tensors: AutoGraph makes it a tf.cond, as in a tf.function."""

    def flip(x: Any, y: Any) -> Any:
        if tf.reduce_sum(x) > 10:
            x = -x
        return x, y

    return flip


def features_and_labels(tf: Any) -> Any:
    features = np.arange(20, dtype=np.float32).reshape(10, 2)
    return tf.data.Dataset.from_tensor_slices((features, np.arange(10) % 2))


CASES = [
    ("from_tensor_slices", lambda tf: described(ds3(tf))),
    (
        "from_tensor_slices_tuple_and_dict",
        lambda tf: described(tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [3.0, 4.0]))),
    ),
    ("from_tensor_slices_strings", lambda tf: list(tf.data.Dataset.from_tensor_slices(["a", "b"]).as_numpy_iterator())),
    ("from_tensor_slices_scalar", lambda tf: tf.data.Dataset.from_tensor_slices(5)),
    ("from_tensor_slices_ragged_list", lambda tf: tf.data.Dataset.from_tensor_slices([[1, 2], [3]])),
    ("from_tensor_slices_lengths_differ", lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2], [3]))),
    ("from_tensors", lambda tf: described(tf.data.Dataset.from_tensors({"a": 1, "b": [1.0, 2.0]}))),
    ("range", lambda tf: described(tf.data.Dataset.range(5))),
    ("range_start_stop_step", lambda tf: described(tf.data.Dataset.range(10, 0, -3))),
    ("range_output_type", lambda tf: described(tf.data.Dataset.range(3, output_type=tf.int32))),
    ("zip", lambda tf: described(tf.data.Dataset.zip(ds3(tf), tf.data.Dataset.range(2)))),
    ("zip_tuple", lambda tf: described(tf.data.Dataset.zip((ds3(tf), ds3(tf))))),
    ("map", lambda tf: described(ds3(tf).map(lambda x: x * 10))),
    ("map_changes_dtype", lambda tf: described(ds3(tf).map(lambda x: x / 2))),
    ("map_returns_tuple", lambda tf: described(ds3(tf).map(pair))),
    ("map_returns_list_gives_tuple", lambda tf: described(ds3(tf).map(lambda x: [x, x]))),
    ("map_returns_dict", lambda tf: described(ds3(tf).map(lambda x: {"y": x}))),
    ("map_returns_python_number", lambda tf: described(ds3(tf).map(lambda x: 1))),
    ("map_unpacks_tuples", lambda tf: described(tf.data.Dataset.zip(ds3(tf), ds3(tf)).map(lambda a, b: a - b))),
    ("map_with_autograph_control_flow", lambda tf: described(features_and_labels(tf).map(flip_large(tf)))),
    ("numpy_features_labels_batched", lambda tf: described(features_and_labels(tf).batch(4))),
    (
        "map_to_dict_then_batch",
        lambda tf: described(features_and_labels(tf).map(lambda x, y: {"f": x, "l": y}).batch(3)),
    ),
    (
        "experimental_cardinality",
        lambda tf: (
            tf.data.experimental.cardinality(tf.data.Dataset.range(4)),
            tf.data.experimental.INFINITE_CARDINALITY,
        ),
    ),
    ("ragged_rows", lambda tf: described(ragged_digits(tf))),
    ("ragged_rows_batched", lambda tf: [(repr(ds), [repr(b) for b in ds]) for ds in [ragged_digits(tf).batch(2)]]),
    ("ragged_rows_mapped", lambda tf: described(ragged_digits(tf).map(lambda x: tf.reduce_sum(x)))),
    ("ragged_batches_mapped", lambda tf: described(ragged_digits(tf).batch(2).map(lambda r: tf.reduce_sum(r, axis=1)))),
    ("text_lines_split_into_words", lambda tf: described(text_lines(tf).map(lambda s: tf.strings.split(s)))),
    (
        "text_words_joined_again",
        lambda tf: described(
            text_lines(tf).map(lambda s: tf.strings.split(s)).map(lambda w: tf.strings.reduce_join(w, separator="-"))
        ),
    ),
    ("text_lengths", lambda tf: list(text_lines(tf).map(lambda s: tf.strings.length(s)).as_numpy_iterator())),
    (
        "text_batches_split",
        lambda tf: [(repr(ds), [repr(b) for b in ds]) for ds in [text_lines(tf).batch(2).map(tf.strings.split)]],
    ),
    ("text_line_in_a_list_split", lambda tf: [repr(b) for b in text_lines(tf).map(lambda s: tf.strings.split([s]))]),
    (
        "sparse_from_tensors_and_densified",
        lambda tf: [
            (repr(ds), [repr(x) for x in ds])
            for ds in [sparse_one(tf), sparse_one(tf).map(lambda s: tf.sparse.to_dense(s))]
        ],
    ),
    (
        "map_returns_sparse",
        lambda tf: [
            (repr(ds), [repr(x) for x in ds])
            for ds in [
                tf.data.Dataset.range(2).map(lambda i: tf.sparse.from_dense(tf.reshape(tf.range(i, i + 2), [1, 2])))
            ]
        ],
    ),
    ("map_wrong_arity", lambda tf: ds3(tf).map(lambda x, y: x)),
    ("filter", lambda tf: described(tf.data.Dataset.range(6).filter(is_even))),
    ("filter_not_bool", lambda tf: ds3(tf).filter(lambda x: x)),
    ("batch", lambda tf: described(ds3(tf).batch(2))),
    ("batch_drop_remainder", lambda tf: described(ds3(tf).batch(2, drop_remainder=True))),
    ("batch_structure", lambda tf: described(tf.data.Dataset.from_tensor_slices(([1, 2], [[1, 2], [3, 4]])).batch(2))),
    ("batch_zero", lambda tf: ds3(tf).batch(0)),
    ("batch_shapes_differ", lambda tf: list(tf.data.Dataset.range(1, 3).map(lambda x: tf.range(x)).batch(2))),
    ("repeat", lambda tf: described(ds3(tf).repeat(2))),
    ("repeat_forever_take", lambda tf: described(ds3(tf).repeat().take(5))),
    ("take_skip", lambda tf: (described(ds3(tf).take(2)), described(ds3(tf).skip(1)), described(ds3(tf).skip(5)))),
    ("take_all_skip_all", lambda tf: (described(ds3(tf).take(-1)), described(ds3(tf).skip(-1)))),
    ("prefetch", lambda tf: described(ds3(tf).prefetch(tf.data.AUTOTUNE))),
    ("cache", lambda tf: described(ds3(tf).map(lambda x: x + 1).cache())),
    ("enumerate", lambda tf: described(ds3(tf).enumerate(5))),
    ("shuffle_repr_and_cardinality", lambda tf: (repr(ds3(tf).shuffle(2, seed=1)), ds3(tf).shuffle(2).cardinality())),
    ("reduce", lambda tf: ds3(tf).reduce(0, lambda s, x: s + x)),
    ("reduce_structure", lambda tf: tf.data.Dataset.zip(ds3(tf), ds3(tf)).reduce(0, lambda s, x: s + x[0])),
    ("reduce_dtype_changes", lambda tf: ds3(tf).reduce(0.0, lambda s, x: s + x)),
    (
        "cardinality_rules",
        lambda tf: [
            ds3(tf).repeat(2).filter(greater_than_one).cardinality(),
            ds3(tf).repeat().cardinality(),
            ds3(tf).repeat().skip(2).cardinality(),
            ds3(tf).batch(2).cardinality(),
            ds3(tf).repeat().batch(2).cardinality(),
            tf.data.Dataset.zip(ds3(tf), ds3(tf).repeat()).cardinality(),
            tf.data.Dataset.zip(ds3(tf).filter(always), ds3(tf).repeat()).cardinality(),
            ds3(tf).repeat(0).cardinality(),
            tf.data.Dataset.range(0).repeat().cardinality(),
            tf.data.INFINITE_CARDINALITY,
            tf.data.UNKNOWN_CARDINALITY,
        ],
    ),
    ("len", lambda tf: len(ds3(tf).batch(2))),
    ("len_infinite", lambda tf: len(ds3(tf).repeat())),
    ("len_unknown", lambda tf: len(ds3(tf).filter(greater_than_one))),
    ("iterator_next_and_end", lambda tf: _drain(iter(tf.data.Dataset.range(2)))),
    ("as_numpy_iterator", lambda tf: list(tf.data.Dataset.from_tensors({"a": 1, "b": [1.0, 2.0]}).as_numpy_iterator())),
    ("element_spec_compares_with_tensorspec", lambda tf: ds3(tf).element_spec == tf.TensorSpec([], tf.int32)),
]


def sparse_one(tf: Any) -> Any:
    return tf.data.Dataset.from_tensors(tf.sparse.from_dense([[1, 0], [0, 2]]))


def text_lines(tf: Any) -> Any:
    return tf.data.Dataset.from_tensor_slices(["a b", "c d e", ""])


def ragged_digits(tf: Any) -> Any:
    return tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []]))


def _drain(iterator: Any) -> Any:
    first, second = next(iterator), next(iterator)
    try:
        next(iterator)
    except StopIteration:
        return first, second, "stopped"
    return first, second, "not stopped"


# Iterating a dataset with Python (`list(ds)`, `next(iter(ds))`, `for` without AutoGraph) is eager-only in
# TensorFlow: inside a tf.function it raises ("only supported when AutoGraph is enabled") or OutOfRangeError.
PYTHON_ITERATION = (EAGER, TAPE)


@named_examples(*CASES)
def test_dataset_matches_tensorflow(case: Any) -> None:
    same(case, modes=PYTHON_ITERATION)


def test_dataset_loop_and_reduce_inside_tf_function_match_tensorflow() -> None:
    def case(tf: Any) -> Any:
        outside = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * x)

        @tf.function
        def total(ds: Any) -> Any:
            s = tf.constant(0)
            for x in ds:
                s += x
            return s

        @tf.function
        def built_inside() -> Any:
            s = tf.constant(0)
            for x in tf.data.Dataset.range(4).map(lambda x: tf.cast(x, tf.int32) * 2):
                s += x
            return s, tf.data.Dataset.range(4).batch(3).reduce(
                tf.constant(0, tf.int64), lambda a, b: a + tf.reduce_sum(b)
            )

        return total(outside), built_inside()

    # Traced, `outside` is made while the case's own function is traced, so `total` (traced inside that
    # trace) captures tensors of the enclosing graph, as TensorFlow's nested functions do.
    same(case)


def test_map_function_is_traced_once_like_a_tf_function() -> None:
    def case(tf: Any) -> Any:
        calls = []

        def double(x: Any) -> Any:
            calls.append(x.shape)
            return x * 2

        ds = tf.data.Dataset.range(4).map(double)
        return list(ds), list(ds), len(calls), calls[0]

    same(case, modes=PYTHON_ITERATION)


def test_seeded_shuffle_is_a_permutation_like_tensorflows() -> None:
    def case(tf: Any) -> Any:
        ds = tf.data.Dataset.range(10).shuffle(4, seed=42)
        return sorted(ds.as_numpy_iterator()), ds.cardinality()

    same(case)


def passes(ds: Any, count: int = 3) -> list[list[Any]]:
    """`count` full passes over a dataset, as NumPy values: the order of every epoch."""
    return [[np.asarray(x).tolist() for x in ds.as_numpy_iterator()] for _ in range(count)]


@pytest.mark.sample(9)
@pytest.mark.parametrize(
    ("size", "buffer_size"), [(10, 1), (10, 3), (10, 10), (10, 25), (37, 8), (0, 4), (5, -2), (12, 10_000)]
)
@pytest.mark.parametrize(("global_seed", "seed"), [(None, 42), (7, None), (7, 42), (0, 0), (None, 2**40 + 3)])
@pytest.mark.parametrize("reshuffle", [True, False])
def test_seeded_shuffle_gives_tensorflows_order_epoch_by_epoch(
    size: int, buffer_size: int, global_seed: Any, seed: Any, reshuffle: bool
) -> None:
    def case(tf: Any) -> Any:
        tf.random.set_seed(global_seed)
        ds = tf.data.Dataset.range(size).shuffle(buffer_size, seed=seed, reshuffle_each_iteration=reshuffle)
        return passes(ds)

    same(case, modes=EAGER_ONLY)


def test_shuffle_without_op_seed_takes_the_next_op_seed_like_a_random_op() -> None:
    def case(tf: Any) -> Any:
        tf.random.set_seed(9)
        drawn = tf.random.uniform([2])
        first = tf.data.Dataset.range(10).shuffle(3)
        second = tf.data.Dataset.range(10).shuffle(3)
        after = tf.random.uniform([2])
        return drawn, passes(first, 2), passes(second, 2), after

    same(case, modes=EAGER_ONLY)


def test_shuffle_reseeds_at_each_repeat_and_when_a_pass_is_cut_short() -> None:
    def case(tf: Any) -> Any:
        tf.random.set_seed(4)
        data = tf.data.Dataset.range(8)
        shuffled = data.shuffle(3, seed=5)
        cut_short = [int(x) for x in shuffled.take(3)]
        return (
            cut_short,
            passes(shuffled, 1),
            passes(data.shuffle(4, seed=6).repeat(3), 1),
            passes(data.shuffle(4, seed=6, reshuffle_each_iteration=False).repeat(2), 1),
            passes(data.repeat(2).shuffle(5, seed=6), 2),
            passes(data.shuffle(8, seed=1).batch(3), 2),
            passes(
                tf.data.Dataset.from_tensor_slices((np.arange(6.0), ["a", "b", "c", "d", "e", "f"])).shuffle(4, seed=2),
                2,
            ),
        )

    same(case, modes=EAGER_ONLY)


@pytest.mark.parametrize("buffer_size", [0, -1, -3])
def test_shuffle_buffer_below_one_raises_like_tensorflow(buffer_size: int) -> None:
    same(lambda tf: tf.data.Dataset.range(3).shuffle(buffer_size, seed=1), modes=EAGER_ONLY)


@pytest.mark.parametrize("global_seed", [None, 3])
def test_shuffle_made_inside_tf_function_gives_tensorflows_order(global_seed: Any) -> None:
    """Inside a tf.function the seeds come from the graph's op counter; each call makes the dataset anew."""

    def run(tf: Any) -> list[int]:
        tf.random.set_seed(global_seed)

        @tf.function
        def fingerprint() -> Any:
            tf.random.uniform([2])
            ds = tf.data.Dataset.range(12).shuffle(5, seed=None if global_seed is not None else 4)
            return ds.reduce(tf.constant(0, tf.int64), lambda total, x: total * 13 + x)

        return [int(fingerprint()), int(fingerprint())]

    assert run(minitf) == run(real_tf)


@settings(examples, max_examples=max(5, examples.max_examples // 2))
@given(
    size=st.integers(0, 40),
    buffer_size=st.integers(1, 50),
    seed=st.integers(0, 2**31 - 1),
    global_seed=st.none() | st.integers(0, 2**31 - 1),
    reshuffle=st.booleans(),
)
def test_generated_shuffles_give_tensorflows_order(
    size: int, buffer_size: int, seed: int, global_seed: Any, reshuffle: bool
) -> None:
    def case(tf: Any) -> Any:
        tf.random.set_seed(global_seed)
        return passes(
            tf.data.Dataset.range(size).shuffle(buffer_size, seed=seed, reshuffle_each_iteration=reshuffle), 2
        )

    same(case, modes=EAGER_ONLY)


def test_seeded_shuffle_repeats_its_order_and_reshuffles_each_epoch() -> None:
    def orders(seed: int, reshuffle: bool) -> list[list[int]]:
        ds = minitf.data.Dataset.range(20).shuffle(5, seed=seed, reshuffle_each_iteration=reshuffle)
        return [[int(x) for x in ds.as_numpy_iterator()] for _ in range(2)]

    first_epoch, second_epoch = orders(7, reshuffle=True)
    assert orders(7, reshuffle=True) == [first_epoch, second_epoch]
    assert first_epoch != second_epoch and sorted(first_epoch) == list(range(20))
    fixed = orders(7, reshuffle=False)
    assert fixed[0] == fixed[1]
    assert orders(8, reshuffle=True)[0] != first_epoch


def test_shuffle_with_global_seed_is_reproducible() -> None:
    def draw() -> list[int]:
        minitf.api.random.set_seed(3)
        return [int(x) for x in minitf.data.Dataset.range(30).shuffle(30).as_numpy_iterator()]

    assert draw() == draw()
    assert draw() != list(range(30))


def test_cache_replays_the_first_pass_without_calling_the_source_again() -> None:
    ds = minitf.data.Dataset.range(5).shuffle(5, seed=1).cache()
    first = list(ds.as_numpy_iterator())
    assert list(ds.as_numpy_iterator()) == first
    assert np.array_equal(sorted(first), np.arange(5))


@st.composite
def pipelines(draw: Any) -> list[tuple[str, Any]]:
    """A random chain of take/skip/repeat/batch/filter/seeded shuffle steps (repeat() forever only when a take
    follows)."""
    steps: list[tuple[str, Any]] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["take", "skip", "repeat", "batch", "filter", "enumerate", "shuffle"]))
        if kind == "shuffle":
            steps.append((kind, (draw(st.integers(1, 8)), draw(st.integers(0, 100)), draw(st.booleans()))))
        elif kind in ("take", "skip"):
            steps.append((kind, draw(st.integers(-1, 6))))
        elif kind == "repeat":
            steps.append((kind, draw(st.sampled_from([0, 1, 2, None]))))
            if steps[-1][1] is None:
                steps.append(("take", draw(st.integers(0, 7))))
        elif kind == "batch":
            steps.append((kind, (draw(st.integers(1, 3)), draw(st.booleans()))))
        else:
            steps.append((kind, None))
    return steps


def apply(ds: Any, steps: list[tuple[str, Any]]) -> Any:
    for kind, arg in steps:
        if kind == "batch":
            ds = ds.batch(arg[0], drop_remainder=arg[1])
        elif kind == "shuffle":
            ds = ds.shuffle(arg[0], seed=arg[1], reshuffle_each_iteration=arg[2])
        elif kind == "filter":
            ds = ds.filter(lambda *x: True)
        elif kind == "enumerate":
            ds = ds.enumerate()
        else:
            ds = getattr(ds, kind)(arg)
    return ds


@settings(examples, max_examples=max(5, examples.max_examples // 4))
@given(size=st.integers(0, 5), steps=pipelines())
def test_generated_pipelines_match_tensorflow(size: int, steps: list[tuple[str, Any]]) -> None:
    same(lambda tf: described(apply(tf.data.Dataset.range(size), steps)), modes=PYTHON_ITERATION)
