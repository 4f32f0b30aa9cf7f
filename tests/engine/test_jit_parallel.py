"""Large compiled regions split their outer loop over the intra-op threads (minitf/function/compiling/jit/
parallel.py): which regions do, what the stages show, that every split gives the one-thread result bit for bit,
and that a worker's failure, a process without threads and a forked child are handled."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from typing import Any

import numpy as np
import pytest

import minitf as tf
from minitf.function.compiling.jit import parallel

N = 10**6


def chain(x: Any) -> Any:
    for _ in range(10):
        x = x * 0.999 + 0.001
    return x


def numpy_chain(x: np.ndarray) -> np.ndarray:
    for _ in range(10):
        x = x * np.float32(0.999) + np.float32(0.001)
    return x


def loop_ir_and_python(fn: Any, *args: Any) -> tuple[str, str]:
    ir = tf.function(fn, jit_compile=True).experimental_get_compiler_ir(*args)
    return ir(stage="loop_ir"), ir(stage="python")


def test_a_large_elementwise_region_is_a_parallel_loop_over_parts() -> None:
    loop_ir, python = loop_ir_and_python(chain, tf.constant(np.zeros(N, np.float32)))
    assert f"  parallel for i0 in 0..{N}:" in loop_ir.splitlines()
    assert "def fusion_0_loops(in0, out0, lo, hi):" in python and "    for i0 in range(lo, hi):" in python
    assert f"    parallel_for(fusion_0_loops, (np.ascontiguousarray(x0).reshape(({N},)), out0,), {N}, 1)" in python


def test_small_regions_and_whole_array_sums_stay_on_one_thread_and_rows_are_shared_out() -> None:
    small, _ = loop_ir_and_python(chain, tf.constant(np.zeros(1000, np.float32)))
    assert "parallel" not in small and "  for i0 in 0..1000:" in small.splitlines()
    total, _ = loop_ir_and_python(lambda x: tf.reduce_sum(x * x + 1.0), tf.constant(np.zeros(N, np.float32)))
    assert "parallel" not in total  # the outer loop is the reduced one: parts would race on one accumulator
    rows, _ = loop_ir_and_python(lambda x: tf.nn.softmax(x * 2.0), tf.constant(np.zeros((4096, 1000), np.float32)))
    assert "  parallel for i0 in 0..4096:" in rows.splitlines()  # each part computes whole rows


def test_every_split_gives_the_one_thread_result_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    values = tf.constant(np.random.default_rng(0).normal(size=N).astype(np.float32))
    logits = tf.constant(np.random.default_rng(1).normal(size=(4096, 1000)).astype(np.float32))
    f = tf.function(chain, jit_compile=True)
    softmax = tf.function(lambda x: tf.nn.softmax(x * 2.0), jit_compile=True)
    results = {}
    for helpers in (0, 1, 3):  # one, two and four threads, whatever the machine's cores
        monkeypatch.setattr(parallel, "_workers", [parallel.Workers(helpers)])
        results[helpers] = (f(values).numpy(), softmax(logits).numpy())
    for helpers in (1, 3):
        assert all(a.tobytes() == b.tobytes() for a, b in zip(results[helpers], results[0]))
    np.testing.assert_allclose(results[3][0], numpy_chain(values.numpy()), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(results[3][1], tf.nn.softmax(logits * 2.0).numpy(), rtol=1e-5, atol=1e-7)


def test_parts_cover_the_loop_each_starting_at_a_multiple_of_the_streams() -> None:
    for extent, parts, multiple in ((10**6, 2, 1), (1000, 3, 4), (1000, 4, 4), (17, 2, 1), (8, 4, 2)):
        found = parallel.bounds(extent, parts, multiple)
        assert found[0][0] == 0 and found[-1][1] == extent and len(found) == parts
        assert all(hi == lo for (_, hi), (lo, _) in zip(found, found[1:]))
        assert all(lo % multiple == 0 for lo, _ in found)
    assert parallel.bounds(1000, 4, 4) == [(0, 248), (248, 500), (500, 752), (752, 1000)]


def test_the_caller_takes_more_iterations_by_what_it_does_while_a_worker_wakes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "_wake", [30e-6])
    assert parallel.callers_share(10**6, 2, 1, rate=None) == 500_000  # nothing learnt yet: equal parts
    # 170 ns per iteration: the caller does 176 iterations while a worker wakes, half of that more than its half
    assert parallel.callers_share(10**6, 2, 1, rate=170e-9) == 500_088
    assert parallel.callers_share(1000, 2, 4, rate=1e-6) == 516  # a multiple of the streams
    assert parallel.callers_share(1000, 2, 1, rate=1e-9) == 750  # never more than three quarters


def test_a_failure_in_a_worker_is_raised_in_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "_workers", [parallel.Workers(1)])
    seen: list[tuple[int, int]] = []

    def part(lo: int, hi: int) -> None:
        seen.append((lo, hi))
        if lo > 0:
            raise FloatingPointError(f"part {lo}..{hi} failed")

    with pytest.raises(FloatingPointError, match="part 50..100 failed"):
        parallel.parallel_for(part, (), 100, 1)
    assert sorted(seen) == [(0, 50), (50, 100)]


def test_a_process_that_cannot_start_threads_runs_every_part_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    pool = parallel.Workers(3)
    assert pool.threads == []
    monkeypatch.setattr(parallel, "_workers", [pool])
    seen: list[tuple[int, int]] = []
    parallel.parallel_for(lambda lo, hi: seen.append((lo, hi)), (), 1000, 4)
    assert seen == [(0, 1000)]


FORKED = textwrap.dedent("""
    import os, numpy as np, minitf as tf
    def chain(x):
        for _ in range(10):
            x = x * 0.999 + 0.001
        return x
    f = tf.function(chain, jit_compile=True)
    x = tf.constant(np.linspace(-1, 1, 10**6, dtype=np.float32))
    first = f(x).numpy()
    from minitf.function.compiling.jit import parallel
    parents = parallel._workers[0]
    pid = os.fork()
    if pid == 0:
        same = f(x).numpy().tobytes() == first.tobytes()
        own = parallel._workers[0] is not parents and len(parallel._workers[0].threads) == len(parents.threads)
        os._exit(0 if same and own else 1)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status))
""")


def test_a_child_forked_after_parallel_regions_ran_starts_its_own_workers() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FORKED],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "child 0"  # it finished (the parent's threads are not there to wait for)


THREADS = textwrap.dedent("""
    import sys
    import {module} as tf
    t = tf.config.threading
    print(t.get_intra_op_parallelism_threads(), t.get_inter_op_parallelism_threads())
    t.set_intra_op_parallelism_threads(2)
    t.set_inter_op_parallelism_threads(1)
    print(t.get_intra_op_parallelism_threads(), t.get_inter_op_parallelism_threads())
    tf.config.list_logical_devices()  # the runtime starts: the counts are fixed
    t.set_intra_op_parallelism_threads(2)  # the same value is accepted
    for setter in (t.set_intra_op_parallelism_threads, t.set_inter_op_parallelism_threads):
        try:
            setter(3)
        except RuntimeError as exc:
            print(type(exc).__name__, str(exc).splitlines()[0])
    print(t.get_intra_op_parallelism_threads())
""")


@pytest.mark.tf
def test_thread_counts_are_set_before_the_runtime_starts_and_fixed_after_as_in_tensorflow() -> None:
    printed = {}
    for module in ("tensorflow", "minitf"):
        done = subprocess.run(
            [sys.executable, "-c", THREADS.format(module=module)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        printed[module] = done.stdout
    assert printed["minitf"] == printed["tensorflow"]
    assert "Intra op parallelism cannot be modified after initialization." in printed["minitf"]


def test_a_thread_count_that_is_not_an_integer_is_refused_when_set() -> None:
    """TensorFlow keeps "two" and fails with the same TypeError at its next read; minitf says so at once."""
    with pytest.raises(TypeError, match="'str' object cannot be interpreted as an integer"):
        tf.config.threading.set_intra_op_parallelism_threads("two")
