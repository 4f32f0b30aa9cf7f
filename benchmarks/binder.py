"""Would TensorFlow fit on Binder? `python -m benchmarks.binder` measures what it would cost there.

Binder gives a session 2 GB of memory, and JupyterLab keeps one kernel running for every notebook a student has
opened. This runs the heaviest lessons as a student does, once as they are (minitf) and once with the engine switch
below the setup cell (TensorFlow), and prints each kernel's peak memory, how long the switch cell took (importing
TensorFlow), how many such kernels 2 GB holds, and how much disk TensorFlow's packages take (the image Binder
builds grows by that much). A measurement, printed, never asserted: the README says what was decided from it.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LESSONS = ("part2-basics/03-compiling", "part2-basics/04-neural-network", "part2-basics/05-keras")
BINDER_BYTES = 2 * 1024**3
#: What installing TensorFlow adds to the lab environment (its dependencies the lab extra already has are left out).
TENSORFLOW_PACKAGES = ("tensorflow", "keras", "tensorboard", "clang", "grpc", "ml_dtypes", "optree", "google")


def peak_bytes(pid: int) -> int:
    """The kernel's peak resident memory so far (VmHWM, Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


def run_lesson(path: Path, switched: bool) -> tuple[int, float]:
    """(peak memory of the kernel in bytes, seconds the switch cell took: 0 without it)."""
    import nbformat  # the test extra's packages, only needed when this benchmark runs
    from nbclient import NotebookClient
    from notebook_runner import _kernel_env, with_switch

    notebook = nbformat.read(path, as_version=4)
    notebook = with_switch(notebook) if switched else notebook
    client = NotebookClient(notebook, kernel_name="python3", timeout=300, allow_errors=True,
                            resources={"metadata": {"path": str(path.parent)}})  # fmt: skip
    switch_seconds = 0.0
    with client.setup_kernel(env=_kernel_env()):
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                started = time.perf_counter()
                client.execute_cell(cell, index)
                if cell.get("id") == "switch-to-tensorflow":
                    switch_seconds = time.perf_counter() - started
        return peak_bytes(client.km.provisioner.process.pid), switch_seconds


def installed_megabytes(names: tuple[str, ...]) -> float:
    """Disk taken by the installed packages `names` (their folders in site-packages)."""
    spec = importlib.util.find_spec("numpy")
    assert spec is not None and spec.origin is not None
    site_packages = Path(spec.origin).parents[1]
    folders = [site_packages / name for name in names if (site_packages / name).is_dir()]
    return sum(f.stat().st_size for folder in folders for f in folder.rglob("*") if f.is_file()) / 1e6


def main() -> None:
    sys.path.insert(0, str(REPO / "tests" / "course"))
    print(f"TensorFlow's packages take {installed_megabytes(TENSORFLOW_PACKAGES):,.0f} MB on disk")
    for lesson in LESSONS:
        path = REPO / "solutions" / f"{lesson}.ipynb"
        minitf_peak, _ = run_lesson(path, switched=False)
        tensorflow_peak, switch_seconds = run_lesson(path, switched=True)
        print(
            f"{lesson:32} kernel peak: minitf {minitf_peak / 1e6:5.0f} MB, TensorFlow {tensorflow_peak / 1e6:5.0f} MB "
            f"({tensorflow_peak / minitf_peak:.1f}x; the switch cell took {switch_seconds:.1f} s); 2 GB holds "
            f"{BINDER_BYTES // minitf_peak} such minitf kernels or {BINDER_BYTES // tensorflow_peak} TensorFlow kernels"
        )


if __name__ == "__main__":
    main()
