"""The second domain pack, travel rebooking (domains/travel/), has its own suite, and CI covers
it: its declaration through a real entry point, its service's mechanisms, and every scripted
agent on every case. The suite is collected with calibrant's own (one test per item, spread over
the workers, not one child process running it all); this checks that it stays collected."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import ROOT

PACK_TESTS = "domains/travel/tests"


def test_the_travel_packs_own_suite_is_part_of_calibrants() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    pytest_ini = options["pytest"]["ini_options"]
    assert PACK_TESTS in pytest_ini["testpaths"]
    assert "domains/travel/src" in pytest_ini["pythonpath"]  # CI installs calibrant only
    assert sorted((ROOT / PACK_TESTS).glob("test_*.py")), "the pack's suite has no test files"
    # CI runs the README's test command, which names no path: the testpaths above are its run
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = re.search(r"\.venv/bin/python -m pytest([^\n&|;]*)", ci)
    assert command is not None and command.group(1).strip() in ("", "-q"), command
