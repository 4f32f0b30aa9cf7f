"""`tf.errors`: TensorFlow's exception classes, so that `except tf.errors.InvalidArgumentError` works alike.

An op that rejects its inputs at run time raises an `OpError` subclass (not ValueError or TypeError),
exactly as TensorFlow does; checks done while *building* a call raise TypeError or ValueError.
"""

from __future__ import annotations

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS = range(7)
PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE = range(7, 12)
UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = range(12, 17)


class OpError(Exception):
    """The base class of errors raised while an op runs."""

    default_code = UNKNOWN

    def __init__(self, node_def: object = None, op: object = None, message: str = "", error_code: int | None = None):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        self.error_code = self.default_code if error_code is None else error_code

    def __str__(self) -> str:
        return self.message


def _error_class(name: str, code: int) -> type[OpError]:
    def __init__(self: OpError, node_def: object = None, op: object = None, message: str = "", *args: object) -> None:
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"default_code": code, "__init__": __init__, "__module__": __name__})


CancelledError = _error_class("CancelledError", CANCELLED)
UnknownError = _error_class("UnknownError", UNKNOWN)
InvalidArgumentError = _error_class("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _error_class("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _error_class("NotFoundError", NOT_FOUND)
AlreadyExistsError = _error_class("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _error_class("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _error_class("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _error_class("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _error_class("AbortedError", ABORTED)
OutOfRangeError = _error_class("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _error_class("UnimplementedError", UNIMPLEMENTED)
InternalError = _error_class("InternalError", INTERNAL)
UnavailableError = _error_class("UnavailableError", UNAVAILABLE)
DataLossError = _error_class("DataLossError", DATA_LOSS)
UnauthenticatedError = _error_class("UnauthenticatedError", UNAUTHENTICATED)


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where a concrete Python value is needed (e.g. `bool(t)` while tracing)."""


class InaccessibleTensorError(ValueError):
    """A tensor from one traced function was used in another."""


def invalid_argument(op_name: str, message: str) -> InvalidArgumentError:
    """The error an eager op raises for bad input, formatted as TensorFlow formats it."""
    return InvalidArgumentError(None, None, f"{{{{function_node __wrapped__{op_name}_device_/job:localhost/replica:0/"
                                f"task:0/device:CPU:0}}}} {message} [Op:{op_name}] name: ")


def op_error(cls: type[OpError], op_name: str, message: str) -> OpError:
    """An OpError of class `cls` with TensorFlow's eager message layout."""
    return cls(None, None, f"{message} [Op:{op_name}] name: ")
