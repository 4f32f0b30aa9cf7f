"""Settings every test process needs before anything starts TensorFlow, and the rules that split the suite into
its two tiers.

oneDNN: TensorFlow switches its oneDNN CPU kernels on by itself on processors with AVX-512 (not on every
machine, so a run can pass on one machine and die on another). With them on, `tf.nn.conv2d` of a rank-3
input (tests/engine/differential/test_conv.py, "conv2d rank 3") does not raise TensorFlow's InvalidArgumentError
("convolution input must be 4-dimensional") but aborts the whole process (a failed check in
tensor_format.h, exit code 134), ending the test run. With `TF_ENABLE_ONEDNN_OPTS=0` TensorFlow uses its
Eigen kernels, the ones it uses on machines without AVX-512, and raises the error. Set here, at the top of
the test tree, so it holds for every test file and for the notebook kernels they start (which inherit the
environment).

BLAS threads: each test process (`./run test` starts one per core) runs one test at a time, and so do the
notebook kernels it starts. NumPy's OpenBLAS starts a thread per core for every matrix product; on two busy
cores the digits chapter's 1437x64 @ 64x32 products then took about 8 ms of CPU each instead of 1.7 ms with one
thread (its training cell: 20 s instead of 5 s). One thread per process gives the same numbers (OpenBLAS
splits the output, not the sums) in less time.

Tiers (docs/testing.md): the fast tier is `-m "not slow"`. Two rules here add `slow` where a test does not say it
itself:

* every property test (hypothesis, tens of generated examples, each compared with TensorFlow eagerly, traced
  and under a tape) is `slow`, so the fast tier runs the named examples and unit tests;
* a family of parametrised cases marked `sample` keeps only a sample in the fast tier: `sample(n)` keeps `n`
  cases spread evenly over the family (the first among them), `sample("id", ...)` keeps the cases with those
  ids; the others are `slow`. Families that repeat one expensive check (tracing in both engines) on many
  inputs use it, so the fast tier still runs each check at least once and the full run runs every case.

Garbage collector: after collection the process holds TensorFlow, minitf and every test module, millions of
objects that live until the end. `gc.freeze()` moves them out of the collector's sight, so its full collections
during the run stop walking them again and again (about 5% of the fast tier's CPU time); objects the tests make
are collected as before.

What the tiers hold is recorded (`TIERS`) for tests/test_tiers.py, which checks that every test file keeps a
test in the fast tier unless it says at the top that it is slow as a whole.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import is_hypothesis_test

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@dataclass
class Tiers:
    """What the collected tests hold, before `-m`/`-k` deselect any: per test file the number of tests and how
    many of them are fast, and which files are slow as a whole; the sample ids that name no case."""

    tests: dict[str, int] = field(default_factory=dict)
    fast: dict[str, int] = field(default_factory=dict)
    slow_files: set[str] = field(default_factory=set)
    unknown_sample_ids: list[str] = field(default_factory=list)


TIERS = pytest.StashKey[Tiers]()


def _is_slow(item: pytest.Item) -> bool:
    return item.get_closest_marker("slow") is not None


def _sample(items: list[pytest.Item], tiers: Tiers) -> None:
    """Mark `slow` every case of a `sample` family that its marker does not keep."""
    families: dict[tuple[str, str], list[pytest.Item]] = {}
    for item in items:
        if item.get_closest_marker("sample") is not None and isinstance(item, pytest.Function):
            families.setdefault((item.path.as_posix(), item.originalname), []).append(item)
    for (_, name), family in families.items():
        marker = family[0].get_closest_marker("sample")
        assert marker is not None
        ids = [getattr(getattr(item, "callspec", None), "id", "") for item in family]
        if all(isinstance(arg, int) for arg in marker.args) and len(marker.args) == 1:
            count = marker.args[0]
            keep = {round(i * len(family) / count) for i in range(min(count, len(family)))}
        else:
            keep = {i for i, case_id in enumerate(ids) if case_id in marker.args}
            if len(family) > 1:  # a run of one chosen case does not see the others
                tiers.unknown_sample_ids += [f"{name}[{a}]" for a in marker.args if a not in ids]
        for i, item in enumerate(family):
            if i not in keep:
                item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)  # before -m and -k deselect anything, and before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _group_for_workers(config, items)
    tiers = Tiers()
    for item in items:
        if is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.slow)
    _sample(items, tiers)
    for item in items:
        path = item.path.relative_to(config.rootpath).as_posix()
        tiers.tests[path] = tiers.tests.get(path, 0) + 1
        tiers.fast[path] = tiers.fast.get(path, 0) + (not _is_slow(item))
        module = getattr(item, "module", None)
        if any(mark.name == "slow" for mark in _module_marks(module)):
            tiers.slow_files.add(path)
    config.stash[TIERS] = tiers


MACHINE_WIDE = ("tests/grader/", "tests/browser/")
MACHINE_WIDE_TEST = "MACHINE_WIDE_TEST"  # set while a test of the machine-wide group runs (see below)


def _is_machine_wide(config: pytest.Config, item: pytest.Item) -> bool:
    path = item.path.relative_to(config.rootpath).as_posix()
    return path.startswith(MACHINE_WIDE) or item.get_closest_marker("machine_wide") is not None


def _group_for_workers(config: pytest.Config, items: list[pytest.Item]) -> None:
    """How `-n 2 --dist loadgroup` (./run test) shares the suite between processes: a test file is one unit, so
    its module-scoped fixtures (a lesson executed once, a class graded once) run once; the grader's and the
    browser's files, and every test marked `machine_wide` elsewhere, are one unit together, because grading is
    machine-wide (sandbox users, their processes killed after each notebook, a check that none survives) and
    two gradings at once would see each other. A test that grades outside that group would make the check fail
    at random, so the fixtures' grader command refuses to run unless MACHINE_WIDE_TEST is set."""
    for item in items:
        path = item.path.relative_to(config.rootpath).as_posix()
        group = "grader" if _is_machine_wide(config, item) else path
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """MACHINE_WIDE_TEST is set from the test's setup to its teardown (module fixtures included) if it may grade."""
    if _is_machine_wide(item.config, item):
        os.environ[MACHINE_WIDE_TEST] = "1"
    else:
        os.environ.pop(MACHINE_WIDE_TEST, None)
    yield


def _module_marks(module: object) -> list[pytest.MarkDecorator]:
    marks = getattr(module, "pytestmark", [])
    return list(marks) if isinstance(marks, list | tuple) else [marks]


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()


@pytest.fixture
def tiers(request: pytest.FixtureRequest) -> Tiers:
    """What this run collected in each tier (tests/test_tiers.py)."""
    return request.config.stash[TIERS]


@pytest.fixture(scope="module")
def tensorflow_numerics() -> Iterator[None]:
    """minitf's TensorFlow-exact kernels for a whole module (the files that compare bit patterns), then NumPy's
    again. Module-scoped, so hypothesis's tests in the module may use it."""
    import minitf

    with minitf.api.experimental.numerics("tensorflow"):
        yield
