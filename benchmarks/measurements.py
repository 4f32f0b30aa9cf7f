"""Write docs/measurements.md: every measured figure the docs point to, from one run, with its date and machine.

    python -m benchmarks --write          # all sections (about a quarter of an hour; grading needs root)
    python -m benchmarks --write --only benchmarks.chain,benchmarks.steps   # those sections again, dated apart

Each section runs one benchmark in its own process (as `python -m benchmarks.<name>` would) and keeps what it
printed. The docs describe the design and link here for figures, so no figure in them goes stale by hand.
"""

from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "docs" / "measurements.md"

# (module run with -m, heading, what it measures); grading runs only as root (the sandbox needs it).
SECTIONS = [
    ("benchmarks.chain", "Eager ops and the tape", "a 60-op elementwise chain, forward and with its gradient"),
    ("benchmarks.dispatch", "One op", "tf.add on tensors and on a RaggedTensor, from the call to the kernel"),
    ("benchmarks.steps", "Random draws and a training step", "seeded normal and uniform draws, a logistic step"),
    ("benchmarks.graphs", "Graphs", "eager against tf.function, and the graph passes, on small programs"),
    ("benchmarks.jit", "jit_compile=True", "fused regions compiled through Numba against TensorFlow's XLA"),
    ("benchmarks.keras_fit", "Keras fit", "the course's digits network trained by model.fit"),
    ("benchmarks.conv", "Convolution", "conv2d forward and backward on a batch of digits-sized images"),
    ("benchmarks.kernels", "TensorFlow-exact kernels", "minitf's exact float32 kernels against NumPy's"),
    ("benchmarks.agreement", "Agreement with TensorFlow", "minitf's default float kernels against TensorFlow's"),
    ("benchmarks.lessons", "The lessons", "each part of the course executed headless on minitf"),
    ("benchmarks.binder", "Binder", "kernel memory on each engine and the switch's start, against Binder's 2 GB"),
    ("benchmarks.grading", "Grading", "collect and autograde of sample classes in the sandbox"),
    ("benchmarks.grading_demo", "Grading the demo class", "worker and CPU time per notebook, default workers"),
]
# The benchmarks left out of the file, and why: tools an instructor or a developer runs for a question of their own,
# whose figures no doc quotes.
ON_DEMAND = {
    "benchmarks.grading_workers": "throughput and each kernel's peak memory for 1, 2 and 4 workers, to size --workers",
    "benchmarks.grading_pool": "warm kernels against fresh ones, class by class: the pool's design check",
    "benchmarks.grading_profile": "where one submission's grading time goes, phase by phase",
    "benchmarks.timing_grades": "flipped grades of the stopwatch exercises under load (a count, not a speed)",
}
FAST_TIER = "The test suite's fast tier"
VERSIONED = ["numpy", "tensorflow-cpu", "keras", "numba", "nbgrader", "jupyterlab"]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    info = Path("/proc/cpuinfo")
    if info.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", info.read_text(), re.M)
        cpu = found.group(1).strip() if found else cpu
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kib = int(re.search(r"MemTotal:\s+(\d+)", meminfo.read_text()).group(1))  # type: ignore[union-attr]
        memory = f", {kib / 2**20:.0f} GiB"
    return f"{cpu}, {os.cpu_count()} cores{memory}, {platform.system()} {platform.release()}"


def versions() -> str:
    found = [f"Python {platform.python_version()}"]
    for name in VERSIONED:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def commit() -> str:
    run = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return run.stdout.strip() or "unknown"


def fast_tier() -> str:
    """The fast tier's size and wall time on every core (the full suite's time is printed by `./run test`)."""
    started = time.perf_counter()
    command = [sys.executable, "-m", "pytest", "-m", "not slow", "-q", "-p", "no:cacheprovider", "-n", "auto"]
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-300:]
    return f"{summary}\nwall time of the command: {time.perf_counter() - started:.0f} s"


def section(module: str) -> str:
    if module.startswith("benchmarks.grading") and os.geteuid() != 0:
        return "not measured in this run: grading in the sandbox needs root"
    run = subprocess.run([sys.executable, "-m", module], cwd=REPO, capture_output=True, text=True)
    text = run.stdout.strip()
    return text if run.returncode == 0 else f"{text}\nfailed (exit code {run.returncode}):\n{run.stderr[-2000:]}"


def write(output: Path = OUTPUT) -> None:
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "# Measurements\n",
        "Generated by `python -m benchmarks --write` (do not edit by hand); every figure the other docs point to is",
        "here, from this one run. Timings depend on the machine and on what else runs on it: compare ratios within a",
        "table, not figures across runs.\n",
        f"- measured: {date}, commit {commit()}",
        f"- machine: {machine()} (load average at the start: {os.getloadavg()[0]:.1f})",
        f"- versions: {versions()}\n",
    ]
    for module, heading, what in SECTIONS:
        print(f"measuring {heading} ...", file=sys.stderr)
        parts += [f"## {heading}\n", f"`python -m {module}`: {what}.\n", "```text", section(module), "```\n"]
    print("measuring the fast tier ...", file=sys.stderr)
    parts += [f"## {FAST_TIER}\n", '`pytest -m "not slow" -n auto`.\n', "```text", fast_tier(), "```\n"]
    parts.append(f"(load average at the end: {os.getloadavg()[0]:.1f})")
    output.write_text("\n".join(parts) + "\n")
    print(f"wrote {output}", file=sys.stderr)


def rewrite_sections(modules: list[str], output: Path = OUTPUT) -> None:
    """Measure again only the sections of `modules` and put them in place in `output` (a new section goes before
    the next one SECTIONS lists, or before the fast tier's); each says when and at which commit it was measured,
    since the date at the top is the rest of the file's."""
    text = output.read_text()
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    for index, (module, heading, what) in enumerate(SECTIONS):
        if module not in modules:
            continue
        print(f"measuring {heading} ...", file=sys.stderr)
        block = re.compile(rf"## {re.escape(heading)}\n.*?```text\n.*?```\n", re.S)
        if not block.search(text):
            following = [f"## {name}\n" for _, name, _ in SECTIONS[index + 1 :]] + [f"## {FAST_TIER}\n"]
            place = min((text.index(h) for h in following if h in text), default=len(text))
            text = text[:place] + f"## {heading}\n\n```text\n```\n\n" + text[place:]
        note = f"(this section measured again: {date}, commit {commit()}, load average {os.getloadavg()[0]:.1f})"
        fresh = "\n".join(
            [f"## {heading}\n", f"`python -m {module}`: {what}. {note}\n", "```text", section(module), "```\n"]
        )
        text = block.sub(lambda _, fresh=fresh: fresh, text, count=1)
    output.write_text(text)
    print(f"wrote {output}", file=sys.stderr)
