"""The test suite's CLI runner (tests/support/cli.py): a command run in process prints and exits
as the same command in a child process, and leaves the test process as it found it."""

from __future__ import annotations

import logging
import os
import signal
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

GOOD = str(ROOT / "examples" / "transcripts" / "good-eligible.json")


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),  # rich help at the test width
        ("check", "--no-such-option"),  # a usage error, exit 2
        ("check", "missing.json"),  # bad input, exit 2, one line naming the file
        ("rubric", "guide", "rubrics/refund_communication.yaml"),  # relative to the cwd
    ],
    ids=["help", "usage-error", "missing-file", "relative-path"],
)
def test_in_process_prints_and_exits_as_a_child_process(args: tuple[str, ...]) -> None:
    inside = run_cli(*args)
    child = run_cli(*args, process=True)
    assert (inside.code, inside.out, inside.err) == (child.code, child.out, child.err)


def test_a_command_leaves_the_test_process_as_it_found_it(tmp_path: Path) -> None:
    def state() -> tuple[object, ...]:
        root = logging.getLogger()
        return (
            os.getcwd(),
            dict(os.environ),
            sys.argv,
            sys.stdin,
            sys.stdout,
            sys.stderr,
            tempfile.tempdir,
            {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)},
            root.level,
            list(root.handlers),
        )

    before = state()
    store = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", "TMPDIR": str(tmp_path)}
    r = run_cli("check", GOOD, cwd=tmp_path, env=store)
    assert r.code == 0, r.err
    assert state() == before
