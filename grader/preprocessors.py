"""nbgrader preprocessors the grader adds to autograde and feedback."""

from __future__ import annotations

import re
from pathlib import Path

from nbformat import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from grader.lognoise import LOG_NOISE_PATTERN

#: Set by the autograde command before nbgrader runs; None means no sandbox user (nothing to hand over).
ACTIVE_SANDBOX = None


class DropLogNoise(NbGraderPreprocessor):
    """Remove library log lines from stderr, line by line, so they never zero a passing test cell.

    nbgrader's own IgnorePattern drops a whole stderr output when the pattern matches anywhere in it,
    which would also hide a real warning printed next to a log line.
    """

    pattern = Unicode(LOG_NOISE_PATTERN, help="Regular expression for one stderr line to drop.").tag(config=True)

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int):
        if cell.cell_type != "code":
            return cell, resources
        noise = re.compile(self.pattern)
        outputs = []
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stderr":
                kept = [line for line in output.text.splitlines(keepends=True) if not noise.search(line)]
                if not "".join(kept).strip():
                    continue
                output.text = "".join(kept)
            outputs.append(output)
        cell.outputs = outputs
        return cell, resources


class RestoreLockedCells(NbGraderPreprocessor):
    """Put back read-only cells (tests, setup, helpers) that a submission deleted.

    nbgrader restores edited locked cells; a deleted test cell becomes "needs manual grading" and a
    deleted helper cell is not restored at all, which lets a submission supply its own lenient helper.
    """

    notice = Unicode("The grader restored this cell: it was missing from the submission.")

    def preprocess(self, nb: NotebookNode, resources: dict):
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gradebook:
            notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
            grade_cells = {cell.name: cell for cell in notebook.grade_cells}
            solution_ids = {cell.name for cell in notebook.solution_cells}
            source_cells = [
                (cell.name, cell.cell_type, cell.source, cell.locked, cell.checksum)
                for cell in notebook.source_cells
            ]
            points = {name: cell.max_score for name, cell in grade_cells.items()}
        present = {
            cell.metadata.get("nbgrader", {}).get("grade_id"): index for index, cell in enumerate(nb.cells)
            if cell.metadata.get("nbgrader", {}).get("grade_id")
        }
        insert_at = 0
        for name, cell_type, source, locked, checksum in source_cells:
            if name in present:
                insert_at = present[name] + 1
                continue
            if name in solution_ids or not (locked or name in grade_cells):
                continue
            nb.cells.insert(insert_at, self._rebuild(name, cell_type, source, checksum, points.get(name)))
            present = {key: (i + 1 if i >= insert_at else i) for key, i in present.items()}
            present[name] = insert_at
            insert_at += 1
            self.log.warning("Restored missing read-only cell %s", name)
        return nb, resources

    def _rebuild(self, name: str, cell_type: str, source: str, checksum: str, points) -> NotebookNode:
        metadata = {"grade": points is not None, "grade_id": name, "locked": True, "solution": False,
                    "schema_version": 3, "checksum": checksum, "cell_type": cell_type}
        if points is not None:
            metadata["points"] = points
        note = f"# {self.notice}\n" if cell_type == "code" else f"*{self.notice}*\n\n"
        cell = NotebookNode(cell_type=cell_type, metadata=NotebookNode(
            nbgrader=NotebookNode(metadata), deletable=False, editable=False), source=note + source)
        if cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        return cell


class HandFolderToSandbox(NbGraderPreprocessor):
    """Give the student's grading folder to the sandbox user just before execution."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        from grader.sandbox import release_folder

        if ACTIVE_SANDBOX is not None:
            release_folder(Path(resources["metadata"]["path"]), ACTIVE_SANDBOX, to_student=True)
        return nb, resources


class TakeFolderBack(NbGraderPreprocessor):
    """Take the folder back after execution and drop symlinks the submission made."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        from grader.sandbox import release_folder

        if ACTIVE_SANDBOX is not None:
            release_folder(Path(resources["metadata"]["path"]), ACTIVE_SANDBOX, to_student=False)
        return nb, resources


HIDDEN_BLOCK = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.S | re.M)
HIDDEN_NOTE = "# (hidden tests: their code is not shown)\n"


class HideHiddenTests(NbGraderPreprocessor):
    """Feedback without hidden test code: blank the hidden block and reduce its errors to the message.

    nbgrader shows hidden tests in feedback by design (jupyter/nbgrader#917); a traceback would show the
    failing line too, so cells with hidden tests keep only ``ErrorName: message``.
    """

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int):
        if cell.cell_type != "code" or not HIDDEN_BLOCK.search(cell.source):
            return cell, resources
        cell.source = HIDDEN_BLOCK.sub(HIDDEN_NOTE, cell.source)
        for output in cell.outputs:
            if output.output_type == "error":
                output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources


class FeedbackSummary(NbGraderPreprocessor):
    """Open the feedback with a table: every test, its points, and why it failed (the error message only)."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        rows = []
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if not meta.get("grade") or cell.cell_type != "code":
                continue
            errors = [o for o in cell.outputs if o.output_type == "error"]
            stderr = [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
            if errors:
                why = f"{errors[0].ename}: {errors[0].evalue}".strip().rstrip(":")
                result, points = f"failed: {why}", 0
            elif stderr:
                result, points = "failed: the test wrote to stderr", 0
            else:
                result, points = "passed", meta.get("points", 0)
            result = result.replace("|", "\\|").replace("\n", " ")
            rows.append(f"| `{meta.get('grade_id')}` | {points:g} / {meta.get('points', 0):g} | {result} |")
        if rows:
            table = "\n".join(["## Your results", "", "| Test | Points | Result |", "|---|---|---|", *rows])
            nb.cells.insert(0, NotebookNode(cell_type="markdown", metadata=NotebookNode(), source=table,
                                            id="grader-summary"))
        return nb, resources
