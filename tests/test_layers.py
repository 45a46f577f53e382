"""The architecture is a contract: import-linter checks the contracts declared in pyproject.toml
(`[tool.importlinter]`) against the source, one test per contract, and a contract broken on
purpose in a copy of the source is reported by its name."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

PYPROJECT = ROOT / "pyproject.toml"
SOURCE = ROOT / "src" / "calibrant"
PACKS = {"calibrant_refunds": ROOT / "domains" / "refunds" / "src"}
"""The domain packs shipped beside the core (each import-linter's root package), by the folder
that holds each."""
CONTRACTS = {
    c["id"]: c["name"]
    for c in tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
}
pytestmark = pytest.mark.lint  # the lint tier (pytest -m lint)
_LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def lint(contract: str, src: Path, packs: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`lint-imports` for one contract, over the package `calibrant` found in `src` and its
    shipped packs found in `packs` (their own folders when None)."""
    path = [str(src), *([str(packs)] if packs else map(str, PACKS.values()))]
    return subprocess.run(
        [sys.executable, "-c", _LINT, "--no-cache", "--no-logo", "--contract", contract],
        cwd=ROOT,  # the contracts come from ./pyproject.toml
        env={**os.environ, "PYTHONPATH": os.pathsep.join(path), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("contract", sorted(CONTRACTS))
def test_the_source_keeps_the_contract(contract: str) -> None:
    r = lint(contract, SOURCE.parent)
    assert r.returncode == 0, f"contract broken: {CONTRACTS[contract]}\n{r.stdout}{r.stderr}"
    assert f"{CONTRACTS[contract]} KEPT" in r.stdout


# (contract, file under calibrant/, the line planted in it, what the report names)
PLANTED = [
    (
        "contracts-bottom",
        "contracts/case.py",
        "from ..files import load_case",
        "calibrant.contracts.case -> calibrant.files",
    ),
    (
        "faces-on-top",
        "service/app.py",
        "from ..cli import app as _cli",
        "calibrant.service.app -> calibrant.cli",
    ),
    (
        "faces-on-top",
        "cli/app.py",
        "from ..service import create_app as _service",
        "calibrant.cli.app -> calibrant.service",
    ),
    (
        "faces-independent",
        "cli/gold_commands.py",
        "from ..service.app import create_app as _service",
        "calibrant.cli.gold_commands -> calibrant.service.app",
    ),
    (
        "reports-render",
        "compare/trials.py",
        "from ..reports.trials import trial_report",
        "calibrant.compare.trials -> calibrant.reports.trials",
    ),
    ("no-cycles", "files/__init__.py", "from .. import gold", ".files -> .gold"),
    ("contracts-bottom", "newpkg/__init__.py", '"""A package no contract places."""', "newpkg"),
    (
        "core-imports-no-pack",
        "ops/check.py",
        "import calibrant_refunds",
        "calibrant.ops.check -> calibrant_refunds",
    ),
    (
        "core-tiers",
        "domains/pack.py",
        "from ..files import load_case",
        "calibrant.domains.pack -> calibrant.files",
    ),
    (
        "no-cycles-inside",
        "scoring/correction.py",
        "from . import summary",
        "No cycles are allowed in calibrant.scoring.",
    ),
    (
        "no-cycles-inside",
        "judge/embedded.py",
        "from . import llm_setup",
        "No cycles are allowed in calibrant.judge.",
    ),
    (
        "no-cycles-inside",
        "safety/registry.py",
        "from . import catalog",
        "No cycles are allowed in calibrant.safety.",
    ),
    (
        "safety-tiers",
        "safety/findings.py",
        "from . import registry",
        "calibrant.safety.findings -> calibrant.safety.registry",
    ),
    (
        "judge-reads-no-safety-internals",
        "judge/record_rows.py",
        "from ..safety import records",
        "calibrant.judge.record_rows -> calibrant.safety.records",
    ),
    (
        "independent-foundations",
        "agreement/gate.py",
        "from ..store import Store",
        "calibrant.agreement.gate -> calibrant.store",
    ),
    (
        "judge-apart-from-agreement",
        "agreement/gate.py",
        "from ..judge import config",
        "calibrant.agreement.gate -> calibrant.judge",
    ),
    (
        "independent-workflows",
        "monitor/model.py",
        "from ..probes import run",
        "calibrant.monitor.model -> calibrant.probes.run",
    ),
    (
        "independent-workflows",
        "scoring/units.py",
        "from ..calibration import run",
        "calibrant.scoring.units -> calibrant.calibration.run",
    ),
    (
        "independent-command-families",
        "cli/gold_commands.py",
        "from .judge_commands import rerun_note",
        "calibrant.cli.gold_commands -> calibrant.cli.judge_commands",
    ),
    (
        "independent-routes",
        "service/routes_catalog.py",
        "from .routes_runs import router as _runs",
        "calibrant.service.routes_catalog -> calibrant.service.routes_runs",
    ),
]


@pytest.mark.parametrize(("contract", "path", "line", "named"), PLANTED)
def test_a_broken_contract_is_named_with_the_import_that_breaks_it(
    tmp_path: Path, contract: str, path: str, line: str, named: str
) -> None:
    copy = tmp_path / "calibrant"
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for pack, folder in PACKS.items():
        shutil.copytree(
            folder / pack, tmp_path / pack, ignore=shutil.ignore_patterns("__pycache__")
        )
    target = copy / path
    target.parent.mkdir(parents=True, exist_ok=True)
    old = target.read_text() if target.exists() else ""
    target.write_text(old + "\n" + line + "\n")
    r = lint(contract, tmp_path, tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{CONTRACTS[contract]} BROKEN" in r.stdout
    assert named in r.stdout
