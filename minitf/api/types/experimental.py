"""`tf.types.experimental`: the abstract types (minitf/function/types.py) and `FunctionType`."""

from minitf.function.concrete_function import FunctionType
from minitf.function.types import (
    AtomicFunction,
    Callable,
    ConcreteFunction,
    GenericFunction,
    PolymorphicFunction,
    SupportsTracingProtocol,
    TensorLike,
    TraceType,
)
