"""The repository keeps its promises: README commands, CI script, lint and types."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from calibrant.safety import registered
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def _commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    return [ln for b in blocks[:2] for ln in b.splitlines() if ln and not ln.startswith("#")]


def test_readme_opens_with_two_commands_and_ci_runs_the_test_one() -> None:
    main, tests = _commands()
    install = "python3 scripts/install.py "
    assert main.startswith(install + "local ") and main.endswith("calibrant calibrate")
    assert tests.startswith(install + "local,dev ") and tests.endswith("pytest -q")
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci.splitlines()


def test_the_safety_page_documents_every_invariant() -> None:
    safety = (ROOT / "docs" / "safety.md").read_text()
    for inv in registered():
        assert f"`{inv.name}`" in safety, inv.name


@pytest.mark.lint
def test_ruff_is_clean() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests", "domains", "scripts", ".ci"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.lint
def test_mypy_is_clean_on_src() -> None:
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_readme_links_point_at_files_that_exist() -> None:
    links = re.findall(r"\]\(((?:benchmarks|gold|examples|docs)/[^)#]+)\)", README)
    assert links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, missing
