"""The instructor's grading tool around nbgrader: release, check, collect, autograde, feedback, report."""

import sys

from grader.paths import ensure_tools_on_path

# nbgrader's gradebook shells out to `alembic` from this environment; make that work without activating it.
ensure_tools_on_path()

# jsonschema (nbformat's validator) imports rfc3987_syntax when it is installed (Jupyter's event schemas ask for
# it), and that module builds 38 parsers at import: 1.3 s of CPU at the start of every grader process, for
# checking IRI strings, which no notebook schema the grader validates contains. A None entry makes the import
# fail at once, so jsonschema leaves that one format check out (in this process only; JupyterLab keeps it).
if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
