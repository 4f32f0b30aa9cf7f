"""How long each part of the course takes to execute headless on minitf (kernel start-up excluded).

The course promises a part runs in under two minutes on a laptop. This is a measurement, printed with the
slowest notebooks and cells; like every timing here it is not a pass/fail test (a loaded CI machine must
not fail a build).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUDGET_SECONDS = 120


def main() -> None:
    sys.path.insert(0, str(REPO / "tests" / "course"))
    from notebook_runner import execute, solution_notebooks

    by_part: dict[str, list] = {}
    for notebook in solution_notebooks():
        by_part.setdefault(notebook.parent.name, []).append(execute(notebook, "minitf"))
    for part, runs in by_part.items():
        total = sum(run.seconds for run in runs)
        verdict = "within" if total < BUDGET_SECONDS else "OVER"
        print(f"{part}: {total:.1f}s on minitf ({verdict} the {BUDGET_SECONDS}s budget)")
        for run in sorted(runs, key=lambda r: -r.seconds)[:3]:
            cell = max(run.cells, key=lambda c: c.seconds)
            print(f"  {run.path.stem:28} {run.seconds:6.1f}s  slowest cell #{cell.index}: {cell.seconds:.1f}s")


if __name__ == "__main__":
    main()
