"""The trusted kernel and the in-kernel guard are two defences with a switch each; both are on unless turned off."""

from __future__ import annotations

import pytest

from grader.commands.cli import build_parser
from grader.worker.execute import GuardedExecute


def test_autograde_runs_with_the_trusted_kernel_and_the_guard_by_default():
    args = build_parser().parse_args(["autograde"])
    assert (args.no_trusted_kernel, args.no_guard) == (False, False)
    execute = GuardedExecute()
    assert (execute.trusted_kernel, execute.guard) == (True, True)


@pytest.mark.parametrize(
    ("options", "off"),
    [
        (["--no-guard"], (False, True)),
        (["--no-trusted-kernel"], (True, False)),
        (["--no-guard", "--no-trusted-kernel"], (True, True)),
    ],
)
def test_each_switch_turns_off_only_its_own_defence(options, off):
    args = build_parser().parse_args(["autograde", *options])
    assert (args.no_trusted_kernel, args.no_guard) == off
