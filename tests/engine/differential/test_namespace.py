"""The namespace: every name exists in minitf exactly where it exists in TensorFlow (tf.math.reduce_std, but no
tf.reduce_std; tf.nn.relu, but no tf.relu), and minitf invents no public names of its own."""

from __future__ import annotations

import types
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
from harness import minitf, real_tf

NAMESPACES = ["", "math", "nn", "linalg", "random", "dtypes", "errors", "debugging"]

# Every function and type of the course's first part, looked up in every namespace: where TensorFlow has it,
# minitf must have it, and where TensorFlow has not, minitf must not either.
BASE_NAMES = [
    "constant",
    "convert_to_tensor",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "fill",
    "range",
    "linspace",
    "eye",
    "identity",
    "cast",
    "random",
    "uniform",
    "normal",
    "set_seed",
    "add",
    "subtract",
    "multiply",
    "divide",
    "floordiv",
    "floormod",
    "mod",
    "pow",
    "negative",
    "abs",
    "sign",
    "square",
    "sqrt",
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "maximum",
    "minimum",
    "round",
    "floor",
    "ceil",
    "clip_by_value",
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_any",
    "reduce_all",
    "reduce_logsumexp",
    "reduce_std",
    "reduce_variance",
    "argmax",
    "argmin",
    "cumsum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "logical_xor",
    "where",
    "matmul",
    "transpose",
    "inv",
    "det",
    "norm",
    "tensordot",
    "reshape",
    "expand_dims",
    "squeeze",
    "concat",
    "stack",
    "unstack",
    "split",
    "tile",
    "gather",
    "boolean_mask",
    "one_hot",
    "reverse",
    "pad",
    "shape",
    "rank",
    "size",
    "relu",
    "softmax",
    "log_softmax",
    "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
    "truediv",
    "truncatediv",
    "truncatemod",
    "divide_no_nan",
    "reciprocal",
    "rsqrt",
    "log1p",
    "expm1",
    "tan",
    "is_nan",
    "is_inf",
    "is_finite",
    "real",
    "imag",
    "conj",
    "squared_difference",
    "add_n",
    "scalar_mul",
    "count_nonzero",
    "reduce_euclidean_norm",
    "cumprod",
    "saturate_cast",
    "broadcast_to",
    "stop_gradient",
    "newaxis",
    "Tensor",
    "Variable",
    "TensorShape",
    "DType",
    "as_dtype",
    "float16",
    "float32",
    "float64",
    "half",
    "double",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "complex64",
    "complex128",
    "string",
    "GradientTape",
    "print",
    "executing_eagerly",
    "InvalidArgumentError",
    "OpError",
    "NotFoundError",
    "UnimplementedError",
    "InternalError",
    "AbortedError",
    "elu",
    "leaky_relu",
    "softplus",
    "l2_loss",
    "trace",
    "shuffle",
    "truncated_normal",
    # Indexing and scattering
    "slice",
    "strided_slice",
    "gather_nd",
    "scatter_nd",
    "tensor_scatter_nd_update",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_min",
    "tensor_scatter_nd_max",
    "unravel_index",
    "searchsorted",
    "sort",
    "argsort",
    "top_k",
    "unique",
    "roll",
    "repeat",
    "meshgrid",
    "einsum",
    "solve",
    "band_part",
    "diag",
    "diag_part",
    # Everyday functions
    "map_fn",
    "vectorized_map",
    "ensure_shape",
    "bitcast",
    "bincount",
    "polyval",
    "segment_sum",
    "unsorted_segment_sum",
    "dropout",
    "sigmoid_cross_entropy_with_logits",
    "conv2d",
    "max_pool2d",
    "avg_pool2d",
    "assert_equal",
    "assert_shapes",
    "check_numerics",
    "constant_initializer",
    "zeros_initializer",
    "random_normal_initializer",
    "gradients",
    # Names from TensorFlow's guides (tensors, autodiff, modules)
    "is_tensor",
    "get_static_value",
    "sequence_mask",
    "bias_add",
    "relu6",
    "silu",
    "swish",
    "selu",
    "softsign",
    "log_sigmoid",
    "l2_normalize",
    "moments",
    "clip_by_norm",
    "clip_by_global_norm",
    "global_norm",
    "matvec",
    "matrix_transpose",
    "adjoint",
    "ones_initializer",
    "random_uniform_initializer",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "as_string",
]


MISSING = object()


def lookup(lib: Any, namespace: str, name: str) -> Any:
    module = getattr(lib, namespace) if namespace else lib
    return getattr(module, name, MISSING)


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_each_name_exists_where_tensorflow_has_it(namespace: str) -> None:
    differences = []
    for name in BASE_NAMES:
        in_tf = lookup(real_tf, namespace, name) is not MISSING
        in_minitf = lookup(minitf, namespace, name) is not MISSING
        if in_tf != in_minitf:
            where = f"tf.{namespace + '.' if namespace else ''}{name}"
            differences.append(
                f"{where}: TensorFlow {'has' if in_tf else 'lacks'} it, minitf {'has' if in_minitf else 'lacks'} it"
            )
    assert not differences, "\n".join(differences)


# minitf's own implementation modules are importable attributes of the package, as any package's are.
IMPLEMENTATION_MODULES = {
    "core",
    "ops",
    "printing",
    "tape",
    "tensor",
    "tensor_shape",
    "variables",
    "nest",
    "function",
    "compiler",
}


@pytest.mark.parametrize("namespace", ["", "math", "nn", "linalg", "random", "debugging"])
def test_minitf_invents_no_public_names(namespace: str) -> None:
    module = getattr(minitf, namespace) if namespace else minitf
    invented = [
        name
        for name in dir(module)
        if not name.startswith("_")
        and name not in IMPLEMENTATION_MODULES
        and not isinstance(getattr(module, name), types.ModuleType)
        and name != "annotations"
        and lookup(real_tf, namespace, name) is MISSING
    ]
    assert not invented, f"minitf has names TensorFlow lacks in tf.{namespace}: {invented}"


def test_error_classes_have_tensorflows_hierarchy() -> None:
    for name in [
        "OpError",
        "InvalidArgumentError",
        "NotFoundError",
        "UnimplementedError",
        "InternalError",
        "AbortedError",
        "OutOfRangeError",
        "ResourceExhaustedError",
        "FailedPreconditionError",
    ]:
        ours, theirs = getattr(minitf.core.errors, name), getattr(real_tf.errors, name)
        assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__], name
    for name in ["INVALID_ARGUMENT", "NOT_FOUND", "UNIMPLEMENTED", "INTERNAL", "ABORTED"]:
        assert getattr(minitf.core.errors, name) == getattr(real_tf.errors, name), name
    error = minitf.core.errors.InvalidArgumentError(None, None, "message")
    assert error.error_code == real_tf.errors.InvalidArgumentError(None, None, "message").error_code
    assert not issubclass(minitf.core.errors.InvalidArgumentError, ValueError | TypeError)


# ------------------------------------------------------------------------------------------------------------
# What minitf still lacks: every public name TensorFlow has in these namespaces is either in minitf or listed in
# missing_names.txt, never both. Adding a name to minitf means deleting its line; the list stays exact.
# Regenerate it with `cd tests/engine/differential && python test_namespace.py` (PYTHONPATH set to the repository).
# ------------------------------------------------------------------------------------------------------------

REPORTED_NAMESPACES = ["", "math", "linalg", "nn", "random", "strings", "sparse", "ragged", "data"]
MISSING_LIST = Path(__file__).with_name("missing_names.txt")


def dotted(namespace: str, name: str) -> str:
    return f"tf.{namespace + '.' if namespace else ''}{name}"


def tensorflow_names(namespace: str) -> list[str]:
    """TensorFlow's public names (`dir`, never `getattr`, so that no lazily loaded module such as Keras loads)."""
    module = reduce(getattr, namespace.split("."), real_tf) if namespace else real_tf
    return sorted(name for name in dir(module) if not name.startswith("_"))


def in_minitf(namespace: str, name: str) -> bool:
    module = minitf
    for part in namespace.split(".") if namespace else []:
        module = getattr(module, part, MISSING)
    return module is not MISSING and hasattr(module, name)


def missing_now() -> list[str]:
    return [dotted(ns, name) for ns in REPORTED_NAMESPACES for name in tensorflow_names(ns) if not in_minitf(ns, name)]


def listed() -> list[str]:
    return [line.strip() for line in MISSING_LIST.read_text().splitlines() if line.strip()]


def test_names_listed_as_missing_are_still_missing() -> None:
    gained = [name for name in listed() if in_minitf(*split_dotted(name))]
    assert not gained, f"minitf has these now: delete their lines from {MISSING_LIST.name}: {gained}"


def test_every_tensorflow_name_is_in_minitf_or_listed_as_missing() -> None:
    unlisted = sorted(set(missing_now()) - set(listed()))
    assert not unlisted, f"TensorFlow has these, minitf lacks them, {MISSING_LIST.name} does not list them: {unlisted}"


def test_the_missing_list_names_only_tensorflow_names_once_each() -> None:
    names = listed()
    assert len(names) == len(set(names)), "a name is listed twice"
    strangers = [name for name in names if split_dotted(name)[1] not in tensorflow_names(split_dotted(name)[0])]
    assert not strangers, f"TensorFlow has no such names; delete them from {MISSING_LIST.name}: {strangers}"


def split_dotted(name: str) -> tuple[str, str]:
    """'tf.math.abs' -> ('math', 'abs'); 'tf.abs' -> ('', 'abs')."""
    parts = name.split(".")[1:]
    return ".".join(parts[:-1]), parts[-1]


if __name__ == "__main__":
    names = missing_now()
    MISSING_LIST.write_text("\n".join(names) + "\n")
    print(f"{len(names)} names TensorFlow has that minitf lacks, written to {MISSING_LIST}")
