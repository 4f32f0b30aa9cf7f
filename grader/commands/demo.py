"""demo: the whole cycle, headless, on sample submissions, ending with the grade table.

Uses the course's first assignment when solutions/ has one, otherwise the small fixture assignment
bundled with the tests.  Besides complete, partial and empty work, two samples misbehave on purpose:
one replaces numpy's comparison functions (the tests run in the trusted kernel, which never sees it) and
one kills its kernel after answering everything (it keeps its points).
"""

from __future__ import annotations

import copy
import shutil
import tempfile
from pathlib import Path

import nbformat

from grader.commands.autograde import autograde, print_outcomes
from grader.commands.collect import collect_folder, import_roster
from grader.commands.release import list_assignments
from grader.commands.samples import fill, solution_answers, write_class
from grader.paths import DEFAULT_SOLUTIONS, REPO, Term
from grader.records.feedback import generate_feedback
from grader.records.gradebook import ensure_assignment
from grader.records.report import grade_table, plot, read_grades, write_csv

FIXTURE_SOLUTIONS = REPO / "tests" / "grader_fixtures" / "solutions"
CHEAT = "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.testing.assert_allclose = lambda *a, **k: None\n"


def demo_source() -> tuple[Path, str]:
    course = list_assignments(DEFAULT_SOLUTIONS)
    return (DEFAULT_SOLUTIONS, course[0]) if course else (FIXTURE_SOLUTIONS, list_assignments(FIXTURE_SOLUTIONS)[0])


def _write_misbehaving(term: Term, assignment: str, folder: Path) -> None:
    """'cheater': no answers, numpy comparisons replaced; 'crasher': all answers, then os._exit."""
    for notebook in sorted((term.release / assignment).glob("*.ipynb")):
        student_nb = nbformat.read(notebook, as_version=4)
        cheat = copy.deepcopy(student_nb)
        first_code = next(i for i, c in enumerate(cheat.cells) if c.cell_type == "code")
        cheat.cells.insert(first_code + 1, nbformat.v4.new_code_cell(CHEAT))
        crash = fill(student_nb, solution_answers(term.solutions / assignment / notebook.name))
        crash.cells.append(nbformat.v4.new_code_cell("import os\nos._exit(1)"))
        for student, nb in (("cheater", cheat), ("crasher", crash)):
            (folder / student).mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, folder / student / notebook.name)


def _first_notebooks(source: Path, assignment: str, count: int) -> Path:
    """A copy of the assignment's sources with only its first notebooks, so the demo takes a minute."""
    subset = Path(tempfile.mkdtemp(prefix="grader-demo-solutions-"))
    (subset / assignment).mkdir()
    for notebook in sorted((source / assignment).glob("*.ipynb"))[:count]:
        shutil.copyfile(notebook, subset / assignment / notebook.name)
    for extra in (source / assignment).iterdir():  # data files the notebooks read
        if extra.is_file() and extra.suffix != ".ipynb":
            shutil.copyfile(extra, subset / assignment / extra.name)
    return subset


def demo_class(term_root: Path | None, students: int = 4, notebooks: int | None = 3) -> tuple[Term, str]:
    """The demo's term with its class collected: sample students and the two misbehaving ones."""
    from grader.paths import make_term

    source, assignment = demo_source()
    if notebooks:
        source = _first_notebooks(source, assignment, notebooks)
    root = term_root or Path(tempfile.mkdtemp(prefix="grader-demo-"))
    term = make_term(root, source)
    print(f"demo: assignment {assignment!r} from {source}, term in {term.root}")
    ensure_assignment(term, assignment)
    inbox = term.root / "inbox"
    profiles = write_class(term.solutions, term.release, assignment, inbox, students)
    _write_misbehaving(term, assignment, inbox)
    roster_csv = term.root / "roster.csv"
    roster_csv.write_text(
        "id,first_name,last_name\n"
        + "".join(
            f"{s},{p.title()},Sample\n" for s, p in {**profiles, "cheater": "cheater", "crasher": "crasher"}.items()
        )
    )
    import_roster(term, roster_csv)
    print(collect_folder(term, assignment, inbox).summary())
    return term, assignment


def run_demo(term_root: Path | None, students: int = 4, notebooks: int | None = 3) -> Term:
    term, assignment = demo_class(term_root, students, notebooks)
    print_outcomes(autograde(term, assignment))
    pages = generate_feedback(term, assignment)
    print(f"feedback: {len(pages)} page(s) in {term.feedback}")
    grades = read_grades(term)
    write_csv(grades, term.reports / "grades.csv")
    for path in plot(grades, term.reports):
        print(f"plot: {path}")
    print(f"grades: {term.reports / 'grades.csv'}\n")
    print(grade_table(grades))
    return term
