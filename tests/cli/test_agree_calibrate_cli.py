"""`calibrant agree` and `calibrant calibrate` as users run them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from calibrant.agreement import Scale, bootstrap_pairwise
from calibrant.files import load_labels
from tests.conftest import ROOT, Result
from tests.support.fake_openai import answer_from_schema, fake_openai

LABELS = ROOT / "gold" / "labels"


def test_agree_json_has_the_documented_shape(cli: Callable[..., Result]) -> None:
    r = cli(
        "agree",
        str(LABELS / "rater_a.jsonl"),
        str(LABELS / "rater_b.jsonl"),
        "--rubric",
        str(ROOT / "rubrics/refund_communication.yaml"),
        "--json",
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    a = {(x.item, x.criterion): x.label for x in load_labels(LABELS / "rater_a.jsonl")}
    b = {(x.item, x.criterion): x.label for x in load_labels(LABELS / "rater_b.jsonl")}
    for crit, c in doc["criteria"].items():
        assert set(c) >= {"n_items", "fleiss_kappa", "krippendorff_alpha", "pairs"}
        assert c["n_items"] == len({x.item for x in load_labels(LABELS / "consensus.jsonl")})
        [pair] = c["pairs"]
        assert set(pair) >= {"raters", "n", "cohen_kappa", "weighted_kappa", "ci95"}
        assert pair["raters"] == ["rater_a", "rater_b"] and pair["n"] == c["n_items"]
        keys = sorted(k for k in a if k[1] == crit)
        want = cohen_kappa_score([str(a[k]) for k in keys], [str(b[k]) for k in keys])
        assert abs(pair["cohen_kappa"] - want) < 1e-9
        lo, hi = pair["ci95"]
        assert lo <= pair["cohen_kappa"] <= hi
        if crit == "overall_clarity":
            assert isinstance(pair["weighted_kappa"], float)
            # the weighted kappa's own interval (issue 18), the one bootstrap_pairwise gives it
            own = bootstrap_pairwise(
                Scale(labels=(1, 2, 3, 4), level="ordinal").encode([a[k] for k in keys]),
                Scale(labels=(1, 2, 3, 4), level="ordinal").encode([b[k] for k in keys]),
                k=4,
                seed=0,
                statistic="weighted_kappa_linear",
            )
            assert pair["weighted_kappa_ci95"] == pytest.approx(list(own.ci))  # type: ignore[arg-type]
            assert pair["weighted_kappa_ci95"] != pair["ci95"]
        else:
            assert pair["weighted_kappa"] is None  # nominal
            assert pair["weighted_kappa_ci95"] is None


def test_agree_prints_the_weighted_kappa_with_its_own_interval(
    cli: Callable[..., Result],
) -> None:
    args = [str(LABELS / "rater_a.jsonl"), str(LABELS / "rater_b.jsonl")]
    rubric = ["--rubric", str(ROOT / "rubrics/refund_communication.yaml")]
    doc = json.loads(cli("agree", *args, *rubric, "--json").out)
    pair = doc["criteria"]["overall_clarity"]["pairs"][0]
    lo, hi = pair["weighted_kappa_ci95"]
    table = " ".join(cli("agree", *args, *rubric).out.split())
    assert "linear-weighted κ [95% CI]" in table
    assert f"{pair['weighted_kappa']:.2f} [{lo:.2f}, {hi:.2f}]" in table


def test_agree_accepts_csv_and_integer_labels(cli: Callable[..., Result], tmp_path: Path) -> None:
    f1, f2 = tmp_path / "x.csv", tmp_path / "y.jsonl"
    f1.write_text(
        "item,rater,criterion,label\n"
        + "".join(f"t{i},x,clarity,{v}\n" for i, v in enumerate([1, 2, 3, 4, 2, 3, 1, 4]))
    )
    f2.write_text(
        "".join(
            json.dumps({"item": f"t{i}", "rater": "y", "criterion": "clarity", "label": v}) + "\n"
            for i, v in enumerate([1, 2, 4, 4, 2, 3, 2, 4])
        )
    )
    r = cli("agree", str(f1), str(f2), "--level", "ordinal", "--json")
    pair = json.loads(r.out)["criteria"]["clarity"]["pairs"][0]
    want = cohen_kappa_score([1, 2, 3, 4, 2, 3, 1, 4], [1, 2, 4, 4, 2, 3, 2, 4], weights="linear")
    assert abs(pair["weighted_kappa"] - want) < 1e-9


def test_agree_undefined_is_null_not_zero(cli: Callable[..., Result], tmp_path: Path) -> None:
    f = tmp_path / "same.jsonl"
    f.write_text(
        "".join(
            json.dumps({"item": f"t{i}", "rater": r, "criterion": "c", "label": "pass"}) + "\n"
            for i in range(5)
            for r in "ab"
        )
    )
    doc = json.loads(cli("agree", str(f), "--json").out)
    c = doc["criteria"]["c"]
    assert c["pairs"][0]["cohen_kappa"] is None and c["pairs"][0]["ci95"] is None
    table = cli("agree", str(f))
    assert "undefined" in table.out


def test_calibrate_against_an_endpoint_writes_every_format_and_caches(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    with fake_openai(answer_from_schema(lambda c, labels: labels[-2])) as server:
        args = (
            "calibrate",
            "--model",
            "openai/constant",
            "--api-base",
            server.url,
            "--resamples",
            "500",
            "--split",
            "calibration",  # gold v2's held-out split awaits its annotators
        )
        r = cli(*args, "--json", "--html", str(html), "--markdown", str(md), env=env)
        assert r.code == 0, r.err
        doc = json.loads(r.out)
        n = doc["n_items"]
        assert doc["split"] == "calibration" and doc["run"]["model_calls"] == n
        waiting = set((ROOT / "gold" / "labeling" / "new_items.txt").read_text().split())
        left = set(doc["gold"]["unlabeled_items"])
        # items without labels (the labeling list; none once gold v2 was labeled) are set aside
        # and named; tests/gold/test_split.py plants an unlabeled item
        assert left == waiting
        again = json.loads(cli(*args, "--json", env=env).out)
        assert again["run"]["model_calls"] == 0 and again["run"]["from_cache"] == n
        table = cli(*args, "--fail-on-gate", env=env)
    assert table.code == 1 and "Judge release gate" in table.out
    assert {c["gate"]["status"] for c in doc["criteria"]} <= {"FAIL", "UNDECIDED"}
    for c in doc["criteria"]:
        assert c["coverage"]["n_items"] == n
        assert c["judge_vs_consensus"]["n"] <= n
    page = html.read_text()
    assert page.startswith("<!doctype html>") and "<svg" in page and "<script" not in page
    assert 'src="' not in page and 'href="' not in page  # self-contained: nothing to fetch
    assert "## Safety invariants" in md.read_text()
    assert doc["judge"]["hash"] and doc["rubric"]["hash"]
