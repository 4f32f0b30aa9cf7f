"""feedback: one HTML page per student and notebook that says which tests failed and why, hidden tests hidden.

nbgrader shows hidden tests in feedback by design (jupyter/nbgrader#917).  Here the page opens with a table of
results (``FeedbackSummary``), and ``HideHiddenTests`` blanks hidden test code, reduces the errors of cells with
hidden tests to their message, and removes every line of any output that quotes a hidden test line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets.config import Config

from grader.paths import GraderError, Term
from grader.records.termstate import find_submissions, is_finished
from grader.settings.nbconfig import api_for
from grader.settings.termconfig import term_config

HIDDEN_BLOCK = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.S | re.M)
HIDDEN_NOTE = "# (hidden tests: their code is not shown)\n"
HIDDEN_TEXT_NOTE = "(hidden test text removed by the grader)"


def hidden_lines(source: str) -> list[str]:
    """The lines of a cell's hidden test blocks that are long enough to recognise in an output."""
    lines = []
    for block in HIDDEN_BLOCK.findall(source):
        lines += [line.strip() for line in block.splitlines()[1:-1] if len(line.strip()) >= 8]
    return lines


def scrub(text: str, secrets: list[str]) -> str:
    """Replace every line of ``text`` that quotes a hidden test line."""
    if not secrets or not any(secret in text for secret in secrets):
        return text
    return "".join(
        HIDDEN_TEXT_NOTE + ("\n" if line.endswith("\n") else "") if any(secret in line for secret in secrets) else line
        for line in text.splitlines(keepends=True)
    )


class HideHiddenTests(NbGraderPreprocessor):
    """Feedback without hidden test code: blank the hidden block and reduce its errors to the message.

    nbgrader shows hidden tests in feedback by design (jupyter/nbgrader#917); a traceback would show the
    failing line too, so cells with hidden tests keep only ``ErrorName: message``.  Any output anywhere
    in the notebook that quotes a hidden test line loses that line.
    """

    def preprocess(self, nb: NotebookNode, resources: dict):
        self._secrets = sorted(
            {line for cell in nb.cells if cell.cell_type == "code" for line in hidden_lines(cell.source)},
            key=len,
            reverse=True,
        )
        nb, resources = super().preprocess(nb, resources)
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                self._scrub_output(output)
        return nb, resources

    def _scrub_output(self, output: NotebookNode) -> None:
        if output.output_type == "stream":
            output.text = scrub(output.text, self._secrets)
        elif output.output_type == "error":
            output.evalue = scrub(output.evalue, self._secrets)
            output.traceback = [scrub(line, self._secrets) for line in output.traceback]
        for mime, value in list(output.get("data", {}).items()):
            if mime.startswith("text/") or mime.endswith("json"):
                text = value if isinstance(value, str) else "".join(value) if isinstance(value, list) else None
                if text is not None:
                    output.data[mime] = scrub(text, self._secrets)

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
            nb.cells.insert(
                0, NotebookNode(cell_type="markdown", metadata=NotebookNode(), source=table, id="grader-summary")
            )
        return nb, resources


def feedback_config(term: Term) -> Config:
    """The term's configuration, with the feedback pages made by the preprocessors above."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades

    config = term_config(term)
    config.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, HideHiddenTests, FeedbackSummary]
    return config


def generate_feedback(
    term: Term, assignment: str | None = None, student: str | None = None, progress: bool = True
) -> list[Path]:
    from tqdm import tqdm

    pairs = [  # finished, and with a notebook to comment on (an empty submission has none)
        (who, what)
        for who, what in find_submissions(term, assignment, student)
        if is_finished(term, who, what) and any((term.autograded / who / what).glob("*.ipynb"))
    ]
    if not pairs:
        raise GraderError("no graded submissions yet: run `autograde` first")
    api = api_for(feedback_config(term))
    written: list[Path] = []
    problems: list[str] = []
    for who, what in tqdm(pairs, desc="feedback", unit="submission", disable=not progress, file=sys.stderr):
        result = api.generate_feedback(what, who, force=True)
        if not result.get("success"):
            problems.append(f"{who}/{what}: {(result.get('error') or '').strip().splitlines()[-1:]}")
            continue
        written += sorted((term.feedback / who / what).glob("*.html"))
    if problems:
        raise GraderError("feedback failed for:\n  " + "\n  ".join(problems))
    return written
