"""The nbgrader configuration for grading one term: sandboxed kernels, restored cells, quiet logs (feedback adds its
preprocessors in grader/records/feedback.py)."""

from __future__ import annotations

from traitlets.config import Config

from grader.paths import Term
from grader.records.standing import TIMEOUT_MESSAGE
from grader.sandbox.prepare import Limits, Sandbox
from grader.settings.nbconfig import course_config


def term_config(term: Term, sandbox: Sandbox | None = None, limits: Limits | None = None) -> Config:
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        ClearOutput,
        DeduplicateIds,
        LimitOutput,
        OverwriteCells,
        OverwriteKernelspec,
        SaveAutoGrades,
    )

    from grader.worker.execute import GuardedExecute
    from grader.worker.preprocessors import (
        CapOutputs,
        DropLogNoise,
        HandFolderToSandbox,
        MarkCopiedTests,
        RestoreLockedCells,
        TakeFolderBack,
    )

    limits = limits or Limits()
    config = course_config(root=term.root, source=term.solutions, release=term.release, db_url=term.db_url)
    config.Autograde.create_student = False  # unknown students are an error, not a new gradebook entry
    config.Autograde.sanitize_preprocessors = [
        ClearOutput,
        MarkCopiedTests,
        DeduplicateIds,
        OverwriteKernelspec,
        OverwriteCells,
        RestoreLockedCells,
        CheckCellMetadata,
    ]
    config.Autograde.autograde_preprocessors = [
        HandFolderToSandbox,
        GuardedExecute,
        TakeFolderBack,
        DropLogNoise,
        CapOutputs,
        ClearMetadataPreprocessor,
        LimitOutput,
        SaveAutoGrades,
        AssignLatePenalties,
        CheckCellMetadata,
    ]
    config.Execute.timeout = limits.cell_timeout
    stopped = TIMEOUT_MESSAGE.format(limit=limits.cell_timeout)  # the feedback and the report recognise it
    config.Execute.error_on_timeout = {
        "ename": "CellTimeoutError",
        "evalue": stopped,
        "traceback": [f"CellTimeoutError: {stopped}"],
    }
    config.Execute.startup_timeout = 120
    if sandbox is not None:
        config.Execute.kernel_name = sandbox.kernel_name
        if sandbox.ipc_dir is not None:
            config.KernelManager.transport = "ipc"
            config.KernelManager.ip = str(sandbox.ipc_dir / "k")
    return config
