"""nbgrader preprocessors the grader adds to autograde (feedback's own are in grader/records/feedback.py)."""

from __future__ import annotations

from pathlib import Path

from nbformat import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer, Unicode

from grader.sandbox.prepare import Sandbox, release_folder
from grader.settings.lognoise import LOG_NOISE_PATTERN, without_log_noise

#: Set by the autograde command before nbgrader runs; None means no sandbox user (nothing to hand over).
ACTIVE_SANDBOX: Sandbox | None = None


class DropLogNoise(NbGraderPreprocessor):
    """Remove library log lines from stderr, line by line, so they never zero a passing test cell.

    nbgrader's own IgnorePattern drops a whole stderr output when the pattern matches anywhere in it,
    which would also hide a real warning printed next to a log line.
    """

    pattern = Unicode(LOG_NOISE_PATTERN, help="Regular expression for one stderr line to drop.").tag(config=True)

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int):
        if cell.cell_type != "code":
            return cell, resources
        outputs = []
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stderr":
                output.text = without_log_noise(output.text, self.pattern)
                if not output.text.strip():
                    continue
            outputs.append(output)
        cell.outputs = outputs
        return cell, resources


CUT_NOTE = "\n[the grader cut this output here: {dropped} more characters are not shown]\n"
NOTEBOOK_FULL = "[output not kept: the notebook's outputs already reached the grader's limit of {limit} characters]\n"


class CapOutputs(NbGraderPreprocessor):
    """Keep outputs small: at most ``max_cell_chars`` characters per cell and ``max_notebook_chars`` in all.

    nbgrader's LimitOutput counts lines, so one 50 MB line passes untouched into the autograded notebook
    and the feedback page.  Every output keeps its kind (an error stays an error, stderr stays stderr,
    so no verdict changes); only its text is cut, with a note saying so.
    """

    max_cell_chars = Integer(100_000, help="Characters of output kept per cell.").tag(config=True)
    max_notebook_chars = Integer(1_000_000, help="Characters of output kept per notebook.").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict):
        self._left = self.max_notebook_chars
        return super().preprocess(nb, resources)

    def _cut(self, text: str, budget: int) -> tuple[str, int]:
        if len(text) <= budget:
            return text, len(text)
        if budget <= 0:
            return NOTEBOOK_FULL.format(limit=self.max_notebook_chars), 0
        return text[:budget] + CUT_NOTE.format(dropped=len(text) - budget), budget

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int):
        if cell.cell_type != "code":
            return cell, resources
        cell_left = self.max_cell_chars
        for output in cell.get("outputs", []):
            budget = min(cell_left, self._left)
            used = 0
            if output.output_type == "stream":
                output.text, used = self._cut(output.text, budget)
            elif output.output_type == "error":
                output.evalue, used_value = self._cut(output.evalue, budget)
                traceback, used_trace = self._cut("\n".join(output.traceback), budget - used_value)
                output.traceback = traceback.split("\n")
                used = used_value + used_trace
            elif "data" in output:
                size = sum(len(v) if isinstance(v, str) else len(str(v)) for v in output.data.values())
                if size > budget:
                    plain = output.data.get("text/plain", "")
                    plain = plain if isinstance(plain, str) else "".join(plain)
                    text, used = self._cut(plain, budget)
                    output.data = NotebookNode({"text/plain": text or CUT_NOTE.format(dropped=size)})
                else:
                    used = size
            cell_left -= used
            self._left -= used
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
                (cell.name, cell.cell_type, cell.source, cell.locked, cell.checksum) for cell in notebook.source_cells
            ]
            points = {name: cell.max_score for name, cell in grade_cells.items()}
        present = {
            cell.metadata.get("nbgrader", {}).get("grade_id"): index
            for index, cell in enumerate(nb.cells)
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
        metadata = {
            "grade": points is not None,
            "grade_id": name,
            "locked": True,
            "solution": False,
            "schema_version": 3,
            "checksum": checksum,
            "cell_type": cell_type,
        }
        if points is not None:
            metadata["points"] = points
        note = f"# {self.notice}\n" if cell_type == "code" else f"*{self.notice}*\n\n"
        cell = NotebookNode(
            cell_type=cell_type,
            metadata=NotebookNode(nbgrader=NotebookNode(metadata), deletable=False, editable=False),
            source=note + source,
        )
        if cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        return cell


class MarkCopiedTests(NbGraderPreprocessor):
    """A pasted copy of a read-only cell (nbgrader metadata included) costs nothing: the original counts.

    nbgrader's DeduplicateIds keeps the last cell with a grade_id and leaves the others with empty nbgrader
    metadata, which CheckCellMetadata then rejects ("old version"), so the whole notebook went ungraded.
    Here, for a test, setup or helper cell that appears more than once, the original is the one after
    the cell that precedes it in the instructor's source; the others lose their nbgrader metadata and are
    marked as copies, which the execution skips with a note.  Duplicated answer cells keep nbgrader's
    choice (the last one), without the empty metadata.
    """

    def preprocess(self, nb: NotebookNode, resources: dict):
        positions: dict[str, list[int]] = {}
        for index, cell in enumerate(nb.cells):
            grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id")
            if grade_id:
                positions.setdefault(grade_id, []).append(index)
        duplicated = {name: where for name, where in positions.items() if len(where) > 1}
        if not duplicated:
            return nb, resources
        order = self._source_order(resources)
        for name, where in duplicated.items():
            first = nb.cells[where[0]].metadata["nbgrader"]
            if first.get("solution"):
                keep = where[-1]
            else:
                before = order[order.index(name) - 1] if name in order and order.index(name) > 0 else None
                anchor = positions[before][0] if before in positions else -1
                keep = next((i for i in where if i > anchor), where[0])
            for index in where:
                if index == keep:
                    continue
                cell = nb.cells[index]
                del cell.metadata["nbgrader"]
                if not first.get("solution"):
                    cell.metadata["grader"] = {"copy_of": name}
                self.log.warning("Cell %s appears more than once; the copy at position %d is ignored", name, index)
        return nb, resources

    def _source_order(self, resources: dict) -> list[str]:
        import nbformat

        from grader.trusted.plan import source_notebook

        path = source_notebook(self.config, resources)
        if path is None:
            return []
        source = nbformat.read(path, as_version=4)
        return [
            c.metadata.get("nbgrader", {}).get("grade_id")
            for c in source.cells
            if c.metadata.get("nbgrader", {}).get("grade_id")
        ]


class HandFolderToSandbox(NbGraderPreprocessor):
    """Give the student's grading folder to the sandbox user just before execution."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        if ACTIVE_SANDBOX is not None:
            release_folder(Path(resources["metadata"]["path"]), ACTIVE_SANDBOX, to_student=True)
        return nb, resources


class TakeFolderBack(NbGraderPreprocessor):
    """Take the folder back after execution and drop symlinks the submission made."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        if ACTIVE_SANDBOX is not None:
            release_folder(Path(resources["metadata"]["path"]), ACTIVE_SANDBOX, to_student=False)
        return nb, resources
