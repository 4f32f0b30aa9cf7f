"""`tf.data.Dataset`'s methods, complete by construction: every public name the installed TensorFlow's Dataset has
is implemented by minitf and used by a differential test (the file named below), or stands in minitf's
`Dataset.LEFT_OUT` with a reason (and raises LeftOutError). Below, the differential tests of scan, take_while,
unique, shard, get_single_element, group_by_window, bucket_by_sequence_length, choose_from_datasets and
sample_from_datasets, and `fill` with sizes known only per element inside a traced map."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from harness import EAGER, TAPE, minitf, named_examples, real_tf, same, same_error

from minitf import left_out

HERE = Path(__file__).parent
CORPUS = HERE.parents[1] / "corpus" / "programs"

# Each implemented method -> a differential test (or corpus program) that uses it.
TESTED_IN = {
    "apply": "test_data_builders.py",
    "as_numpy_iterator": "test_data_files.py",
    "batch": "test_data.py",
    "bucket_by_sequence_length": "test_data_methods.py",
    "cache": "test_data.py",
    "cardinality": "test_data_builders.py",
    "choose_from_datasets": "test_data_methods.py",
    "concatenate": "test_data_builders.py",
    "counter": "test_data_builders.py",
    "element_spec": "test_data_builders.py",
    "enumerate": "test_data.py",
    "filter": "test_data.py",
    "flat_map": "test_data_builders.py",
    "from_generator": "test_data_builders.py",
    "from_tensor_slices": "test_data.py",
    "from_tensors": "test_data.py",
    "get_single_element": "test_data_methods.py",
    "group_by_window": "test_data_methods.py",
    "interleave": "test_data_builders.py",
    "list_files": "test_data_files.py",
    "map": "test_data.py",
    "options": "test_data_builders.py",
    "padded_batch": "test_data_builders.py",
    "prefetch": "test_data.py",
    "ragged_batch": "test_ragged_shapes_data_and_tapes.py",
    "random": "test_random.py",
    "range": "test_data.py",
    "rebatch": "test_data_builders.py",
    "reduce": "test_data.py",
    "repeat": "test_data_builders.py",
    "sample_from_datasets": "test_data_methods.py",
    "scan": "test_data_methods.py",
    "shard": "test_data_methods.py",
    "shuffle": "test_data.py",
    "skip": "test_data.py",
    "take": "test_data.py",
    "take_while": "test_data_methods.py",
    "unbatch": "test_data_unbatch.py",
    "unique": "test_data_methods.py",
    "window": "test_data_builders.py",
    "with_options": "test_data_builders.py",
    "zip": "test_data.py",
}


def test_every_dataset_method_of_tensorflow_is_tested_or_left_out_with_a_reason() -> None:
    theirs = {name for name in dir(real_tf.data.Dataset) if not name.startswith("_")}
    table = minitf.data.Dataset.LEFT_OUT
    assert not set(TESTED_IN) & set(table), "both tested and left out"
    assert not (set(TESTED_IN) | set(table)) - theirs, "names TensorFlow's Dataset does not have"
    assert not theirs - set(TESTED_IN) - set(table), (
        f"neither tested nor left out: {theirs - set(TESTED_IN) - set(table)}"
    )
    for name, file in TESTED_IN.items():
        assert hasattr(minitf.data.Dataset, name), name
        text = (HERE / file).read_text()
        assert re.search(rf"\.{name}\b", text), f"{file} does not use Dataset.{name}"
    ds = minitf.data.Dataset.range(3)
    for name, reason in table.items():
        assert reason.strip()
        with pytest.raises(left_out.LeftOutError, match=f"tf.data.Dataset.{name}"):
            getattr(ds, name)


def elements(ds: Any) -> Any:
    """What a learner looks at: the dataset's repr, cardinality and elements (as NumPy values)."""
    return repr(ds), int(ds.cardinality()), list(ds.as_numpy_iterator())


def running_sum(tf: Any) -> Any:
    return tf.data.Dataset.range(6).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 2))


def pair_state(tf: Any) -> Any:
    def step(s: Any, x: Any) -> Any:
        return (s[0] + x, s[1] * 2.0), s[0]

    return tf.data.Dataset.range(5).scan((tf.constant(0, tf.int64), tf.constant(1.0)), step)


def windows_by_parity(tf: Any) -> Any:
    return tf.data.Dataset.range(10).group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), window_size=3)


def windows_using_the_key(tf: Any) -> Any:
    return tf.data.Dataset.range(7).group_by_window(
        lambda x: x % 2, lambda k, w: w.map(lambda x: x + k * 100).batch(5), window_size_func=lambda k: k + 1
    )


def sequences(tf: Any) -> Any:
    lengths = [1, 3, 2, 5, 4, 1, 2]
    return tf.data.Dataset.from_generator(
        lambda: (np.arange(1, n + 1, dtype=np.int32) for n in lengths), output_signature=tf.TensorSpec([None], tf.int32)
    )


def buckets(tf: Any, **options: Any) -> Any:
    return sequences(tf).bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], bucket_boundaries=[3], bucket_batch_sizes=[2, 2], **options
    )


def chosen(tf: Any, choices: list[int], **options: Any) -> Any:
    picks = tf.data.Dataset.from_tensor_slices(tf.constant(choices, tf.int64))
    return tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(2), tf.data.Dataset.range(10, 14)], picks, **options
    )


CASES = [
    ("scan_running_sum", lambda tf: elements(running_sum(tf))),
    ("scan_pair_state", lambda tf: elements(pair_state(tf))),
    ("scan_python_state", lambda tf: elements(tf.data.Dataset.range(4).scan(0, lambda s, x: (s + 1, x * s)))),
    ("take_while", lambda tf: elements(tf.data.Dataset.range(10).take_while(lambda x: x < 4))),
    (
        "take_while_pairs",
        lambda tf: elements(tf.data.Dataset.range(5).map(lambda x: (x, -x)).take_while(lambda a, b: b > -3)),
    ),
    ("unique_ints", lambda tf: elements(tf.data.Dataset.from_tensor_slices([1, 2, 1, 3, 2]).unique())),
    ("unique_strings", lambda tf: elements(tf.data.Dataset.from_tensor_slices([b"a", b"b", b"a"]).unique())),
    ("unique_rows", lambda tf: elements(tf.data.Dataset.from_tensor_slices([[1, 2], [1, 2], [2, 1]]).unique())),
    ("shard", lambda tf: elements(tf.data.Dataset.range(10).shard(3, 1))),
    ("shard_last", lambda tf: elements(tf.data.Dataset.range(7).shard(3, 2))),
    ("shard_infinite", lambda tf: int(tf.data.Dataset.range(7).repeat().shard(3, 2).cardinality())),
    ("single_element", lambda tf: tf.data.Dataset.from_tensors((1, 2.0)).get_single_element()),
    ("single_batch", lambda tf: tf.data.Dataset.range(4).batch(4).get_single_element()),
    ("group_by_window", lambda tf: elements(windows_by_parity(tf))),
    ("group_by_window_size_func", lambda tf: elements(windows_using_the_key(tf))),
    ("bucket", lambda tf: elements(buckets(tf))),
    ("bucket_spec", lambda tf: repr(buckets(tf).element_spec)),
    (
        "bucket_to_boundary",
        lambda tf: list(buckets(tf, pad_to_bucket_boundary=False, drop_remainder=True).as_numpy_iterator()),
    ),
    ("bucket_no_padding", lambda tf: repr(buckets(tf, no_padding=True).element_spec)),
    ("choose", lambda tf: elements(chosen(tf, [0, 1, 1, 0, 1]))),
    ("choose_stops_on_empty", lambda tf: elements(chosen(tf, [0, 0, 0, 1]))),
    ("choose_skips_empty", lambda tf: elements(chosen(tf, [0, 0, 0, 1], stop_on_empty_dataset=False))),
    (
        "choose_spec",
        lambda tf: repr(
            tf.data.Dataset.choose_from_datasets(
                [tf.data.Dataset.from_tensors([1, 2]), tf.data.Dataset.from_tensors([1, 2, 3])],
                tf.data.Dataset.range(2),
            ).element_spec
        ),
    ),
    # The random draws are not TensorFlow's: which elements come out, not in which order.
    (
        "sample_all",
        lambda tf: sorted(
            tf.data.Dataset.sample_from_datasets(
                [tf.data.Dataset.range(5), tf.data.Dataset.range(10, 13)], seed=3
            ).as_numpy_iterator()
        ),
    ),
    (
        "sample_weights",
        lambda tf: sorted(
            tf.data.Dataset.sample_from_datasets(
                [tf.data.Dataset.range(5), tf.data.Dataset.range(10, 15)], weights=[1.0, 0.0]
            ).as_numpy_iterator()
        ),
    ),
    (
        "sample_described",
        lambda tf: (
            repr(
                s := tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(5), tf.data.Dataset.range(5).repeat()])
            ),
            int(s.cardinality()),
        ),
    ),
]


@named_examples(*CASES)
def test_dataset_method_matches_tensorflow(case: Any) -> None:
    same(case, modes=(EAGER, TAPE))


ERRORS = [
    ("unique_floats", lambda tf: tf.data.Dataset.from_tensor_slices([1.0, 2.0]).unique()),
    ("unique_pairs", lambda tf: tf.data.Dataset.from_tensor_slices(([1], [2])).unique()),
    ("shard_index", lambda tf: tf.data.Dataset.range(5).shard(2, 2)),
    ("shard_zero", lambda tf: tf.data.Dataset.range(5).shard(0, 0)),
    ("single_of_none", lambda tf: tf.data.Dataset.range(0).get_single_element()),
    ("single_of_two", lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).get_single_element()),
    (
        "choose_int32",
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [tf.data.Dataset.range(2)], tf.data.Dataset.range(2).map(lambda x: tf.cast(x, tf.int32))
        ),
    ),
    ("choose_index", lambda tf: list(chosen(tf, [0, 5]))),
    (
        "choose_dtypes",
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [tf.data.Dataset.range(2), tf.data.Dataset.from_tensors(1.0)], tf.data.Dataset.range(2)
        ),
    ),
    ("take_while_not_bool", lambda tf: tf.data.Dataset.range(5).take_while(lambda x: x)),
]


@named_examples(*ERRORS)
def test_dataset_method_raises_tensorflows_error(case: Any) -> None:
    same_error(case)


@pytest.mark.parametrize(
    "case",
    [
        lambda tf: tf.data.Dataset.range(5).group_by_window(lambda x: x % 2, lambda k, w: w.batch(2)),
        lambda tf: tf.data.Dataset.range(5).bucket_by_sequence_length(lambda x: x, [3], [2]),
        lambda tf: tf.data.Dataset.choose_from_datasets([], tf.data.Dataset.range(2)),
        lambda tf: tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(2)] * 2, weights=[0.5]),
    ],
    ids=["no_window_size", "bucket_sizes", "no_datasets", "weights_length"],
)
def test_dataset_argument_errors_match_tensorflow(case: Any) -> None:
    same_error(case, hint=False)


def fill_per_element(tf: Any) -> Any:
    """`tf.fill` with a size each element decides, inside a traced map (the size is unknown while tracing)."""
    ds = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], tf.cast(n, tf.float32)))
    return repr(ds.element_spec), [x.tolist() for x in ds.as_numpy_iterator()]


def zeros_per_element(tf: Any) -> Any:
    ds = tf.data.Dataset.range(1, 4).map(lambda n: tf.zeros([n, 2]) + tf.ones(tf.stack([n, 2])))
    return repr(ds.element_spec), [x.tolist() for x in ds.padded_batch(3).as_numpy_iterator()]


@named_examples(("fill", fill_per_element), ("zeros", zeros_per_element))
def test_sizes_known_per_element_work_inside_a_traced_map(case: Any) -> None:
    same(case, modes=(EAGER,))
