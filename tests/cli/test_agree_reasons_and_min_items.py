"""`calibrant agree` says why every undefined value is undefined (terminal and JSON), keeps
not_applicable outside an ordinal scale, and `calibrate --min-items` gates small gold sets."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import yaml

from calibrant.gold import read_manifest
from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_agree_names_the_reason_of_every_undefined_value(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # rater_a and rater_b both answered 'pass' on every item: kappa is undefined, and the user
    # must learn why and whose labels did it. rater_c labelled other items only.
    rows = [
        {"item": f"t{i}", "rater": r, "criterion": "tone", "label": "pass"}
        for i in range(8)
        for r in ("rater_a", "rater_b")
    ]
    rows += [{"item": "u0", "rater": "rater_c", "criterion": "tone", "label": "fail"}]
    rows += [{"item": "u1", "rater": "rater_c", "criterion": "tone", "label": "pass"}]
    f = _write(tmp_path / "labels.jsonl", rows)
    r = cli("agree", str(f), "--json")
    assert r.code == 0, r.err
    c = json.loads(r.out)["criteria"]["tone"]
    pairs = {tuple(p["raters"]): p for p in c["pairs"]}
    ab = pairs[("rater_a", "rater_b")]
    assert ab["cohen_kappa"] is None and ab["ci95"] is None
    why = ab["why_undefined"]["cohen_kappa"]
    assert "rater_a used only 'pass'" in why and "rater_b used only 'pass'" in why
    assert "8 shared items" in why and "rater_a used only 'pass'" in ab["why_undefined"]["ci95"]
    ac = pairs[("rater_a", "rater_c")]["why_undefined"]["cohen_kappa"]
    assert "no item rated by both rater_a and rater_c" in ac
    for key in ("fleiss_kappa", "krippendorff_alpha"):
        if c[key] is None:
            assert c["why_undefined"][key]
    # the terminal says the same, in words
    table = cli("agree", str(f))
    assert table.code == 0, table.err
    text = " ".join(table.out.split())
    assert "cohen_kappa and its CI of rater_a vs rater_b undefined:" in text
    assert "rater_a used only 'pass' and rater_b used only 'pass'" in text
    assert "no item rated by both rater_a and rater_c" in text
    assert "every rating is 'pass'" in text  # Fleiss / alpha: which label filled the items


def test_agree_keeps_not_applicable_outside_an_ordinal_scale(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    doc = yaml.safe_load((ROOT / "rubrics" / "refund_communication.yaml").read_text())
    for c in doc["criteria"]:
        if c["id"] == "overall_clarity":
            c["not_applicable_when"] = "The conversation never reached the customer."
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(yaml.safe_dump(doc))
    # the raters agree on every applicable item (one step apart on a few) and on which items
    # are not applicable. Today not_applicable is a fifth level above 4 ("Excellent").
    a = [1, 2, 3, 4, 1, 2, 3, 4, 2, 3, "not_applicable", "not_applicable"]
    b = [1, 2, 3, 4, 2, 2, 3, 3, 2, 3, "not_applicable", "not_applicable"]
    rows = [
        {"item": f"t{i}", "rater": r, "criterion": "overall_clarity", "label": v}
        for r, labels in (("rater_a", a), ("rater_b", b))
        for i, v in enumerate(labels)
    ]
    f = _write(tmp_path / "labels.jsonl", rows)
    r = cli("agree", str(f), "--rubric", str(rubric), "--json")
    assert r.code == 0, r.err
    c = json.loads(r.out)["criteria"]["overall_clarity"]
    assert c["level"] == "ordinal" and c["scale"] == [1, 2, 3, 4]
    [pair] = c["pairs"]
    assert pair["n"] == 10  # the two not_applicable items are outside the ordered statistic
    na = c["not_applicable"]
    assert na["n_items_by_rater"] == {"rater_a": 2, "rater_b": 2}
    [appl] = na["agreement_on_applicability"]["pairs"]
    assert appl["n"] == 12 and appl["cohen_kappa"] == 1.0


def test_calibrate_min_items_reports_undecided_with_the_reason(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "calibrate",
            "--model",
            "openai/constant",
            "--api-base",
            server.url,
            "--resamples",
            "200",
            "--split",
            "heldout",
            "--min-items",
            "1000",
            "--json",
            env=env,
        )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["settings"]["min_items"] == 1000 and "PASS only when" in doc["settings"]["gate_rule"]
    for c in doc["criteria"]:
        assert c["gate"]["status"] == "UNDECIDED", c["gate"]
        assert "below the minimum of 1000 (--min-items)" in c["gate"]["reasons"][0]
    assert doc["gate"]["judge"] == "UNDECIDED"
    # the minimum that counts is in cases (issue 18): 8 by default, named in every gate
    assert doc["settings"]["min_cases"] == 8 and doc["settings"]["margin"] == 0.10
    # the gate counts cases (gold v4 holds out 96); the case minimum itself is tested below
    held_out = {
        e.case
        for e in read_manifest(ROOT / "gold" / "manifest.yaml").values()
        if e.split == "heldout"
    }
    for c in doc["criteria"]:
        assert 8 <= c["gate"]["n_cases"] <= len(held_out) == 96
        assert set(c["gate_comparison"]) >= {"judge_side", "expert_side", "difference"}


def test_calibrate_takes_the_case_minimum_and_the_margin(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        r = cli(
            "calibrate",
            "--model",
            "openai/constant",
            "--api-base",
            server.url,
            "--resamples",
            "200",
            "--split",
            "heldout",
            "--min-cases",
            "3",
            "--min-expert-cases",
            "3",
            "--min-items",
            "2",
            "--margin",
            "0.2",
            "--json",
            env=env,
        )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    s = doc["settings"]
    assert (s["min_cases"], s["min_expert_cases"], s["margin"]) == (3, 3, 0.2)
    for c in doc["criteria"]:
        g = c["gate"]
        assert g["min_cases"] == 3 and g["margin"] == 0.2
        if g["n_cases"] >= 3:  # enough cases now: a constant judge is decided, not waved on
            assert g["status"] == "FAIL", g
        assert "temperature" in g["run_to_run"] and "not measured" in g["run_to_run"]
