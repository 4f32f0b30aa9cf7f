"""The repository's address lives in one place, pyproject.toml's `[project.urls] Repository`.

`python -m grader release` writes the Binder link built from it into the README badge and the welcome lesson, and
warns while the address still names the placeholder account `OWNER` (a link no self-learner can open).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

PLACEHOLDER_ACCOUNT = "OWNER"
WELCOME_LESSON = "course/part1-tensors/01-welcome.ipynb"
BINDER_LINK = re.compile(r"https://mybinder\.org/v2/gh/[^)\s]+")


def repository_address(root: Path) -> str:
    """The GitHub address set in pyproject.toml, e.g. https://github.com/OWNER/tf-core-course."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    return str(project["urls"]["Repository"]).rstrip("/")


def binder_url(root: Path) -> str:
    """Binder's launch link for the repository's main branch, opening the welcome lesson."""
    match = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+)", repository_address(root))
    if match is None:
        raise ValueError(
            f"[project.urls] Repository should be https://github.com/<account>/<name>, not {repository_address(root)!r}"
        )
    account, name = match.groups()
    return f"https://mybinder.org/v2/gh/{account}/{name}/main?urlpath=lab/tree/{WELCOME_LESSON}"


def is_placeholder(root: Path) -> bool:
    return f"/{PLACEHOLDER_ACCOUNT}/" in repository_address(root) + "/"


def placeholder_warning(root: Path) -> str | None:
    """What `grader release` prints while the address is the placeholder, or None once it is set."""
    if not is_placeholder(root):
        return None
    return (
        f"warning: the repository's address is still the placeholder {repository_address(root)}: set "
        "[project.urls] Repository in pyproject.toml, or the Binder links lead nowhere"
    )


def _replace_links(text: str, url: str) -> str:
    return BINDER_LINK.sub(lambda _: url, text)


def write_binder_links(root: Path, solutions: Path) -> list[Path]:
    """Put the Binder link into the README badge and the welcome lesson's source; return the files changed."""
    url = binder_url(root)
    welcome = solutions / Path(WELCOME_LESSON).relative_to("course")
    changed: list[Path] = []
    readme = root / "README.md"
    if readme.is_file():
        text = readme.read_text()
        if _replace_links(text, url) != text:
            readme.write_text(_replace_links(text, url))
            changed.append(readme)
    if welcome.is_file():
        notebook = json.loads(welcome.read_text())
        touched = False
        for cell in notebook["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            lines = [_replace_links(line, url) for line in cell["source"]]
            if lines != cell["source"]:
                cell["source"], touched = lines, True
        if touched:
            welcome.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
            changed.append(welcome)
    return changed
