"""Normalised notebook files: the same source must always give byte-identical student notebooks."""

from __future__ import annotations

from pathlib import Path

import nbformat

#: Cell metadata that means something to students or to nbgrader; everything else is editor state.
KEPT_CELL_METADATA = ("deletable", "editable", "nbgrader", "tags")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop outputs, execution counts and volatile metadata so regeneration is byte-stable."""
    nb.metadata = nbformat.from_dict({"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}})
    for cell in nb.cells:
        kept = {key: cell.metadata[key] for key in KEPT_CELL_METADATA if key in cell.metadata}
        cell.metadata = nbformat.from_dict(kept)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.pop("attachments", None) if cell.cell_type == "code" else None
    return nb


def dumps(nb: nbformat.NotebookNode) -> str:
    """nbformat's canonical JSON (sorted keys, indent 1) with a final newline."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def normalise_file(path: Path) -> None:
    """Rewrite a notebook file in normalised form (only if its bytes change, to keep mtimes quiet)."""
    nb = nbformat.read(path, as_version=4)
    text = dumps(normalise(nb))
    if path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
