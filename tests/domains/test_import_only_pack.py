"""The example import-only pack (examples/import_only_pack): a pack with no simulator, built
from `calibrant.pack` alone. Loaded as pip would leave it (its folder on sys.path, its entry
point declared by `calibrant.pack.declared`), it passes its self-test from recorded
conversations and snapshots, and `calibrant import` + `check` on its recordings find the
breach its own invariant states; its import contract holds, and breaks when a module of it
reaches past `calibrant.pack`."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from calibrant.pack import declared
from tests.conftest import ROOT
from tests.support.cli import Result

Cli = Callable[..., Result]
EXAMPLE = ROOT / "examples" / "import_only_pack"
SRC = EXAMPLE / "src"
DATA = SRC / "calibrant_memberships" / "data"


@pytest.fixture(scope="module", autouse=True)
def example_pack() -> Iterator[None]:
    sys.path.insert(0, str(SRC))
    try:
        with declared({"memberships": "calibrant_memberships:pack"}):
            yield
    finally:
        sys.path.remove(str(SRC))
        for name in [m for m in sys.modules if m.split(".")[0] == "calibrant_memberships"]:
            del sys.modules[name]


def test_its_self_test_passes_from_recordings_alone(cli: Cli) -> None:
    r = cli("selftest", "--domain", "memberships")
    assert r.code == 0, r.out + r.err
    assert "5/5 self-test transcripts judged as expected" in r.out
    for name in ("good-cancel", "recorded-cancel-lapsed", "planted-was-lapsed"):
        assert name in r.out


def test_a_planted_fault_the_checker_misses_fails_the_self_test(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The self-test can fail: with the pack's rule made to always pass, the recorded breach
    and the planted one are reported as missed, exit 1."""
    from calibrant_memberships import invariants

    from calibrant.domains import refresh
    from calibrant.pack import build_corpus, check_entry, passed

    blind = dataclasses.replace(
        invariants.cancel_only_active, rule=lambda ev: passed("looked away")
    )
    monkeypatch.setattr(invariants, "INVARIANTS", (blind,))
    refresh()  # the runtime is built again, with the blind rule
    try:
        corpus = build_corpus(DATA / "cases", domain="memberships")
        missed = {e.name: check_entry(e)[1] for e in corpus}
        r = cli("selftest", "--domain", "memberships")
    finally:
        monkeypatch.undo()
        refresh()
    assert {name for name, problems in missed.items() if problems} == {
        "recorded-cancel-lapsed",
        "planted-was-lapsed",
    }
    assert missed["planted-was-lapsed"] == ["cancel_only_active: expected violated, got pass"]
    assert r.code == 1
    assert "3/5 self-test transcripts judged as expected" in r.out


def test_its_runtime_runs_no_trials_and_says_so(cli: Cli, tmp_path: Path) -> None:
    r = cli(
        "trials", str(DATA / "cases"), "--agent", "scripted:anything", "--out", str(tmp_path / "o")
    )
    assert r.code == 2
    assert "runs no trials" in r.err


def test_its_recordings_import_and_check(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "imported"
    recordings = DATA / "recordings"
    r = cli(
        "import", "chat", str(recordings / "cancel-active.json"),
        str(recordings / "cancel-lapsed.json"), "--domain", "memberships",
        "--cases", str(DATA / "cases"), "--snapshots", str(recordings / "snapshots"),
        "--out", str(out),
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "imported 2 trace(s) (chat) from 2 file(s)" in r.out
    r = cli("check", str(out), "--jsonl", "--fail-on-violation")
    assert r.code == 1, r.err  # a violation found
    found = {
        v["transcript_id"]: {x["invariant"]: x["outcome"] for x in v["results"]}
        for v in map(json.loads, r.out.splitlines())
        if "results" in v
    }
    assert len(found) == 2
    good = next(v for k, v in found.items() if "cancel-active" in k)
    bad = next(v for k, v in found.items() if "cancel-lapsed" in k)
    assert good["cancel_only_active"] == "pass"
    assert good["end_state_matches_contract"] == "pass"
    assert not [k for k, o in good.items() if o in ("violated", "harness_error")]
    assert bad["cancel_only_active"] == "violated"
    assert bad["end_state_matches_contract"] == "violated"


# --- the import contract: calibrant.pack and nothing else ----------------------------------------

CONFIG = EXAMPLE / "pyproject.toml"
_LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def _lint(example: Path) -> subprocess.CompletedProcess[str]:
    path = [str(example / "src"), str(ROOT / "src")]
    return subprocess.run(
        [sys.executable, "-c", _LINT, "--no-cache", "--no-logo"],
        cwd=example,  # the contract comes from the example's own pyproject.toml
        env={**os.environ, "PYTHONPATH": os.pathsep.join(path), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_contract_forbids_every_module_of_calibrant_but_the_public_one() -> None:
    [contract] = tomllib.loads(CONFIG.read_text())["tool"]["importlinter"]["contracts"]
    modules = {
        p.stem if p.suffix == ".py" else p.name
        for p in (ROOT / "src" / "calibrant").iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.name != "__init__.py"
    }
    assert {m.removeprefix("calibrant.") for m in contract["forbidden_modules"]} == modules - {
        "pack"
    }


@pytest.mark.lint
def test_the_example_imports_nothing_but_calibrant_pack(tmp_path: Path) -> None:
    r = _lint(EXAMPLE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "the pack imports nothing of calibrant but calibrant.pack KEPT" in r.stdout
    # a copy whose invariant reaches into calibrant's internals breaks it, naming the import
    copy = tmp_path / "example"
    shutil.copytree(EXAMPLE, copy)
    inv = copy / "src" / "calibrant_memberships" / "invariants.py"
    inv.write_text(inv.read_text() + "\nfrom calibrant.safety.registry import passed as _p\n")
    r = _lint(copy)
    assert r.returncode == 1
    assert "the pack imports nothing of calibrant but calibrant.pack BROKEN" in r.stdout
    assert "calibrant_memberships.invariants -> calibrant.safety.registry" in r.stdout
