"""Run code written once against TensorFlow's API on minitf and on TensorFlow, and compare what came out.

This is the suite's one comparison harness: the differential tests here and every other test that checks
minitf against TensorFlow (tapes, tf.function, devices, errors) use it, so "equal" means the same thing
everywhere (`assert_equal`: same nesting, class, dtype, shape, values, printed text; `assert_same_error`: same
error class and builtin bases). Three entry points, from the broadest to the most specific:

* `same(case, *args)`: one call, compared eagerly, traced and under a tape (below);
* `alike(case, *args)` and `same_error(case, *args)`: one call, eagerly only, for checks that build their own
  tapes or functions; `alike` wants a result from both engines (tight tolerance by default), `same_error` the
  same error on both, with TensorFlow's message inside minitf's and a hint how to fix it;
* `same_program(case)`: a `case(tf, seen)` that appends what it observes to `seen`; the recorded values, the
  printed text (Python `print` and `tf.print` to sys.stdout) and the error it ends with are compared.

A check is a function `case(tf, *args)` written once against TensorFlow's API; `same(case, *args)` runs it
with `tf=minitf` and `tf=tensorflow` and asserts that both returned equal things (dtype, shape, values,
printed text) or both raised the same class of error.

Each check runs three ways on both engines, and each way is compared with TensorFlow's:

* eagerly, as written;
* traced: inside `tf.function` (without AutoGraph), the NumPy arrays the case turns into tensors with
  `tf.constant(array)` passed in as the function's tensor arguments, so the traced path builds its graph
  from argument placeholders (shape and dtype rules, graph-time errors) and runs it;
* under a tape: the case runs under a `GradientTape` that watches its floating-point input tensors, and
  the gradients of its floating-point outputs with respect to them are compared (the forward values were
  compared eagerly already).

The traced way's outputs are compared with TensorFlow's traced outputs, not with the eager ones: where
TensorFlow itself behaves differently inside a function (`.numpy()` and `bool()` of a symbolic tensor
raise, `str()` shows a graph tensor, a Python side effect happens once per trace), minitf must do what
TensorFlow does there. A check that cannot run inside a function at all (it writes to a stream that
pytest captures, it depends on the eager random sequence) passes `modes=EAGER_ONLY` with the reason next
to it; those are the documented exclusions.

Tracing costs TensorFlow tens of milliseconds, so inside hypothesis tests the traced and tape ways run on
one example in `DIFFERENTIAL_MODES_EVERY` (10 by default, chosen by the example's content, so a failure
replays); checks outside hypothesis always run all three ways.

CI runs a fixed set of examples (derandomized). To hunt for new differences locally, run more and fresh ones:
`DIFFERENTIAL_EXAMPLES=300 DIFFERENTIAL_RANDOM=1 DIFFERENTIAL_MODES_EVERY=1 .venv/bin/python -m pytest
tests/engine/differential`.
"""

from __future__ import annotations

import io
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.control import currently_in_test_context

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as real_tf

import minitf

ENGINES = {"minitf": minitf, "tensorflow": real_tf}

# Deterministic and bounded by default: the same examples on every run, no example database, no per-example
# deadline (TensorFlow's first call of an op can take a while).
examples = settings(
    max_examples=int(os.environ.get("DIFFERENTIAL_EXAMPLES", "50")),
    deadline=None,
    derandomize=os.environ.get("DIFFERENTIAL_RANDOM") != "1",
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# Relative and absolute tolerance per floating kind: float16 has ~3 decimal digits, float32 ~7.
TOLERANCE = {2: (2e-3, 2e-3), 4: (2e-5, 1e-6), 8: (1e-10, 1e-12)}


def resolve(lib: Any, path: str) -> Any:
    """`resolve(tf, "math.sqrt")` is `tf.math.sqrt`."""
    return reduce(getattr, path.split("."), lib)


def named_examples(*pairs: tuple[Any, ...]) -> Any:
    """Parametrize a test with `(name, case)` pairs, each case a `lambda tf: ...` run on both engines; a third
    element adds pytest marks (an xfail for a known difference)."""
    return pytest.mark.parametrize("case", [pytest.param(p[1], marks=p[2:], id=p[0]) for p in pairs])


def only(modes: tuple[str, ...], reason: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run a case in `modes` only: for checks that TensorFlow itself treats differently inside a function, for
    the `reason` given (the documented exclusions)."""

    def mark(case: Callable[..., Any]) -> Callable[..., Any]:
        case.modes = modes  # type: ignore[attr-defined]
        case.reason = reason  # type: ignore[attr-defined]
        return case

    return mark


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None


def run(engine: Any, case: Callable[..., Any], *args: Any) -> Outcome:
    """Run `case` eagerly with `engine` (a `tf` module, or a stand-in for one) as its `tf`."""
    try:
        return Outcome(value=case(engine, *args))
    except Exception as exc:  # the error is the outcome being compared
        return Outcome(error=exc)


def error_kind(exc: BaseException) -> tuple[str, tuple[str, ...]]:
    """An error's class name plus the builtin classes it derives from (TensorFlow's and minitf's OpErrors
    are different classes with the same names and the same builtin bases)."""
    builtin_bases = tuple(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")
    return type(exc).__name__, builtin_bases


EAGER, TRACED, TAPE = "eager", "traced", "tape"
ALL_MODES = (EAGER, TRACED, TAPE)
EAGER_ONLY = (EAGER,)
MODES_EVERY = int(os.environ.get("DIFFERENTIAL_MODES_EVERY", "10"))


def with_shapes(fn: Callable[..., Any], *values: np.ndarray, shape: list[int | None] | None = None) -> Any:
    """A case: `fn(tf, *xs)` inside a tf.function whose `input_signature` declares every argument with `shape`
    (None: an unknown rank; None entries: unknown sizes), called on `values`. It returns the result and its
    static shape as the trace saw it, so `same` compares the shape rules with TensorFlow's as well.

    `same` runs it eagerly and under a tape, not inside a second tf.function: called from a traced function,
    TensorFlow infers the inner function's shapes again from the caller's known shapes, which would undo the
    unknown ones declared here."""

    @only((EAGER, TAPE), "the case traces its own tf.function with unknown shapes")
    def case(tf: Any) -> Any:
        specs = [tf.TensorSpec(shape, tf.string if v.dtype.kind in "SUO" else tf.as_dtype(v.dtype)) for v in values]

        @tf.function(input_signature=specs)
        def f(*xs: Any) -> Any:
            out = fn(tf, *xs)
            return out, tf.constant(str(out.shape))

        return f(*[tf.constant(v) for v in values])

    return case


def same(
    case: Callable[..., Any],
    *args: Any,
    rtol: float | None = None,
    atol: float | None = None,
    text: bool = True,
    modes: tuple[str, ...] = ALL_MODES,
) -> Any:
    """Assert that `case` behaves alike on both engines, eagerly, traced and under a tape (see the module's
    docstring); return TensorFlow's eager result (or error)."""
    where = f"{getattr(case, '__name__', case)}{_short(args)}"
    modes = getattr(case, "modes", modes)
    inputs = Inputs()
    expected = run(inputs.recording(real_tf), case, *args)
    actual = run(minitf, case, *args)
    compare(actual, expected, where, rtol=rtol, atol=atol, text=text)
    if not _other_modes_wanted(case, args):
        return expected.error if expected.error is not None else expected.value
    if TRACED in modes:
        compare(
            run_traced(minitf, inputs, case, *args),
            run_traced(real_tf, inputs, case, *args),
            f"{where} inside tf.function",
            rtol=rtol,
            atol=atol,
            text=text,
        )
    if TAPE in modes and expected.error is None and actual.error is None and inputs.floats():
        compare(
            run_tape(minitf, inputs, case, *args),
            run_tape(real_tf, inputs, case, *args),
            f"{where} gradients",
            rtol=rtol,
            atol=atol,
            text=False,
        )
    return expected.error if expected.error is not None else expected.value


def compare(
    actual: Outcome,
    expected: Outcome,
    where: str,
    rtol: float | None = None,
    atol: float | None = None,
    text: bool = True,
) -> None:
    """minitf's outcome equals TensorFlow's: equal values, or errors of the same class."""
    if expected.error is not None or actual.error is not None:
        assert expected.error is not None, (
            f"{where}: minitf raised {actual.error!r}, TensorFlow returned {expected.value!r}"
        )
        assert actual.error is not None, (
            f"{where}: TensorFlow raised {expected.error!r}, minitf returned {actual.value!r}"
        )
        assert_same_error(actual.error, expected.error, where)
        return
    assert_equal(actual.value, expected.value, where, rtol=rtol, atol=atol, text=text)


def _other_modes_wanted(case: Callable[..., Any], args: tuple) -> bool:
    """Outside hypothesis always; inside, for one example in MODES_EVERY, picked by the example's content."""
    if not currently_in_test_context() or MODES_EVERY <= 1:
        return True
    return zlib.crc32(_fingerprint(case, args).encode()) % MODES_EVERY == 0


def _fingerprint(case: Callable[..., Any], args: tuple) -> str:
    closure = [cell.cell_contents for cell in getattr(case, "__closure__", None) or ()]
    parts = []
    for value in [*args, *closure]:
        if isinstance(value, np.ndarray):
            parts.append(f"{value.dtype}{value.shape}{value.tobytes()!r}")
        elif not callable(value):
            parts.append(repr(value))
    return "|".join(parts)


# ---------------------------------------------------------------------------------------------------
# The traced and the tape ways
# ---------------------------------------------------------------------------------------------------


class Inputs:
    """The NumPy arrays a case turns into tensors with `tf.constant(array)`, recorded on its eager run."""

    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []

    def recording(self, lib: Any) -> Any:
        inputs = self

        def constant(value: Any, dtype: Any = None, *rest: Any, **options: Any) -> Any:
            if isinstance(value, np.ndarray) and not any(value is a for a in inputs.arrays):
                inputs.arrays.append(value)
            return lib.constant(value, dtype, *rest, **options)

        return Engine(lib, constant)

    def floats(self) -> list[np.ndarray]:
        return [a for a in self.arrays if a.dtype.kind == "f"]


class Engine:
    """A stand-in for a `tf` module: everything is the module's, except `constant`."""

    def __init__(self, lib: Any, constant: Callable[..., Any]) -> None:
        self._lib = lib
        self.constant = constant

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lib, name)


def substituting(lib: Any, arrays: list[np.ndarray], tensors: list[Any]) -> Engine:
    """An engine whose `tf.constant(array)` gives the tensor standing for that array (an argument of the
    traced function, or a watched tensor), and a real constant for anything else."""

    def constant(value: Any, dtype: Any = None, *rest: Any, **options: Any) -> Any:
        for array, tensor in zip(arrays, tensors):
            if (
                value is array
                and (dtype is None or lib.as_dtype(dtype) == tensor.dtype)
                and not rest
                and not options.get("shape")
            ):
                return tensor
        return lib.constant(value, dtype, *rest, **options)

    return Engine(lib, constant)


def run_traced(lib: Any, inputs: Inputs, case: Callable[..., Any], *args: Any) -> Outcome:
    """`case` inside `lib.function`, its recorded input arrays passed in as tensor arguments."""
    try:
        tensors = [lib.constant(a) for a in inputs.arrays]
    except Exception as exc:  # an input the engine refuses is compared eagerly already
        return Outcome(error=exc)

    def traced(*placeholders: Any) -> Any:
        return case(substituting(lib, inputs.arrays, list(placeholders)), *args)

    try:
        return Outcome(value=lib.function(traced, autograph=False)(*tensors))
    except Exception as exc:  # the error is the outcome being compared
        return Outcome(error=exc)


def run_tape(lib: Any, inputs: Inputs, case: Callable[..., Any], *args: Any) -> Outcome:
    """The gradients of the case's floating-point outputs with respect to its floating-point input tensors
    (None where an output does not depend on an input); TensorFlow's IndexedSlices are compared densely."""
    floats = inputs.floats()
    try:
        sources = [lib.constant(a) for a in floats]
        with lib.GradientTape() as tape:
            for t in sources:
                tape.watch(t)
            out = case(substituting(lib, floats, sources), *args)
        targets = [t for t in flatten(out) if isinstance(t, lib.Tensor) and t.dtype.is_floating]
        if not targets:
            return Outcome(value=None)
        grads = tape.gradient(targets, sources)
    except Exception as exc:  # the error is the outcome being compared
        return Outcome(error=exc)
    return Outcome(value=[g if g is None or isinstance(g, lib.Tensor) else lib.convert_to_tensor(g) for g in grads])


def flatten(value: Any) -> Iterator[Any]:
    """The leaves of nested lists, tuples and dicts."""
    if isinstance(value, list | tuple):
        for v in value:
            yield from flatten(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from flatten(v)
    else:
        yield value


def _short(args: tuple) -> str:
    text = repr(args)
    return text if len(text) < 600 else text[:600] + "..."


def is_tensor_like(value: Any) -> bool:
    return isinstance(value, minitf.Tensor | minitf.Variable | real_tf.Tensor | real_tf.Variable)


def assert_equal(
    actual: Any,
    expected: Any,
    where: str,
    rtol: float | None = None,
    atol: float | None = None,
    text: bool = True,
    text_when: str = "identical",
) -> None:
    """minitf's `actual` equals TensorFlow's `expected`, recursively through lists, tuples and dicts (in the same
    key order). Tensors agree in kind (tensor or Variable), dtype, shape and values, and with `text` also in `str`
    and `repr` where the values are identical (`text_when="identical"`: the same bits, so nearly equal floats and
    zeros of another sign may print differently) or merely equal (`text_when="equal"`: -0.0 == 0.0, so the sign
    of a zero must print the same). IndexedSlices must be IndexedSlices on both and are compared densely."""
    if isinstance(expected, list | tuple):
        assert isinstance(actual, list | tuple), f"{where}: expected a sequence, got {actual!r}"
        assert type(actual).__name__ == type(expected).__name__, f"{where}: {type(actual)} vs {type(expected)}"
        assert len(actual) == len(expected), f"{where}: length {len(actual)} vs {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_equal(a, e, f"{where}[{i}]", rtol, atol, text, text_when)
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), f"{where}: {actual!r} vs {expected!r}"
        for k in expected:
            assert_equal(actual[k], expected[k], f"{where}[{k!r}]", rtol, atol, text, text_when)
        return
    if isinstance(expected, real_tf.IndexedSlices):  # a gather's gradient on both engines
        assert isinstance(actual, minitf.IndexedSlices), f"{where}: TensorFlow gives IndexedSlices, minitf {actual!r}"
        assert_equal(
            minitf.convert_to_tensor(actual), real_tf.convert_to_tensor(expected), where, rtol, atol, text, text_when
        )
        return
    if is_tensor_like(expected):
        assert is_tensor_like(actual), f"{where}: expected a tensor, got {actual!r}"
        kind = "variable" if isinstance(expected, real_tf.Variable) else "tensor"
        actual_kind = "variable" if isinstance(actual, minitf.Variable) else "tensor"
        assert actual_kind == kind, f"{where}: expected a {kind}, got a {actual_kind}: {actual!r}"
        assert actual.dtype.name == expected.dtype.name, f"{where}: dtype {actual.dtype.name} vs {expected.dtype.name}"
        assert list(actual.shape) == list(expected.shape), f"{where}: shape {actual.shape} vs {expected.shape}"
        identical = assert_values(actual.numpy(), expected.numpy(), where, rtol, atol)
        if text and (
            identical or text_when == "equal" and np.array_equal(actual.numpy(), expected.numpy(), equal_nan=True)
        ):
            assert str(actual) == str(expected), f"{where}: str\n{actual}\nvs TensorFlow\n{expected}"
            assert repr(actual) == repr(expected), f"{where}: repr\n{actual!r}\nvs TensorFlow\n{expected!r}"
        return
    if isinstance(expected, np.ndarray | np.generic):
        assert isinstance(actual, np.ndarray | np.generic), f"{where}: expected NumPy, got {actual!r}"
        assert type(actual) is type(expected), f"{where}: {type(actual)} vs {type(expected)}"
        assert_values(actual, expected, where, rtol, atol)
        return
    if isinstance(expected, real_tf.TensorShape):
        assert isinstance(actual, minitf.TensorShape), f"{where}: expected a TensorShape, got {actual!r}"
        assert (actual.as_list() if actual.rank is not None else None) == (
            expected.as_list() if expected.rank is not None else None
        ), f"{where}: {actual} vs {expected}"
        assert str(actual) == str(expected) and repr(actual) == repr(expected), f"{where}: {actual!r} vs {expected!r}"
        return
    if isinstance(expected, real_tf.DType):
        assert isinstance(actual, minitf.DType) and actual.name == expected.name, f"{where}: {actual!r} vs {expected!r}"
        return
    assert type(actual) is type(expected), (
        f"{where}: {type(actual).__name__} {actual!r} vs {type(expected).__name__} {expected!r}"
    )
    if isinstance(expected, float) and np.isnan(expected):
        assert np.isnan(actual), f"{where}: {actual!r} vs {expected!r}"
        return
    assert actual == expected, f"{where}: {actual!r} vs {expected!r}"


def assert_values(actual: Any, expected: Any, where: str, rtol: float | None = None, atol: float | None = None) -> bool:
    """Values equal (floats within the dtype's tolerance, or within `rtol` and `atol`; nan where nan); returns
    whether they are identical (the same bits, signs of zeros included)."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"{where}: NumPy dtype {a.dtype} vs {e.dtype}"
    assert a.shape == e.shape, f"{where}: NumPy shape {a.shape} vs {e.shape}"
    if e.dtype.kind in "fc":
        default_rtol, default_atol = TOLERANCE[np.finfo(e.dtype).bits // 8]
        ok = np.allclose(a, e, rtol=rtol or default_rtol, atol=atol or default_atol, equal_nan=True)
        assert ok, f"{where}: values differ\nminitf:     {a!r}\nTensorFlow: {e!r}"
        same_bits = (
            np.array_equal(a, e, equal_nan=True)
            and np.array_equal(np.signbit(a.real), np.signbit(e.real))
            and np.array_equal(np.signbit(a.imag), np.signbit(e.imag))
        )
        return bool(same_bits)
    assert np.array_equal(a, e), f"{where}: values differ\nminitf:     {a!r}\nTensorFlow: {e!r}"
    return True


# ---------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------


def assert_same_error(
    actual: BaseException,
    expected: BaseException,
    where: str = "error",
    *,
    fragment: str | None = None,
    message: str = "any",
    hint: bool = False,
) -> None:
    """minitf's error `actual` is TensorFlow's `expected`: the same class name and builtin bases; `fragment` (a
    stable part of TensorFlow's message) in both messages; with `message="within"` TensorFlow's whole message
    inside minitf's, with `message="equal"` the same message; with `hint`, minitf's message says how to fix it."""
    assert error_kind(actual) == error_kind(expected), (
        f"{where}: TensorFlow raised {type(expected).__name__}: {expected}\n"
        f"minitf raised {type(actual).__name__}: {actual}"
    )
    mine, theirs = str(actual), str(expected)
    if fragment is not None:
        assert fragment in theirs, f"{where}: {fragment!r} is not in TensorFlow's message {theirs!r}"
        assert fragment in mine, f"{where}: {fragment!r} is not in minitf's message {mine!r}"
    assert message in ("any", "within", "equal"), message
    if message == "within":
        assert theirs.strip() in mine, f"{where}: TensorFlow says {theirs!r}; minitf says {mine!r}"
    if message == "equal":
        assert mine == theirs, f"{where}:\nminitf:     {mine}\nTensorFlow: {theirs}"
    if hint:
        assert "Hint:" in mine, f"{where}: minitf's message does not explain how to fix it: {mine!r}"


# ---------------------------------------------------------------------------------------------------
# One call, eagerly only
# ---------------------------------------------------------------------------------------------------

# Results compared by `alike` and `same_program` agree this closely, whatever their dtype.
CLOSE = 1e-6


def alike(case: Callable[..., Any], *args: Any, rtol: float = CLOSE, atol: float = CLOSE, text: bool = True) -> Any:
    """Run `case(tf, *args)` eagerly on both engines and assert equal results; return TensorFlow's. An error on
    either engine fails the test (use `same_error` for a case that must raise)."""
    expected = case(real_tf, *args)
    actual = case(minitf, *args)
    assert_equal(actual, expected, getattr(case, "__name__", "case"), rtol, atol, text, text_when="equal")
    return expected


def same_error(case: Callable[..., Any], *args: Any, hint: bool = True) -> tuple[BaseException, BaseException]:
    """Both engines raise the same class; minitf's message contains TensorFlow's (and, with `hint`, a Hint).
    Returns (minitf's error, TensorFlow's error)."""
    mine, theirs = run(minitf, case, *args), run(real_tf, case, *args)
    assert theirs.error is not None, f"TensorFlow returned {theirs.value!r} instead of raising"
    assert mine.error is not None, f"minitf returned {mine.value!r} instead of raising"
    assert_same_error(mine.error, theirs.error, getattr(case, "__name__", "case"), message="within", hint=hint)
    return mine.error, theirs.error


# ---------------------------------------------------------------------------------------------------
# Programs: what a student would see
# ---------------------------------------------------------------------------------------------------


@dataclass
class Observed:
    """What a program did on one engine: the values it recorded, what it printed, the error it ended with."""

    seen: list[Any]
    printed: str
    error: BaseException | None


def run_program(case: Callable[[Any, list], None], engine: Any) -> Observed:
    """Run `case(tf, seen)` on `engine` (a `tf` module), capturing sys.stdout."""
    seen: list[Any] = []
    printed = io.StringIO()
    error = None
    with redirect_stdout(printed):
        try:
            case(engine, seen)
        except Exception as exc:  # the error itself is what is compared
            error = exc
        sys.stdout.flush()
    return Observed(seen, printed.getvalue(), error)


def same_program(
    case: Callable[[Any, list], None], error_fragment: str | None = None, *, message: str = "any", hint: bool = False
) -> Observed:
    """Both engines record equal values (`assert_equal`, within `CLOSE`), print the same text and end with the
    same error or none; returns minitf's observations.

    Error messages differ in their decoration (TensorFlow adds "in user code" and a traceback excerpt), so by
    default only the class is compared, plus `error_fragment` (a stable part of TensorFlow's message) in both.
    Asking for a fragment, a `message` rule or a `hint` (see `assert_same_error`) means TensorFlow must raise.
    """
    mine, theirs = run_program(case, minitf), run_program(case, real_tf)
    assert_equal(mine.seen, theirs.seen, "recorded", rtol=CLOSE, atol=CLOSE, text_when="equal")
    assert mine.printed == theirs.printed, f"printed:\nminitf:\n{mine.printed}\ntensorflow:\n{theirs.printed}"
    if theirs.error is None:
        assert error_fragment is None and message == "any" and not hint, "TensorFlow raised nothing"
        assert mine.error is None, f"minitf raised {mine.error!r}"
        return mine
    assert mine.error is not None, f"TensorFlow raised {theirs.error!r}, minitf did not"
    assert_same_error(
        mine.error, theirs.error, getattr(case, "__name__", "case"), fragment=error_fragment, message=message, hint=hint
    )
    return mine
