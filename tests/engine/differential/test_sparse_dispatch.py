"""Which public ops take a SparseTensor, enumerated from the installed TensorFlow: every one-argument function of
tf, tf.math, tf.nn and tf.dtypes is called on a SparseTensor there; those that return a SparseTensor must be
minitf's list (minitf/composite/sparse_dispatch.py) and give the same result, and some of those that refuse it are
refused by minitf too."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from harness import real_tf, same_program

import minitf
from minitf.composite.sparse_dispatch import ON_VALUES

NAMESPACES = ("", "math", "nn", "dtypes")


def _sparse(tf: Any) -> Any:
    return tf.sparse.from_dense(tf.constant([[0.5, 0.0], [0.0, -0.25]]))


def _call(function: Any, tf: Any) -> Any:
    return function(_sparse(tf), tf.int32) if function is tf.cast else function(_sparse(tf))


def _takes_sparse(tf: Any) -> set[str]:
    """The public names whose function, called on a SparseTensor, returns one (in `tf`)."""
    found = set()
    for space in NAMESPACES:
        namespace = getattr(tf, space) if space else tf
        for name in dir(namespace):
            function = getattr(namespace, name)
            if name.startswith("_") or inspect.isclass(function) or not callable(function) or name == "tuple":
                continue
            try:
                if isinstance(_call(function, tf), tf.sparse.SparseTensor):
                    found.add(f"{space}.{name}".lstrip("."))
            except Exception:  # (most functions refuse a SparseTensor, or want more arguments)
                continue
    return found


def test_minitf_takes_over_the_ops_tensorflow_takes_over_for_sparse_tensors() -> None:
    tf = real_tf
    expected = _takes_sparse(tf)
    assert set(ON_VALUES) == {name.rpartition(".")[2] for name in expected}
    assert _takes_sparse(minitf) == expected


@pytest.mark.parametrize("name", sorted(ON_VALUES))
def test_an_op_on_a_sparse_tensor_runs_on_its_values(name: str) -> None:
    def case(tf: Any, seen: list) -> None:
        result = _call(getattr(tf, name), tf)
        seen += [result.indices, result.values, result.dense_shape]

    same_program(case)


@pytest.mark.parametrize("name", ["exp", "add", "reduce_sum"])
def test_an_op_that_would_fill_the_zeros_refuses_a_sparse_tensor(name: str) -> None:
    def case(tf: Any, seen: list) -> None:
        function = getattr(tf, name)
        seen.append(function(_sparse(tf), 1.0) if name == "add" else function(_sparse(tf)))

    same_program(case)
