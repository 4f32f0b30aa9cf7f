"""nbgrader configuration objects built from grader/settings/nbgrader_config.py plus per-run overrides."""

from __future__ import annotations

import logging
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from grader.paths import NBGRADER_CONFIG


def base_config() -> Config:
    """Load the course's nbgrader_config.py (the single place where course-wide settings live)."""
    loader = PyFileConfigLoader(NBGRADER_CONFIG.name, path=str(NBGRADER_CONFIG.parent))
    return loader.load_config()


def course_config(root: Path, source: Path, release: Path, db_url: str) -> Config:
    """A config whose paths point at the given folders; everything else comes from nbgrader_config.py."""
    config = base_config()
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.source_directory = str(source)
    config.CourseDirectory.release_directory = str(release)
    config.CourseDirectory.db_url = db_url
    config.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", ".grader-done"]
    config.Application.log_level = logging.WARNING
    exchange = root / ".grader" / "exchange"  # unused (no JupyterHub exchange), but nbgrader checks it exists
    exchange.mkdir(parents=True, exist_ok=True)
    config.Exchange.root = str(exchange)
    return config


def cache_schema_lookup() -> None:
    """nbgrader runs the ``alembic`` command (seconds each) whenever it creates a gradebook; the answer is
    fixed for the installed nbgrader, so ask once per process."""
    import functools

    import nbgrader.api

    if not hasattr(nbgrader.api.get_alembic_version, "cache_info"):
        nbgrader.api.get_alembic_version = functools.cache(nbgrader.api.get_alembic_version)


def share_gradebook_engines() -> None:
    """One SQLAlchemy engine per gradebook file in this process, instead of a new one for every opening.

    nbgrader opens the gradebook anew for nearly every step (a grading worker about nine times per notebook), and
    each new engine compiles every query again (SQLAlchemy keeps its compiled statements on the engine): most of
    a gradebook step's time.  nbgrader still disposes of the engine's connections when it closes the gradebook,
    so no connection outlives an opening and a gradebook file replaced between openings is read afresh."""
    import functools

    import nbgrader.api

    if not hasattr(nbgrader.api.create_engine, "cache_info"):
        nbgrader.api.create_engine = functools.lru_cache(maxsize=8)(nbgrader.api.create_engine)


def api_for(config: Config):
    """An NbGraderAPI bound to ``config`` (imported lazily: nbgrader pulls in a lot)."""
    cache_schema_lookup()
    share_gradebook_engines()
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    return NbGraderAPI(CourseDirectory(config=config), config=config)


def check_result(result: dict, what: str) -> None:
    """NbGraderAPI methods return failures instead of raising; turn them into an error."""
    from grader.paths import GraderError

    if not result.get("success"):
        detail = (result.get("error") or "") + "\n" + (result.get("log") or "")
        raise GraderError(f"{what} failed:\n{detail.strip()}")
