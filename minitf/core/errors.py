"""`tf.errors`: TensorFlow's exception classes, so that `except tf.errors.InvalidArgumentError` works alike.

An op that rejects its inputs at run time raises an `OpError` subclass (not ValueError or TypeError),
exactly as TensorFlow does; checks done while *building* a call raise TypeError or ValueError.

Below the classes, TensorFlow's messages, so each is written once: `op_error` (an eager op's
`<message> [Op:<name>] name: ` layout), dtype mismatches ("no implicit promotion"), dtypes an op has no
kernel for, and mistakes found from shapes alone, which are ValueError while a graph is built (`state.graph`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from minitf.core import dtypes
from minitf.core.context import state

if TYPE_CHECKING:  # only for annotations: tf.errors must not list Tensor, as TensorFlow's does not
    from minitf.core.tensor import Tensor

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS = range(7)
PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE = range(7, 12)
UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = range(12, 17)


class OpError(Exception):
    """The base class of errors raised while an op runs."""

    default_code = UNKNOWN
    missing_kernel: tuple[str, Any]  # only on the errors `no_kernel` makes: which op and dtype had no kernel
    # Found by TensorFlow's runtime before the kernel ran (a dtype the op does not take, an attr value it does
    # not know): the eager message has no kernel prefix (`kernel_prefix`).
    before_kernel = False

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


# ---------------------------------------------------------------------------------------------------
# TensorFlow's messages
# ---------------------------------------------------------------------------------------------------


def kernel_prefix(op_name: str) -> str:
    """What TensorFlow puts before a message from an op's kernel run eagerly (it runs as a wrapped function)."""
    return f"{{{{function_node __wrapped__{op_name}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} "


def invalid_argument(op_name: str, message: str, node: str | None = None) -> OpError:
    """The error an eager op's kernel raises for bad input, formatted as TensorFlow formats it: the kernel's
    prefix (`node`: the kernel's function, see `Op.node`; by default the op's name), and a `Hint:` in the
    message after TensorFlow's `[Op:...] name:` tail, so the message starts with TensorFlow's whole text."""
    message, _, hint = message.partition("\nHint: ")
    hint = f"\nHint: {hint}" if hint else ""
    prefix = kernel_prefix(node or op_name)
    return InvalidArgumentError(None, None, f"{prefix}{message} [Op:{op_name}] name: {hint}")


def from_kernel(error: OpError, node: str) -> OpError:
    """`error`, raised while an op ran eagerly, as TensorFlow reports it: a mistake its kernel finds starts with
    the kernel's prefix; one found before the kernel ran (`before_kernel`) or already prefixed stays as it is."""
    if error.before_kernel or error.message.startswith("{{function_node "):
        return error
    message = kernel_prefix(node) + error.message
    prefixed = type(error)(None, None, message)
    prefixed.__dict__.update(error.__dict__, message=message)
    return prefixed


def before_kernel(error: OpError) -> OpError:
    """`error` marked as found by TensorFlow's runtime before the op's kernel ran (no kernel prefix)."""
    error.before_kernel = True
    return error


def op_error(
    cls: type[OpError],
    op_name: str,
    message: str,
    hint: str = "",
    name: str | None = "",
    kernel: bool | str = False,
) -> OpError:
    """An OpError of class `cls` with TensorFlow's eager message layout, `<message> [Op:<op_name>] name: <name>`
    (`name=None`: no ` name:` part, as for ops TensorFlow calls without one), and minitf's hint on the next line;
    `kernel`: found by the op's kernel, which TensorFlow's message says first (a graph that runs the op reports
    the message without it); a string is the kernel's function's name (`Op.node`) where it is not the op's."""
    hint = f"\nHint: {hint}" if hint else ""
    prefix = kernel_prefix(kernel if isinstance(kernel, str) else op_name) if kernel else ""
    tail = "" if name is None else f" name: {name}"
    return cls(None, None, f"{prefix}{message} [Op:{op_name}]{tail}{hint}")


def dims_text(shape: Iterable[object]) -> str:
    """A shape as TensorFlow's messages write it: [2,3]."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def static_error(
    message: str, op_name: str | None = None, hint: str = "", name: str | None = "", kernel: bool | str = True
) -> Exception:
    """An impossible argument found from shapes alone: InvalidArgumentError eagerly, but ValueError while
    tracing, where TensorFlow finds it when it builds the graph. With `op_name`, the message ends in
    TensorFlow's `[Op:<op_name>] name: ` (and minitf's hint), in both modes. Eagerly TensorFlow's kernel finds
    it (eager ops run no shape functions), so its message starts with the kernel's name (`kernel`: see `op_error`;
    False for a check TensorFlow's runtime makes before the kernel runs)."""
    if op_name is not None:
        message = op_error(
            InvalidArgumentError, op_name, message, hint, name, kernel=kernel if state.graph is None else False
        ).message
    if state.graph is not None:
        return ValueError(message)
    return InvalidArgumentError(None, None, message)


def same_dtype(op_name: str, inputs: Sequence[Tensor], listed: bool = False, name: str = "") -> None:
    """TensorFlow's "no implicit promotion" rule: every input must have the first input's dtype.

    `listed`: the inputs are one list argument (`tf.stack`, `tf.concat`), which TensorFlow's graph-building
    message describes as a whole."""
    first = inputs[0].dtype
    for i, t in enumerate(inputs[1:], start=1):
        if t.dtype is not first:
            if listed and state.graph is not None:
                names = ", ".join(x.dtype.name for x in inputs)
                raise TypeError(
                    f"Tensors in list passed to 'values' of '{op_name}' Op have types [{names}] that "
                    f"don't all match.\nHint: tf.cast the tensors to one dtype first."
                )
            raise dtype_mismatch(op_name, i, first, t.dtype, name=name)


def dtype_mismatch(
    op_name: str,
    index: int,
    expected: dtypes.DType,
    got: dtypes.DType,
    arg_names: Sequence[str] = ("x", "y"),
    name: str = "",
) -> Exception:
    """Eagerly an InvalidArgumentError; while tracing a TypeError (TensorFlow checks at graph-build time).

    `arg_names`: the op's argument names in TensorFlow's op definition, the first one the argument whose dtype
    the others must match, the last one the mismatching input (TensorScatterUpdate: "tensor", "updates")."""
    if state.graph is not None:
        first, other = arg_names[0], arg_names[min(index, len(arg_names) - 1)]
        return TypeError(
            f"Input '{other}' of '{op_name}' Op has type {got.name} that does not match type "
            f"{expected.name} of argument '{first}'."
        )
    return before_kernel(
        op_error(
            InvalidArgumentError,
            op_name,
            f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
            f"{tf_type_name(expected)} tensor but is a {tf_type_name(got)} tensor",
            hint=f"TensorFlow never converts dtypes implicitly. Convert one side with "
            f"tf.cast(x, tf.{expected.name}) (or tf.{got.name}) so both have the same dtype.",
            name=name,
        )
    )


def graph_build_error(op_name: str, message: str, hint: str = "") -> Exception:
    """A mistake TensorFlow finds from shapes, attrs and constant inputs alone: eagerly the kernel's
    InvalidArgumentError, while tracing the ValueError of the op's shape function, which runs as the node
    is added to the graph (before anything runs)."""
    hint = f"\nHint: {hint}" if hint else ""
    if state.graph is not None:
        return ValueError(f"{message} for '{{{{node {op_name}}}}}'.{hint}")
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}] name: {hint}")


def bad_string_attr(op_name: str, attr: str, value: str, allowed: Sequence[str], hint: str = "") -> Exception:
    """A string attr (padding, align, unit) that is none of the op's allowed values: eagerly TensorFlow's
    InvalidArgumentError from the runtime, while tracing the ValueError of the op's definition check."""
    hint = f"\nHint: {hint}" if hint else ""
    listed = ", ".join(f'"{a}"' for a in allowed)
    if state.graph is not None:
        return ValueError(f"Attr '{attr}' of '{op_name}' Op passed string '{value}' not in: {listed}.{hint}")
    return before_kernel(
        InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of \"{value}\" is not in the list of allowed "
            f"values: {listed}\n\t; NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}> "
            f"[Op:{op_name}] name: {hint}",
        )
    )


def tf_type_name(d: dtypes.DType) -> str:
    """TensorFlow's C++ names in messages: float32 is "float", float64 "double", float16 "half"."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(d.name, d.name)


def allowed_dtypes(op_name: str, allowed: frozenset[dtypes.DType], dtype: dtypes.DType) -> None:
    """Raise TensorFlow's "not in the list of allowed values" error when an op has no kernel for `dtype`."""
    if dtype not in allowed:
        names = ", ".join(tf_type_name(d) for d in dtypes.ALL if d in allowed)
        message = (
            f"Value for attr 'T' of {tf_type_name(dtype)} is not in the list of allowed values: {names}\n"
            f"\t; NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}> [Op:{op_name}] name: \n"
            f"Hint: {op_name} does not accept {dtype.name} tensors; tf.cast the input first "
            f"(e.g. tf.cast(x, tf.float32))."
        )
        if state.graph is not None:
            raise TypeError(message)
        raise before_kernel(InvalidArgumentError(None, None, message))


def no_kernel(op_name: str, dtype: Any) -> OpError:
    """TensorFlow's error for an op whose definition accepts `dtype` but that has no CPU kernel for it.

    Eager execution says NotFoundError (no device has the kernel); a running graph says InvalidArgumentError
    (`missing_kernel_in_graph`), so the error remembers which kernel it missed.
    """
    error = op_error(
        NotFoundError,
        op_name,
        f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
        f"[T=DT_{dtype.name.upper()}]\nAll kernels registered for op {op_name}: ...",
        hint=f"{_no_kernel_hint(op_name, dtype)}",
    )
    error.missing_kernel = (op_name, dtype)
    return before_kernel(error)


def _no_kernel_hint(op_name: str, dtype: Any) -> str:
    return f"TensorFlow has no CPU kernel of {op_name} for {dtype.name}; tf.cast the input to another dtype first."


def missing_kernel_in_graph(exc: Exception, node: str, function: str) -> OpError | None:
    """A `no_kernel` error raised by a node of a running graph, as TensorFlow's graph execution reports it."""
    missing = getattr(exc, "missing_kernel", None)
    if missing is None:
        return None
    op_name, dtype = missing
    return InvalidArgumentError(
        None,
        None,
        f"No OpKernel was registered to support Op '{op_name}' used by "
        f"{{{{node {node}}}}} with these attrs: [T=DT_{dtype.name.upper()}]\nRegistered "
        f"devices: [CPU]\nRegistered kernels:\n  ...\n\n\t [[{node}]] "
        f"[Op:__inference_{function}]\nHint: {_no_kernel_hint(op_name, dtype)}",
    )
