"""The offline path users run first: the embedded judge through the real prompt, the store and
the calibration report (slow: it runs SmolLM2-135M on the CPU)."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, Result

pytestmark = pytest.mark.slow


def test_judge_one_transcript_offline(cli: Callable[..., Result], tmp_path: Path) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    path = str(ROOT / "examples" / "transcripts" / "good-eligible.json")
    r = cli("judge", path, "--json", env=env)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    [j] = doc["transcripts"][0]["communication"]
    assert j["outcome"] == "verdict"  # constrained decoding: the answer always parses
    assert [c["criterion"] for c in j["criteria"]] == [
        "separates_done_from_pending",
        "explains_next_step",
        "no_claim_before_confirmed",
        "reports_access_problem",
        "overall_clarity",
    ]
    assert j["input_tokens"] > 1000 and j["output_tokens"] > 0 and j["cost_usd"] == 0.0
    assert doc["judge"]["model"] == "calibrant-local/smollm2-135m"
    again = json.loads(cli("judge", path, "--json", env=env).out)
    assert again["model_calls"] == 0 and again["from_cache"] == 1


def test_calibrate_offline_on_a_small_gold_subset(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    gold = tmp_path / "gold"
    (gold / "transcripts").mkdir(parents=True)
    (gold / "labels").mkdir()
    manifest = yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text())
    keep = sorted(manifest)[:6]
    for i in keep:
        shutil.copy(ROOT / "gold" / "transcripts" / f"{i}.json", gold / "transcripts")
    sub = {i: {**manifest[i], "split": "calibration"} for i in keep}
    (gold / "manifest.yaml").write_text(yaml.safe_dump(sub))
    for f in (ROOT / "gold" / "labels").glob("*.jsonl"):
        lines = [ln for ln in f.read_text().splitlines() if json.loads(ln)["item"] in keep]
        (gold / "labels" / f.name).write_text("\n".join(lines) + "\n")
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}"}
    r = cli("calibrate", "--gold", str(gold), "--json", "--resamples", "200", env=env)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["n_items"] == 6 and sum(doc["judge_outcomes"].values()) == 6
    assert doc["gate"]["judge"] in ("FAIL", "UNDECIDED")  # six items cannot pass a gate
    if doc.get("warnings"):
        assert any("embedded judge is weak" in w for w in doc["warnings"])
    for c in doc["criteria"]:
        assert c["coverage"]["n_items"] == 6
        assert c["gate"]["status"] in ("FAIL", "UNDECIDED")


def test_fit_a_label_prior_then_judge_with_it(cli: Callable[..., Result], tmp_path: Path) -> None:
    """`judges fit-prior` measures the real model's label probabilities on a gold split's
    transcripts and saves a judge that reads back; that judge answers with it."""
    gold = tmp_path / "gold"
    (gold / "transcripts").mkdir(parents=True)
    manifest = yaml.safe_load((ROOT / "gold" / "manifest.yaml").read_text())
    keep: dict[str, str] = {}  # one item from each of three cases
    for item, entry in sorted(manifest.items()):
        if entry["case"] not in keep.values() and len(keep) < 3:
            keep[item] = entry["case"]
    for i in keep:
        shutil.copy(ROOT / "gold" / "transcripts" / f"{i}.json", gold / "transcripts")
    (gold / "manifest.yaml").write_text(
        yaml.safe_dump({i: {**manifest[i], "split": "calibration"} for i in keep})
    )
    judges = tmp_path / "judges"
    judges.mkdir()
    env = {
        "CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}",
        "CALIBRANT_JUDGES_DIR": str(judges),
    }
    r = cli("judges", "fit-prior", "--gold", str(gold), "--out", "mine", env=env)
    assert r.code == 0, r.err  # a gold folder with no labels: the fit reads none
    assert "label prior fitted on 3 items from 3 cases" in r.err
    saved = yaml.safe_load((judges / "mine.yaml").read_text())
    assert saved["label_scoring"] == "fitted" and saved["label_prior"]["items"] == 3
    for criterion, labels in saved["label_prior"]["labels"].items():
        # the abstention is left out; the other labels' mean probabilities sum to one
        assert "insufficient_evidence" not in labels, criterion
        assert sum(math.exp(v) for v in labels.values()) == pytest.approx(1.0, abs=1e-3)
        assert f"{criterion}: " in r.out
    again = cli("judges", "fit-prior", str(gold / "transcripts"), "--out", "mine", env=env)
    assert again.code == 2 and "exists; give --force" in again.err
    path = str(ROOT / "gold" / "transcripts" / f"{next(iter(keep))}.json")
    doc = json.loads(cli("judge", path, "--judge", "mine", "--json", env=env).out)
    [j] = doc["transcripts"][0]["communication"]
    assert j["outcome"] == "verdict" and doc["judge"]["label_scoring"] == "fitted"
    listed = json.loads(cli("judges", "list", "--json", env=env).out)
    assert [row["name"] for row in listed] == ["mine"] and "error" not in listed[0]
