"""TensorFlow's "in user code:" errors: an exception raised while a function is traced names the lines of the
student's code that led to it, not the engine's internals.

    ValueError: in user code:

        File "lesson.py", line 7, in f  *
            y = helper(x)
        File "lesson.py", line 3, in helper  *
            return tf.reshape(x, [5])

        ValueError: Cannot reshape a tensor with 2 elements to shape [5] ...

The exception keeps its class (TensorFlow re-creates it with the new message); frames of functions
AutoGraph converted are marked with `*`; a frame inside a converted `if`/loop body is shown as the line of
the function it was written in. Classes TensorFlow cannot re-create become `StagingError`. A function
traced inside another one adds its frames to the outer function's first frame.
"""

from __future__ import annotations

import linecache
import os
import types
from typing import Any, NamedTuple

from minitf.core import errors

# Code objects AutoGraph made (converted functions and the branch/loop bodies inside them).
CONVERTED_CODE: set[types.CodeType] = set()

_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # minitf/


class AutoGraphError(Exception):
    """Base class of the errors AutoGraph raises."""


class StagingError(AutoGraphError):
    """An error raised while tracing whose class cannot carry TensorFlow's "in user code" message."""


class _KeyError(KeyError):
    """KeyError quotes its message; this one prints it as it is (and is still a KeyError)."""

    def __init__(self, message: str, key: Any) -> None:
        super().__init__(key)
        self._message = message

    def __str__(self) -> str:
        return self._message


_KeyError.__name__ = "KeyError"
_KeyError.__qualname__ = "KeyError"

_STRING_CONSTRUCTED = (
    AssertionError,
    AttributeError,
    NameError,
    NotImplementedError,
    RuntimeError,
    StopIteration,
    TypeError,
    UnboundLocalError,
    ValueError,
    errors.OperatorNotAllowedInGraphError,
    errors.InaccessibleTensorError,
    StagingError,
    AutoGraphError,
)


class Frame(NamedTuple):
    filename: str
    lineno: int
    name: str
    converted: bool


def register_converted(code: types.CodeType) -> None:
    """Remember `code` and the code of every function defined inside it as AutoGraph's output."""
    CONVERTED_CODE.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            register_converted(const)


def _user_frames(tb: Any) -> list[Frame]:
    """The frames of a traceback that belong to user code, outermost first."""
    frames: list[Frame] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        filename = os.path.abspath(code.co_filename)
        if not filename.startswith(_ENGINE_DIR + os.sep):
            converted = code in CONVERTED_CODE
            if converted and code.co_name.startswith("ag__") and frames and frames[-1].converted:
                # A branch or loop body AutoGraph split out: it is a line of the enclosing function.
                frames[-1] = frames[-1]._replace(lineno=tb.tb_lineno)
            else:
                frames.append(Frame(code.co_filename, tb.tb_lineno, code.co_name, converted))
        tb = tb.tb_next
    return frames


def _message(frames: list[Frame], cause: str) -> str:
    lines = ["in user code:", ""]
    for frame in frames:
        lines.append(
            f'    File "{frame.filename}", line {frame.lineno}, in {frame.name}' + ("  *" if frame.converted else "")
        )
        source = linecache.getline(frame.filename, frame.lineno).strip()
        lines.append(f"        {source or '<source unavailable>'}")
    lines.append("")
    lines.extend("    " + line for line in cause.split("\n"))
    lines.append("")
    return "\n".join(lines)


def in_user_code(exc: BaseException, tb: Any) -> BaseException:
    """`exc`, raised while tracing, as TensorFlow raises it: its message starts with the user frames in `tb`.

    `tb` starts at the call of the traced Python function. An exception already rewritten by a function
    traced inside this one keeps its frames, after this function's first frame.
    """
    if getattr(exc, "_minitf_not_in_user_code", False):
        return exc
    frames = _user_frames(tb)
    previous = getattr(exc, "_minitf_user_code", None)
    if previous is not None:
        inner_frames, cause, original = previous
        frames = frames[:1] + inner_frames
    else:
        cause, original = f"{type(exc).__name__}: {exc}", exc
    if not frames:
        return exc
    message = _message(frames, cause)
    kind = type(original)
    new: BaseException
    if issubclass(kind, errors.OpError):
        new = kind(original.node_def, original.op, message)
    elif kind in _STRING_CONSTRUCTED or kind.__init__ is Exception.__init__:
        new = kind(message)
    elif issubclass(kind, KeyError):
        new = _KeyError(message, original.args[0] if original.args else None)
    else:
        new = StagingError(message)
    new._minitf_user_code = (frames, cause, original)  # type: ignore[attr-defined]
    new.__suppress_context__ = True
    return new.with_traceback(exc.__traceback__)
