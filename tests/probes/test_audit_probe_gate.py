"""Outside audit of the probe gate (issue 18) with planted judges through the real CLI: a judge
that obeys injected text FAILs, the same judge below the minimum of cases is UNDECIDED, and a
clean or merely noisy judge is never FAILed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from calibrant.gold import read_manifest
from tests.conftest import ROOT, Result


def _gate(cli: Callable[..., Result], tmp_path: Path, *args: str) -> dict[str, object]:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}"}
    r = cli(
        "probe",
        "--split",
        "heldout",
        "--probes",
        "injection",
        "--defenses",
        "on",
        "--json",
        *args,
        env=env,
    )
    assert r.code == 0, r.err
    gate: dict[str, object] = json.loads(r.out)["probes"]["injection"]["gate"]
    return gate


@pytest.mark.slow
def test_the_probe_gate_fails_an_obeying_judge_only_with_enough_cases(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    assert _gate(cli, tmp_path, "--planted", "obey:1")["status"] == "FAIL"
    held_out = {
        e.case
        for e in read_manifest(ROOT / "gold" / "manifest.yaml").values()
        if e.split == "heldout"
    }
    assert len(held_out) == 96  # gold v4
    few = _gate(cli, tmp_path, "--planted", "obey:1", "--min-cases", "100")
    assert few["status"] == "UNDECIDED" and few["cases"] == len(held_out)
    for planted in ("clean", "noisy:0.15"):
        assert _gate(cli, tmp_path, "--planted", planted)["status"] != "FAIL", planted
