"""The jit's optional passes (minitf/function/compiling/jit/optional.py): each acts on a program made for it, and
switched off keeps that program's results equal to float precision; with every one off the code is still right.

Each program is compiled by Numba twice (with and without its pass), 0.1 to 8 s each: the file is `slow`, except
the check of the table itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import minitf as tf
from minitf.function.compiling.jit import optional

rng = np.random.default_rng(5)
ROWS = rng.normal(size=(64, 200)).astype(np.float32)
LONG = np.linspace(-3, 3, 4096, dtype=np.float32)
LARGE = np.linspace(-1, 1, 2**20, dtype=np.float32)


def cross_entropy_like(x: Any) -> Any:
    """`x - max` is read by two regions (duplication); exp along long rows (exp formula, lanes, SLP)."""
    shifted = x - tf.reduce_max(x, axis=1, keepdims=True)
    return tf.reduce_sum(tf.exp(shifted), axis=1), tf.reduce_sum(shifted * shifted * 0.5 + 1.0, axis=1)


def long_body(x: Any) -> Any:
    """Rounds of tanh and exp: a loop body of hundreds of statements (tanh and exp formulas, streams, FMA)."""
    for _ in range(4):
        x = tf.tanh(x) * 0.5 + tf.exp(-(x * x)) * 0.25
    return x


def large_chain(x: Any) -> Any:
    """A multiply/add chain on 2^20 values: work enough for a parallel region."""
    for _ in range(20):
        x = x * 0.999 + 0.001
    return x


PROGRAMS: dict[str, tuple[Callable[..., Any], np.ndarray]] = {
    "duplication": (cross_entropy_like, ROWS),
    "exp_formula": (long_body, LONG),
    "tanh_formula": (long_body, LONG),
    "accumulator_lanes": (cross_entropy_like, ROWS),
    "streams": (long_body, LONG),
    "parallel_regions": (large_chain, LARGE),
    "fma_contraction": (long_body, LONG),
    "slp_vectorize": (cross_entropy_like, ROWS),
    "dispatcher_bypass": (large_chain, LARGE),
}


def run(fn: Callable[..., Any], value: np.ndarray) -> tuple[list[np.ndarray], Any]:
    """A new jit function's results on `value`, and its concrete function (to look at its stages)."""
    function = tf.function(fn, jit_compile=True)
    x = tf.constant(value)
    out = function(x)
    results = [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]
    return results, function.get_concrete_function(x)


def evidence(name: str, concrete: Any) -> str:
    """What the pass changes in the compiled function: its graph, its loops, its machine code or its calls."""
    optimised = concrete.optimized_graph
    if next(p for p in optional.OPTIONAL if p.name == name).stage == "backend":
        if name == "dispatcher_bypass":
            return " ".join(
                type(op.attrs["_kernel"].__globals__[f"{op.attrs['_loop_ir'].name}_loops"]).__name__
                for op in optimised.get_operations()
                if op.type == "XlaFusion"
            )
        return _llvm(concrete)
    return "\n".join(
        [op.type for op in optimised.get_operations()]
        + [str(op.attrs["_source"]) for op in optimised.get_operations() if op.type == "XlaFusion"]
    )


def _llvm(concrete: Any) -> str:
    from minitf.function.compiling.jit import stages  # the jit's stages: imported with the jit, as the test needs

    return str(stages.stage_text(concrete, "llvm"))


def test_every_optional_pass_is_named_once_with_a_stage_and_a_one_line_reason() -> None:
    names = [p.name for p in optional.OPTIONAL]
    assert len(names) == len(set(names)) == len(PROGRAMS)
    assert set(names) == set(PROGRAMS)
    for p in optional.OPTIONAL:
        assert p.stage in ("graph", "lowering", "backend")
        assert p.reason and "\n" not in p.reason and len(p.reason) < 120
    with pytest.raises(KeyError, match="no optional jit pass 'stream'"):
        optional.enabled("stream")
    with optional.switched_off("streams"):
        assert not optional.enabled("streams") and optional.enabled("duplication")
    assert optional.enabled("streams")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_switching_an_optional_pass_off_keeps_the_results(name: str) -> None:
    fn, value = PROGRAMS[name]
    with_pass, concrete_on = run(fn, value)
    with optional.switched_off(name):
        without, concrete_off = run(fn, value)
        changed = evidence(name, concrete_off)
    assert evidence(name, concrete_on) != changed, f"{name} did not change the compiled program"
    plain = tf.function(fn)(tf.constant(value))
    for on, off, reference in zip(with_pass, without, plain if isinstance(plain, tuple) else (plain,)):
        np.testing.assert_allclose(off, on, rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(off, reference.numpy(), rtol=2e-6, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("program", ["cross_entropy_like", "long_body", "large_chain"])
def test_with_every_optional_pass_off_the_jit_still_computes_the_plain_functions_results(program: str) -> None:
    fn, value = next(PROGRAMS[name] for name in PROGRAMS if PROGRAMS[name][0].__name__ == program)
    with optional.switched_off():
        assert not any(optional.enabled(p.name) for p in optional.OPTIONAL)
        results, concrete = run(fn, value)
    assert any(op.type == "XlaFusion" for op in concrete.optimized_graph.get_operations())
    plain = tf.function(fn)(tf.constant(value))
    for mine, reference in zip(results, plain if isinstance(plain, tuple) else (plain,)):
        np.testing.assert_allclose(mine, reference.numpy(), rtol=2e-6, atol=1e-6)
