"""formgrader on a term: JupyterLab started in the term folder with an ``nbgrader_config.py`` written for it.

nbgrader's formgrader reads ``nbgrader_config.py`` from the folder the server starts in and needs the course
root inside the server's root; anything else gives only "Sorry, the formgrader encountered an error" in the
browser.  ``grader formgrader`` writes the term's configuration, checks it the way formgrader will load it, and
says what is wrong before a browser ever opens.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from grader.paths import NBGRADER_CONFIG, GraderError, Term

CONFIG_TEXT = """# Written by `python -m grader formgrader` for formgrader on this term; rewritten on every start.
c = get_config()  # noqa: F821
load_subconfig({base!r})  # noqa: F821  (the course's settings)
c.CourseDirectory.root = {root!r}
c.CourseDirectory.source_directory = {source!r}
c.CourseDirectory.release_directory = {release!r}
c.CourseDirectory.db_url = {db_url!r}
c.Exchange.root = {exchange!r}
"""


def write_config(term: Term) -> Path:
    path = term.root / "nbgrader_config.py"
    path.write_text(
        CONFIG_TEXT.format(
            base=str(NBGRADER_CONFIG),
            root=str(term.root),
            source=str(term.solutions),
            release=str(term.release),
            db_url=term.db_url,
            exchange=str(term.state / "exchange"),
        )
    )
    return path


def check(term: Term) -> list[str]:
    """Load the term's configuration as formgrader does (from the term folder) and return what it finds."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    if not term.gradebook.exists():
        raise GraderError(f"no gradebook in {term.root}: the first `collect` creates the term; run it first")
    (term.state / "exchange").mkdir(parents=True, exist_ok=True)
    config_path = write_config(term)
    try:  # formgrader loads nbgrader_config.py from the folder the server starts in: load it the same way
        config = PyFileConfigLoader(config_path.name, path=str(term.root)).load_config()
        coursedir = CourseDirectory(config=config)
    except Exception as error:  # any failure here is what formgrader would hit: say it plainly
        raise GraderError(f"formgrader cannot load {config_path}: {error}") from None
    if Path(coursedir.root).resolve() != term.root:
        raise GraderError(f"{config_path} gives the course root {coursedir.root}, not the term {term.root}")
    if coursedir.db_url != term.db_url:
        raise GraderError(f"{config_path} names the gradebook {coursedir.db_url}, not {term.db_url}")
    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gradebook:
        assignments = sorted(a.name for a in gradebook.assignments)
        students = len(gradebook.students)
    missing = [a for a in assignments if not (term.release / a).is_dir()]
    if missing:
        raise GraderError(f"the term has no release copy of {', '.join(missing)}: run `collect` for it again")
    return [
        f"configuration: {config_path}",
        f"course root:   {term.root}",
        f"gradebook:     {term.gradebook} ({len(assignments)} assignment(s): {', '.join(assignments)}; "
        f"{students} student(s))",
    ]


def serve(term: Term, port: int, check_only: bool = False, open_browser: bool = False) -> int:
    """Check the term's configuration, then become JupyterLab on the term (returns only with ``check_only``)."""
    for line in check(term):
        print(line)
    if check_only:
        print("formgrader can run on this term: `grader formgrader` starts it")
        return 0
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        f"--ServerApp.root_dir={term.root}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.default_url=/formgrader",
        *([] if open_browser else ["--no-browser"]),
        *(["--allow-root"] if os.geteuid() == 0 else []),
    ]
    print(f"formgrader: http://127.0.0.1:{port}/formgrader (the server prints the address with its token below)")
    print("grade by hand there; autograde with `grader autograde`, not formgrader's button (that runs no sandbox)")
    sys.stdout.flush()
    os.chdir(term.root)  # formgrader reads nbgrader_config.py from the folder the server starts in
    os.execv(sys.executable, command)  # the server in this process: Ctrl-C and SIGTERM reach it directly
