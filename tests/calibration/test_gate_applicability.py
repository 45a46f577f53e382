"""Issue 31, point 6, through `calibrate` as a user runs it: a judge that never says
not_applicable (equal to the experts where the criterion applies, "pass" wherever they say it
does not apply) is not PASSed, while a judge that also tells applicability as the experts do still
PASSes; the report shows the applicability part with its interval and its number of cases."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, Result

SHIPPED = ROOT / "gold"
CRIT = "explains_next_step"
RESAMPLES = "400"


def _na(item: str) -> bool:
    """About half the items do not apply (a fixed function of the item id)."""
    return hashlib.sha256(item.encode()).digest()[0] % 2 == 0


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The shipped gold's held-out split (its 96 cases: on the calibration split's 25, rubric
    1.1's consensus fails the criterion too rarely for the quality comparison alone to pass a
    judge equal to it), with `explains_next_step` allowing not_applicable:
    every rater calls about half the items not applicable, and expert rater_b disagrees with the
    others on applicability in one item out of sixteen (experts do not agree perfectly)."""
    dest = tmp_path_factory.mktemp("gold_na")
    manifest = yaml.safe_load((SHIPPED / "manifest.yaml").read_text())
    keep = sorted(k for k, v in manifest.items() if v["split"] == "heldout")
    (dest / "transcripts").mkdir(parents=True)
    (dest / "labels").mkdir()
    (dest / "manifest.yaml").write_text(yaml.safe_dump({k: manifest[k] for k in keep}))
    for k in keep:
        shutil.copy(SHIPPED / "transcripts" / f"{k}.json", dest / "transcripts")
    for f in (SHIPPED / "labels").glob("*.jsonl"):
        rows = []
        for line in f.read_text().splitlines():
            row = json.loads(line)
            if row["item"] not in keep:
                continue
            if row["criterion"] == CRIT:
                na = _na(row["item"])
                if (
                    row["rater"] == "rater_b"
                    and row["item"].endswith(("3", "7"))
                    and (int(row["item"][-2:]) % 4 == 3)
                ):
                    na = not na  # an applicability disagreement between the experts
                if na:
                    row["label"] = "not_applicable"
                elif row["label"] == "not_applicable":
                    row["label"] = "pass"
            rows.append(json.dumps(row))
        (dest / "labels" / f.name).write_text("\n".join(rows) + "\n")
    rubric = yaml.safe_load((ROOT / "rubrics" / "refund_communication.yaml").read_text())
    for c in rubric["criteria"]:
        if c["id"] == CRIT:
            c["not_applicable_when"] = "The conversation ended before any next step was due."
    (dest / "rubric.yaml").write_text(yaml.safe_dump(rubric, sort_keys=False))
    return {"gold": dest, "rubric": dest / "rubric.yaml"}


def _verdicts(gold: Path, path: Path, *, never_na: bool) -> Path:
    """The consensus's labels as a recorded judge; `never_na`: "pass" where it says n/a."""
    lines = ["item,criterion,label,judge_version"]
    for line in (gold / "labels" / "consensus.jsonl").read_text().splitlines():
        row = json.loads(line)
        label = row["label"]
        if never_na and label == "not_applicable":
            label = "pass"
        lines.append(f"{row['item']},{row['criterion']},{label},v1")
    path.write_text("\n".join(lines) + "\n")
    return path


def _calibrate(
    cli: Callable[..., Result], setup: dict[str, Path], tmp: Path, *, never_na: bool
) -> dict[str, Any]:
    verdicts = _verdicts(setup["gold"], tmp / "judged.csv", never_na=never_na)
    r = cli(
        "calibrate",
        "--verdicts",
        str(verdicts),
        "--rubric",
        str(setup["rubric"]),
        "--gold",
        str(setup["gold"]),
        "--split",
        "heldout",
        "--resamples",
        RESAMPLES,
        "--json",
        "--out",
        str(tmp / "report"),
        env={"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp / 'store.db'}"},
    )
    assert r.code in (0, 1), r.err
    report = json.loads(r.out)
    return next(c for c in report["criteria"] if c["criterion"] == CRIT)


def test_a_judge_that_never_says_not_applicable_is_not_passed(
    cli: Callable[..., Result], setup: dict[str, Path], tmp_path: Path
) -> None:
    c = _calibrate(cli, setup, tmp_path, never_na=True)
    # where the criterion applies it is the consensus, so the quality comparison alone passes it
    assert c["gate_comparison"]["difference"]["ci"][0] > -0.1
    assert c["gate_comparison"]["judge_side"]["ci"][0] >= 0.6
    assert c["coverage"]["coverage"] == 1.0
    gate = c["gate"]
    assert gate["status"] == "FAIL", gate["reasons"]
    assert gate["reasons"] == [
        f"applicability (applies / not_applicable): D's upper bound "
        f"{gate['applicability_difference_upper_bound']:+.2f} < -margin -0.10"
    ]
    assert gate["applicability_checked"] is True and gate["applicability_n_cases"] >= 8
    assert gate["applicability_difference_upper_bound"] < -0.1
    assert any(
        "applicability (applies / not_applicable): D's upper bound" in r for r in gate["reasons"]
    )
    app = c["not_applicable"]["judge_vs_experts"]
    assert app["judge_side"]["estimate"] == pytest.approx(0.0)  # it never says n/a: kappa 0
    md = (tmp_path / "report" / "report.md").read_text()
    assert "Applicability (applies / not_applicable), Cohen's κ: judge side" in md
    assert f"{app['n_cases']} cases)" in md


def test_a_judge_that_tells_applicability_as_the_experts_do_still_passes(
    cli: Callable[..., Result], setup: dict[str, Path], tmp_path: Path
) -> None:
    c = _calibrate(cli, setup, tmp_path, never_na=False)
    gate = c["gate"]
    assert gate["status"] == "PASS", gate["reasons"]
    lo, hi = (
        gate["applicability_difference_lower_bound"],
        gate["applicability_difference_upper_bound"],
    )
    assert -0.1 < lo <= hi and gate["applicability_n_cases"] >= 8
    app = c["not_applicable"]["judge_vs_experts"]
    assert app["difference"]["ci"] == [lo, hi] and app["n_cases"] == gate["applicability_n_cases"]
    assert any(
        "applicability (applies / not_applicable): D's lower bound" in r for r in gate["reasons"]
    )
