"""minitf: a small, readable NumPy engine with TensorFlow's API, for learning how TensorFlow works.

`import minitf as tf` behaves like `import tensorflow as tf` for what the course uses. Where to look:
  core/tensor.py, dtypes.py, tensor_shape.py   what a tensor is
  core/op.py                                   bind(): the one door every op goes through (eager | traced | taped)
  ops/                                         each op's kernel, checks, shape rule and gradient, by family
  ops/variables.py, autodiff/                  state and automatic differentiation
  function/                                    tf.function: tracing to graphs, AutoGraph, tf.cond/while_loop
  api/                                         the public namespaces (tf.math, tf.nn, tf.config, tf.sparse, ...)

Where to start reading: docs/reading-minitf.md leads through the engine in order (a tensor, an op through `bind`,
dtype errors, the tape, gradients through broadcasting, tracing, tf.function's cache, calling a traced function),
each stop from an example, naming the objects that example runs and what to look for; docs/architecture.md lists
every file.
"""

import builtins as _builtins

from minitf import (
    distribute,
    keras,  # tf.keras: Keras 3 on minitf (minitf/keras/)
)
from minitf.api import (
    autodiff,
    autograph,
    bitwise,
    config,
    data,
    debugging,
    dtypes,
    errors,
    experimental,
    io,
    linalg,
    math,
    nest,
    nn,
    queue,
    ragged,
    random,
    saved_model,
    sets,
    sparse,
    strings,
    test,
    train,
    types,
    version,
)
from minitf.autodiff import jacobians as _jacobians  # provides GradientTape.jacobian and batch_jacobian
from minitf.autodiff.custom_gradients import custom_gradient
from minitf.autodiff.gradient_helpers import grad_pass_through, hessians, recompute_grad
from minitf.autodiff.graph_gradients import gradients, no_gradient
from minitf.autodiff.tape import GradientTape
from minitf.autodiff.tape_arguments import UnconnectedGradients
from minitf.composite import sparse_dispatch as _sparse_dispatch  # SparseTensor's entries in core/dispatch.py
from minitf.composite.indexed_slices import IndexedSlices
from minitf.composite.ragged import dispatch as _ragged_dispatch  # RaggedTensor's entries in core/dispatch.py
from minitf.composite.ragged.tensor import RaggedTensor
from minitf.composite.sparse import SparseTensor
from minitf.composite.specs import RaggedTensorSpec, SparseTensorSpec
from minitf.core.context import state as _state
from minitf.core.conversion import convert_to_tensor
from minitf.core.devices import DeviceSpec, device
from minitf.core.dtypes import (
    DType,
    as_dtype,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from minitf.core.logs import get_logger
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.data import choosing as _choosing
from minitf.data import grouping as _grouping
from minitf.data import reshaping as _reshaping  # these provide Dataset's methods (core/provided.py)
from minitf.data import selection as _selection
from minitf.data import sources as _sources
from minitf.data import stateful_steps as _stateful_steps
from minitf.function.cache_keys import TensorSpec
from minitf.function.control_flow.branches import cond
from minitf.function.control_flow.loops import while_loop
from minitf.function.control_flow.tensor_array import TensorArray
from minitf.function.function import function
from minitf.function.module import Module, get_current_name_scope, init_scope, name_scope
from minitf.function.tracing.graph import Operation
from minitf.function.tracing.trace import is_symbolic_tensor
from minitf.ops import operators as _operators  # provides Tensor's operators (core/tensor_interface.py)
from minitf.ops.array.broadcasting import broadcast_dynamic_shape, broadcast_static_shape, broadcast_to
from minitf.ops.array.creation import (
    constant,
    eye,
    fill,
    linspace,
    one_hot,
    ones,
    ones_like,
    range,
    sequence_mask,
    zeros,
    zeros_like,
)
from minitf.ops.array.gather_scatter import (
    boolean_mask,
    gather,
    gather_nd,
    scatter_nd,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
)
from minitf.ops.array.join_split import concat, split, stack, unstack
from minitf.ops.array.positions import meshgrid, repeat, roll, unravel_index
from minitf.ops.array.sequence_ops import dynamic_stitch, reverse_sequence
from minitf.ops.array.shape_ops import (
    expand_dims,
    identity,
    rank,
    reshape,
    shape,
    size,
    squeeze,
    stop_gradient,
    transpose,
)
from minitf.ops.array.slicing import newaxis, slice, strided_slice
from minitf.ops.array.sort_ops import argsort, searchsorted, sort, unique
from minitf.ops.array.tile_pad import pad, reverse, tile
from minitf.ops.array.where import where
from minitf.ops.checks.assert_ops import (
    Assert,
    assert_greater,
    assert_less,
    assert_rank,
)
from minitf.ops.checks.check_ops import assert_equal, ensure_shape
from minitf.ops.checks.tensor_checks import get_static_value, is_tensor
from minitf.ops.control.case_ops import case, switch_case
from minitf.ops.control.fold_ops import foldl, foldr, scan
from minitf.ops.control.grouping_ops import (
    control_dependencies,
    group,
    identity_n,
    inside_function,
    no_op,
    shape_n,
    tuple,
    unique_with_counts,
)
from minitf.ops.control.map_ops import map_fn, vectorized_map
from minitf.ops.control.python_ops import numpy_function, py_function
from minitf.ops.linalg.einsum import einsum
from minitf.ops.linalg.linalg_ops import matmul, tensordot
from minitf.ops.linalg.norms import clip_by_global_norm, clip_by_norm, norm
from minitf.ops.math.binary_math import (
    add,
    add_n,
    clip_by_value,
    divide,
    maximum,
    minimum,
    multiply,
    pow,
    realdiv,
    saturate_cast,
    scalar_mul,
    subtract,
    truediv,
    truncatediv,
    truncatemod,
)
from minitf.ops.math.cast import bitcast, cast
from minitf.ops.math.comparisons import (
    equal,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    not_equal,
)
from minitf.ops.math.complex_ops import complex
from minitf.ops.math.reductions import (
    argmax,
    argmin,
    cumsum,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from minitf.ops.math.trigonometry import acos, acosh, asin, asinh, atan, atan2, atanh, cos, cosh, sin, sinh, tan
from minitf.ops.math.unary_math import abs, exp, floor, negative, round, sigmoid, sign, sqrt, square, tanh
from minitf.ops.nn.init_ops import (
    constant_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    zeros_initializer,
)
from minitf.ops.state_ops import print_values as print
from minitf.ops.state_ops import timestamp
from minitf.ops.strings.text_ops import as_string
from minitf.ops.variables import Variable, VariableAggregation, VariableSynchronization

# The TensorFlow API version minitf follows, so learners' checks (`tf.__version__ >= "2.8"`) read as on TensorFlow;
# minitf's own version is `__minitf_version__`.
__version__ = version.VERSION
__minitf_version__ = "0.1.0"


def executing_eagerly() -> _builtins.bool:
    """True unless a function is being traced."""
    return _state.graph is None


__all__ = [name for name in dir() if not name.startswith("_")]
