"""Fixtures of the browser test: one JupyterLab (set up as on Binder) and one Debian Chromium per module."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from lab_server import RunningLab, prepare_home, start_lab
from playwright.sync_api import expect, sync_playwright

# As the machine's notes say: no first-run UI, no background traffic to Google's hosts (the network is closed).
CHROMIUM_FLAGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 120_000  # two busy cores: starting a kernel or rendering a figure can take a while


def chromium_or_stop() -> str:
    """Path of Debian's Chromium. Missing, the test fails in CI (CI=1) and is skipped elsewhere."""
    found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if found:
        return found
    message = (
        "Debian's Chromium is missing: install it with `apt-get install chromium chromium-driver` "
        "(`./run test` does this when run as root)"
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningLab]:
    home = tmp_path_factory.mktemp("binder") / "home"
    home.mkdir()
    prepare_home(home)
    running = start_lab(home)
    try:
        yield running
    finally:
        running.stop()
        print(f"\nJupyterLab log: {running.log_path}")


@pytest.fixture(scope="module")
def browser():
    executable = chromium_or_stop()
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    """A fresh browser profile and tab for each test."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    tab = context.new_page()
    try:
        yield tab
    finally:
        context.close()
