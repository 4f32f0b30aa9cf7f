"""One screenshot per step of a browser scenario, kept on disk for review (above all when a step fails)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page

REPO = Path(__file__).resolve().parents[2]


def screenshot_root() -> Path:
    """Where screenshots go: $BROWSER_SCREENSHOTS or artifacts/browser/ in the repository (ignored by git)."""
    return Path(os.environ.get("BROWSER_SCREENSHOTS", REPO / "artifacts" / "browser"))


class StepRecorder:
    """Names the steps of one scenario and photographs the page after each one, or at the moment it failed."""

    def __init__(self, page: Page, scenario: str) -> None:
        self.page = page
        self.folder = screenshot_root() / re.sub(r"[^A-Za-z0-9_.-]+", "-", scenario)
        shutil.rmtree(self.folder, ignore_errors=True)  # screenshots of an earlier run would mislead
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count = 0

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Run one step; the screenshot is taken whether the step passes or fails."""
        self.count += 1
        stem = f"{self.count:02d}-{name}"
        try:
            yield
        except BaseException:
            path = self.folder / f"{stem}-FAILED.png"
            self._shoot(path)
            print(f"\nbrowser step '{name}' failed; screenshot: {path}\nall screenshots: {self.folder}")
            raise
        self._shoot(self.folder / f"{stem}.png")

    def _shoot(self, path: Path) -> None:
        try:
            # Two animation frames: what the last step changed (a redrawn figure, say) has been painted.
            self.page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
            self.page.screenshot(path=str(path), full_page=False, timeout=60_000)
        except Exception as error:  # a crashed page must not hide the step's own error
            print(f"\nno screenshot {path}: {error}")
