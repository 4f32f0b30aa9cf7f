"""Grading without root: a loud warning, and only the time and memory limits (no own user, no namespaces).

The grader chooses this fallback by its effective user id, so the test runs the real command line as an
unprivileged user: ``setpriv`` to ``nobody`` where that user can reach the repository and the interpreter,
otherwise (an interpreter under /root) inside a user namespace that maps the grader to ``nobody``.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grader_fixtures.submissions import POINTS, autograded_notebook, build, grader_command, new_term, scores, submit

from grader.paths import REPO

pytestmark = pytest.mark.slow

HUGE_BUT_LAZY = "import numpy as np\nhuge = np.zeros(3 * 1024 ** 3, dtype=np.uint8)  # address space, no memory\n"
FOREVER = "while True:\n    pass\n"
WHO = "import os\nprint('kernel uid', os.getuid())\n"


def _as_nobody(home: Path) -> tuple[list[str], bool]:
    """A command prefix that runs as nobody, and whether nobody is a separate user there (not a mapping)."""
    nobody = pwd.getpwnam("nobody")
    switch = [
        "setpriv",
        f"--reuid={nobody.pw_uid}",
        f"--regid={nobody.pw_gid}",
        "--clear-groups",
        "env",
        f"HOME={home}",
    ]
    probe = subprocess.run([*switch, sys.executable, "-c", "import grader"], cwd=REPO, capture_output=True)
    if probe.returncode == 0:
        return switch, True
    # the interpreter or the checkout sits where other users cannot reach (e.g. under /root): map the grader
    # to nobody in a user namespace instead; it keeps access to its files but is not root to itself
    return [
        "unshare",
        "--user",
        f"--map-user={nobody.pw_uid}",
        f"--map-group={nobody.pw_gid}",
        "env",
        f"HOME={home}",
    ], False


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to switch to an unprivileged user")
def test_without_root_the_grader_warns_loudly_and_applies_only_time_and_memory_limits():
    nobody = pwd.getpwnam("nobody")
    root = Path(tempfile.mkdtemp(prefix="grader-unprivileged-"))
    os.chmod(root, 0o755)
    try:
        term = new_term(root / "term", ["honest", "limits"])
        submit(term, "honest", build(term))
        submit(
            term, "limits", build(term, after={"ex1-answer": HUGE_BUT_LAZY, "ex2-answer": FOREVER, "ex3-answer": WHO})
        )
        prefix, separate_user = _as_nobody(root)
        if separate_user:
            for folder, _, files in os.walk(root):
                for name in [folder, *(os.path.join(folder, f) for f in files)]:
                    os.lchown(name, nobody.pw_uid, nobody.pw_gid)
        command = grader_command(term, "autograde", "--quiet", "--workers", "2", "--timeout", "5", "--memory", "2048")
        result = subprocess.run([*prefix, *command], cwd=REPO, capture_output=True, text=True, timeout=900)

        assert result.returncode == 0, result.stdout + result.stderr
        assert "WARNING: not running as root" in result.stderr
        assert "only the time and memory limits apply" in result.stderr
        assert scores(term) == {"honest": POINTS, "limits": POINTS}
        cells = autograded_notebook(term, "limits").cells
        outputs = {
            c.source: "".join(o.get("text", "") + o.get("ename", "") for o in c.outputs)
            for c in cells
            if c.cell_type == "code"
        }
        assert "MemoryError" in outputs[HUGE_BUT_LAZY]  # 3 GB of address space > 2048 MB
        assert "CellTimeoutError" in outputs[FOREVER]  # the 5 s cell limit
        assert f"kernel uid {nobody.pw_uid}" in outputs[WHO]  # the grader's own user: no sandbox user
        assert '"isolate": false' in (term.state / "sandbox.json").read_text()  # no namespaces
    finally:
        shutil.rmtree(root, ignore_errors=True)
