"""Small top-level names the guides use: tf.get_logger, tf.version, tf.VariableAggregation and
tf.VariableSynchronization, tf.get_current_name_scope, tf.is_symbolic_tensor, tf.no_gradient and tf.timestamp."""

from __future__ import annotations

import enum
import logging
import time
from types import SimpleNamespace
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function import module
from minitf.function.tracing.graph import SymbolicTensor

# TensorFlow's own release, whose behaviour minitf follows (minitf's version is minitf.__version__).
version = SimpleNamespace(VERSION="2.21.0", GIT_VERSION="unknown", COMPILER_VERSION="unknown",
                          GRAPH_DEF_VERSION=2474, GRAPH_DEF_VERSION_MIN_CONSUMER=0,
                          GRAPH_DEF_VERSION_MIN_PRODUCER=0)


def get_logger() -> logging.Logger:
    """The "tensorflow" logger (tutorials quiet it with tf.get_logger().setLevel("ERROR"))."""
    return logging.getLogger("tensorflow")


class VariableAggregation(enum.Enum):
    """How a distributed variable combines the updates of its replicas (one device here: recorded only)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


VariableAggregation.__name__ = VariableAggregation.__qualname__ = "VariableAggregationV2"  # TensorFlow's name


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (one device here: recorded only)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


def get_current_name_scope() -> str:
    """The names of the enclosing tf.name_scope blocks, joined by "/" ("" outside any)."""
    graph = state.graph
    return "/".join(graph.name_scopes if graph is not None else module.eager_name_scopes)


def is_symbolic_tensor(tensor: Any) -> bool:
    """True for a tensor of a graph being traced (no value yet), False for eager tensors and anything else."""
    return isinstance(tensor, SymbolicTensor)


def no_gradient(op_type: str) -> None:
    """Declare that ops of `op_type` have no gradient (minitf's ops say so in their definitions already)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")


# Stateful, so that each call of a traced function reads the clock anew.
Timestamp = Op("Timestamp", lambda: np.float64(time.time()), shape=lambda s, t, a: [(TensorShape([]), dtypes.float64)],
               stateful=True)


def timestamp(name: str | None = None) -> Tensor:
    """The time in seconds since the epoch, as a float64 scalar (when the graph runs, if traced)."""
    return bind(Timestamp)
