"""report: grades as CSV for an LMS, and the two plots an instructor looks at first."""

from __future__ import annotations

import csv
import math
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from grader.paths import GraderError, Term
from grader.records.standing import Standing, standings


@dataclass
class Grades:
    students: list[dict]  # id, first_name, last_name, email, lms_user_id
    assignments: list[str]
    scores: dict[tuple[str, str], tuple[float, float]]  # (student, assignment) -> (final score, max)
    max_scores: dict[str, float]
    exercises: dict[str, dict[str, list[tuple[float, float]]]]  # assignment -> "notebook:test" -> [(score, max)]
    standing: dict[tuple[str, str], Standing] = field(default_factory=dict)
    notebooks: dict[str, dict[str, list[tuple[float, float]]]] = field(default_factory=dict)  # a -> nb -> [(s, max)]

    def flags(self, student: str) -> str:
        return " | ".join(
            f"{assignment}: {entry.flag_text()}"
            for (who, assignment), entry in sorted(self.standing.items())
            if who == student and entry.flags
        )


ROWS_PER_COLUMN = 36  # tests per column of pass_rates.png, so the figure fits a screen


def natural(text: str) -> list:
    """Sort key that puts ex2 before ex10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def read_grades(term: Term) -> Grades:
    """Final grades of finished submissions only (manual grades and late penalties included): a run cut off
    mid-way shows nothing half-done."""
    from nbgrader.api import Gradebook

    if not term.gradebook.exists():
        raise GraderError(f"no gradebook in {term.root}: run `collect` and `autograde` first")
    standing = standings(term)
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
        assignments = sorted((a.name for a in gradebook.assignments), key=natural)
        max_scores = {a.name: float(a.max_score) for a in gradebook.assignments}
        exercises: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
        notebooks: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
        for assignment in gradebook.assignments:
            for submission in assignment.submissions:
                if (submission.student.id, assignment.name) not in standing:
                    continue
                for notebook in submission.notebooks:
                    penalty = float(notebook.late_submission_penalty or 0)
                    notebooks[assignment.name][notebook.name].append(
                        (float(notebook.score) - penalty, float(notebook.max_score))
                    )
                    for grade in notebook.grades:
                        if grade.cell_type == "code" and grade.max_score:
                            label = f"{notebook.name}:{grade.name}"
                            exercises[assignment.name][label].append((float(grade.score), float(grade.max_score)))
    scores = {key: (entry.score, entry.max_score) for key, entry in standing.items()}
    return Grades(
        students,
        assignments,
        scores,
        max_scores,
        {a: dict(e) for a, e in exercises.items()},
        standing,
        {a: dict(n) for a, n in notebooks.items()},
    )


def write_csv(grades: Grades, path: Path) -> None:
    """One row per student; empty cells mean not submitted or not graded yet (an LMS keeps them open); the last
    column names every flag (late, refused notebooks, timeouts, manual review)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = ["id", "first_name", "last_name", "email", "lms_user_id"]
    for assignment in grades.assignments:
        header += [assignment, f"{assignment} (max)"]
    header += ["total", "total (max)", "flags"]
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
            row += [f"{total:g}", f"{sum(grades.max_scores.values()):g}", grades.flags(student["id"])]
            writer.writerow(row)


def write_statistics(grades: Grades, folder: Path) -> list[Path]:
    """tests.csv (per test: points, pass rate, mean) and notebooks.csv (per notebook: mean and median)."""
    folder.mkdir(parents=True, exist_ok=True)
    tests, notebooks = folder / "tests.csv", folder / "notebooks.csv"
    with tests.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["assignment", "notebook", "test", "points", "graded", "full marks", "pass rate", "mean"])
        for assignment in grades.assignments:
            for label, results in sorted(grades.exercises.get(assignment, {}).items(), key=lambda i: natural(i[0])):
                notebook, test = label.split(":", 1)
                full = sum(score >= top for score, top in results)
                mean = statistics.fmean(score for score, _ in results)
                writer.writerow(
                    [assignment, notebook, test, f"{results[0][1]:g}", len(results), full,
                     f"{full / len(results):.2f}", f"{mean:.2f}"]
                )  # fmt: skip
    with notebooks.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["assignment", "notebook", "points", "graded", "mean", "median"])
        for assignment in grades.assignments:
            for notebook, results in sorted(grades.notebooks.get(assignment, {}).items(), key=lambda i: natural(i[0])):
                values = [score for score, _ in results]
                writer.writerow(
                    [assignment, notebook, f"{results[0][1]:g}", len(values),
                     f"{statistics.fmean(values):.2f}", f"{statistics.median(values):g}"]
                )  # fmt: skip
    return [tests, notebooks]


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
        for exercise, results in sorted(grades.exercises.get(assignment, {}).items(), key=lambda i: natural(i[0])):
            labels.append(f"{assignment} · {exercise}" if len(graded) > 1 else exercise)
            rates.append(100.0 * sum(score >= top for score, top in results) / len(results))
    columns = max(1, math.ceil(len(labels) / ROWS_PER_COLUMN))  # a long course: side by side, one screen high
    rows = math.ceil(len(labels) / columns)
    figure, axes = plt.subplots(1, columns, figsize=(6.5 * columns, min(0.26 * rows + 1.2, 10)), squeeze=False)
    for column, axis in enumerate(axes[0]):
        part = slice(column * rows, (column + 1) * rows)
        axis.barh(labels[part], rates[part], color="#228833")
        axis.invert_yaxis()
        axis.set_xlim(0, 100)
        axis.tick_params(axis="y", labelsize=8 if rows > 20 else 10)
        axis.set_xlabel("% of graded submissions with full points")
    figure.suptitle("Pass rate per test (per-test figures: tests.csv)")
    figure.tight_layout()
    rates_png = folder / "pass_rates.png"
    figure.savefig(rates_png, dpi=100)
    plt.close(figure)
    return [scores_png, rates_png]


def grade_table(grades: Grades) -> str:
    """Final scores per student and assignment, with each student's flags."""
    width = max([len(s["id"]) for s in grades.students] + [7])
    lines = [f"{'student':<{width}}  " + "  ".join(f"{a:>16}" for a in grades.assignments) + "  flags"]
    for student in grades.students:
        cells = []
        for assignment in grades.assignments:
            score = grades.scores.get((student["id"], assignment))
            cells.append(f"{'-' if score is None else f'{score[0]:g} / {score[1]:g}':>16}")
        lines.append(f"{student['id']:<{width}}  " + "  ".join(cells) + f"  {grades.flags(student['id'])}".rstrip())
    return "\n".join(lines)
