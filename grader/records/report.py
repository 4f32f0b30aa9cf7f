"""report: grades as CSV for an LMS, and the two plots an instructor looks at first."""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from grader.paths import GraderError, Term
from grader.records.termstate import is_finished


@dataclass
class Grades:
    students: list[dict]  # id, first_name, last_name, email, lms_user_id
    assignments: list[str]
    scores: dict[tuple[str, str], tuple[float, float]]  # (student, assignment) -> (score, max)
    max_scores: dict[str, float]
    exercises: dict[str, dict[str, list[tuple[float, float]]]]  # assignment -> grade cell -> [(score, max)]


def read_grades(term: Term) -> Grades:
    """Grades of finished submissions only: a run cut off mid-way shows nothing half-done."""
    from nbgrader.api import Gradebook

    if not term.gradebook.exists():
        raise GraderError(f"no gradebook in {term.root}: run `collect` and `autograde` first")
    with Gradebook(term.db_url) as gradebook:
        students = [
            {
                "id": s.id,
                "first_name": s.first_name or "",
                "last_name": s.last_name or "",
                "email": s.email or "",
                "lms_user_id": s.lms_user_id or "",
            }
            for s in sorted(gradebook.students, key=lambda s: s.id)
        ]
        assignments = sorted(a.name for a in gradebook.assignments)
        max_scores = {a.name: float(a.max_score) for a in gradebook.assignments}
        scores: dict[tuple[str, str], tuple[float, float]] = {}
        exercises: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
        for assignment in gradebook.assignments:
            for submission in assignment.submissions:
                student = submission.student.id
                if not is_finished(term, student, assignment.name):
                    continue
                scores[(student, assignment.name)] = (float(submission.score), float(submission.max_score))
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        if grade.cell_type == "code" and grade.max_score:
                            label = f"{notebook.name}:{grade.name}"
                            exercises[assignment.name][label].append((float(grade.score), float(grade.max_score)))
    return Grades(students, assignments, scores, max_scores, {a: dict(e) for a, e in exercises.items()})


def write_csv(grades: Grades, path: Path) -> None:
    """One row per student; empty cells mean not submitted or not graded yet (an LMS keeps them open)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = ["id", "first_name", "last_name", "email", "lms_user_id"]
    for assignment in grades.assignments:
        header += [assignment, f"{assignment} (max)"]
    header += ["total", "total (max)"]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for student in grades.students:
            row = [student[key] for key in header[:5]]
            total = 0.0
            for assignment in grades.assignments:
                score = grades.scores.get((student["id"], assignment))
                row += ["" if score is None else f"{score[0]:g}", f"{grades.max_scores[assignment]:g}"]
                total += score[0] if score else 0.0
            row += [f"{total:g}", f"{sum(grades.max_scores.values()):g}"]
            writer.writerow(row)


def plot(grades: Grades, folder: Path) -> list[Path]:
    """scores.png: distribution of scores per assignment; pass_rates.png: share of full marks per test."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    folder.mkdir(parents=True, exist_ok=True)
    graded = [a for a in grades.assignments if any(k[1] == a for k in grades.scores)]
    if not graded:
        raise GraderError("no graded submissions yet: run `autograde` first")
    figure, axes = plt.subplots(len(graded), 1, figsize=(7, 2.6 * len(graded)), squeeze=False)
    for axis, assignment in zip(axes[:, 0], graded):
        values = [s for (_, a), (s, _) in grades.scores.items() if a == assignment]
        top = grades.max_scores[assignment]
        bins = [x - 0.5 for x in range(int(top) + 2)] if top <= 30 else 20
        axis.hist(values, bins=bins, range=(0, top), color="#4477aa", edgecolor="white")
        axis.yaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_title(f"{assignment}: {len(values)} graded, mean {sum(values) / len(values):.1f} / {top:g}")
        axis.set_xlabel("points")
        axis.set_ylabel("students")
    figure.tight_layout()
    scores_png = folder / "scores.png"
    figure.savefig(scores_png, dpi=100)
    plt.close(figure)

    labels, rates = [], []
    for assignment in graded:
        for exercise, results in sorted(grades.exercises.get(assignment, {}).items()):
            labels.append(f"{assignment} · {exercise}")
            rates.append(100.0 * sum(score >= top for score, top in results) / len(results))
    figure, axis = plt.subplots(figsize=(8, 0.35 * len(labels) + 1.2))
    axis.barh(labels, rates, color="#228833")
    axis.invert_yaxis()
    axis.set_xlim(0, 100)
    axis.set_xlabel("% of graded submissions with full points")
    axis.set_title("Pass rate per test")
    figure.tight_layout()
    rates_png = folder / "pass_rates.png"
    figure.savefig(rates_png, dpi=100)
    plt.close(figure)
    return [scores_png, rates_png]


def grade_table(grades: Grades) -> str:
    width = max([len(s["id"]) for s in grades.students] + [7])
    lines = [f"{'student':<{width}}  " + "  ".join(f"{a:>16}" for a in grades.assignments)]
    for student in grades.students:
        cells = []
        for assignment in grades.assignments:
            score = grades.scores.get((student["id"], assignment))
            cells.append(f"{'-' if score is None else f'{score[0]:g} / {score[1]:g}':>16}")
        lines.append(f"{student['id']:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)
