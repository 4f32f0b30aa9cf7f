"""feedback: one HTML page per student and notebook that says which tests failed and why, hidden tests hidden.

nbgrader shows hidden tests in feedback by design (jupyter/nbgrader#917).  Here the page opens with a table of
results (``FeedbackSummary``), and ``HideHiddenTests`` blanks hidden test code, reduces the errors of cells with
hidden tests to their message, and removes every line of any output that quotes a hidden test line.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
from pathlib import Path

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode
from traitlets.config import Config

from grader.paths import GraderError, Term
from grader.records.pages import write_refusal_pages, write_student_index
from grader.records.rejections import HAND_IN_AGAIN, rejections
from grader.records.standing import late_flag, standings, timed_out_answers
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


def _auto_result(cell: NotebookNode, timeouts: dict[str, str]) -> str:
    """What the test's outputs say: passed, or why it failed (a timed-out answer named as such)."""
    errors = [o for o in cell.outputs if o.output_type == "error"]
    stderr = [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
    grade_id = cell.metadata.nbgrader.get("grade_id", "")
    if grade_id in timeouts and (errors or stderr):
        return f"failed: {timeouts[grade_id]}, so this test could not use your answer"
    if errors:
        return "failed: " + f"{errors[0].ename}: {errors[0].evalue}".strip().rstrip(":")
    if stderr:
        return "failed: the test wrote to stderr"
    return "passed"


class FeedbackSummary(NbGraderPreprocessor):
    """Open the feedback with a table built from the final grades (manual grades included): every test, its
    points and why it failed (the error message only), the late penalty, the total, and any refused hand-in."""

    term_root = Unicode("", help="the term's folder (for its deadlines and refused notebooks)").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict):
        from nbgrader.api import Gradebook

        info = resources["nbgrader"]
        with Gradebook(Term(Path(self.term_root)).db_url) as gradebook:
            submission = gradebook.find_submission(info["assignment"], info["student"])
            notebook = next(n for n in submission.notebooks if n.name == info["notebook"])
            by_hand = {g.name for g in notebook.grades if g.manual_score is not None}
            late = late_flag(submission.total_seconds_late, submission.timestamp, info.get("late_penalty") or 0)
        timeouts = timed_out_answers(nb)
        rows = []
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if not meta.get("grade") or cell.cell_type != "code":
                continue
            points, score = meta.get("points", 0) or 0, meta.get("score")
            result = _auto_result(cell, timeouts)
            if score is None:
                result, score = "waiting for manual grading", 0
            elif meta.get("grade_id") in by_hand:
                result = f"graded by hand (the automatic check said: {result})"
            result = result.replace("|", "\\|").replace("\n", " ")
            rows.append(f"| `{meta.get('grade_id')}` | {score:g} / {points:g} | {result} |")
        penalty = info.get("late_penalty") or 0
        if penalty:
            rows.append(f"| late penalty | -{penalty:g} | {late} |")
        if rows:
            rows.append(f"| **total** | **{info['score']:g} / {info['max_score']:g}** | |")
            lines = ["## Your results", "", *self._refused(info), "| Test | Points | Result |", "|---|---|---|", *rows]
            nb.cells.insert(
                0,
                NotebookNode(
                    cell_type="markdown", metadata=NotebookNode(), source="\n".join(lines), id="grader-summary"
                ),
            )
        return nb, resources

    def _refused(self, info: dict) -> list[str]:
        term = Term(Path(self.term_root))
        return [
            f"**Your later hand-in of this notebook was not accepted:** {r.reason}. This page grades the copy "
            f"collected before. {HAND_IN_AGAIN}\n"
            for r in rejections(term, info["assignment"], info["student"])
            if r.file == f"{info['notebook']}.ipynb"
        ]


def feedback_config(term: Term) -> Config:
    """The term's configuration, with the feedback pages made by the preprocessors above."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades

    config = term_config(term)
    config.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, HideHiddenTests, FeedbackSummary]
    config.FeedbackSummary.term_root = str(term.root)
    return config


def grades_fingerprint(term: Term, student: str, assignment: str) -> str:
    """What a submission's feedback pages are made from: its grades, comments, penalty, autograded notebooks and
    refused files.  A page whose fingerprint changed is stale (a manual grade, a regrade, a new deadline)."""
    from nbgrader.api import Gradebook

    digest = hashlib.sha256()
    with Gradebook(term.db_url) as gradebook:
        submission = gradebook.find_submission(assignment, student)
        for notebook in sorted(submission.notebooks, key=lambda n: n.name):
            digest.update(repr((notebook.name, notebook.late_submission_penalty)).encode())
            digest.update(repr(sorted((g.name, g.score, g.max_score) for g in notebook.grades)).encode())
            digest.update(repr(sorted((c.name, c.comment) for c in notebook.comments)).encode())
    for path in sorted((term.autograded / student / assignment).glob("*.ipynb")):
        digest.update(path.name.encode() + path.read_bytes())
    digest.update(repr(rejections(term, assignment, student)).encode())
    return digest.hexdigest()


def _fingerprint_file(term: Term, student: str, assignment: str) -> Path:
    return term.state / "feedback" / assignment / f"{student}.txt"


def stale_feedback(term: Term, assignment: str | None = None, student: str | None = None) -> list[tuple[str, str]]:
    """Finished submissions whose feedback is missing or older than their grades."""
    return [
        (who, what)
        for who, what in find_submissions(term, assignment, student)
        if is_finished(term, who, what)
        and (
            not _fingerprint_file(term, who, what).is_file()
            or _fingerprint_file(term, who, what).read_text() != grades_fingerprint(term, who, what)
        )
    ]


def generate_feedback(
    term: Term,
    assignment: str | None = None,
    student: str | None = None,
    progress: bool = True,
    only_stale: bool = False,
) -> list[Path]:
    """Feedback pages of the selected finished submissions (``only_stale``: those whose grades changed since
    their pages were written), a page for every refused notebook without a graded copy, and each student's index."""
    from tqdm import tqdm

    standing = standings(term)  # applies the late work first: pages show the penalty
    pairs = [(who, what) for who, what in find_submissions(term, assignment, student) if is_finished(term, who, what)]
    if not pairs:
        raise GraderError("no graded submissions yet: run `autograde` first")
    if only_stale:
        pairs = [pair for pair in pairs if pair in set(stale_feedback(term, assignment, student))]
    api = api_for(feedback_config(term))
    written: list[Path] = []
    problems: list[str] = []
    for who, what in tqdm(pairs, desc="feedback", unit="submission", disable=not progress, file=sys.stderr):
        folder = term.feedback / who / what
        if any((term.autograded / who / what).glob("*.ipynb")):
            result = api.generate_feedback(what, who, force=True)
            if not result.get("success"):
                problems.append(f"{who}/{what}: {(result.get('error') or '').strip().splitlines()[-1:]}")
                continue
        else:
            shutil.rmtree(folder, ignore_errors=True)
        written += write_refusal_pages(term, who, what)
        written += sorted(folder.glob("*.html"))
        path = _fingerprint_file(term, who, what)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(grades_fingerprint(term, who, what))
    for who in sorted({who for who, _ in pairs}):
        write_student_index(term, who, standing)
    if problems:
        raise GraderError("feedback failed for:\n  " + "\n  ".join(problems))
    return sorted(set(written))
