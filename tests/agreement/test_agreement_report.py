"""pairwise_report: long-format rows in, one criterion of `calibrant agree`'s JSON out."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibrant.agreement import (
    Scale,
    Undefined,
    ci_key,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    pairwise_report,
)

LABELS = ("poor", "ok", "good")


def _rows(seed: int, n_items: int = 60) -> list[tuple[str, str, str | None]]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    rows: list[tuple[str, str, str | None]] = []
    for rater in ("expert_a", "expert_b", "judge"):
        noisy = np.where(rng.random(n_items) < 0.7, truth, rng.integers(0, 3, n_items))
        for item in range(n_items):
            if rater == "expert_b" and item % 10 == 0:
                continue  # expert_b skipped some items
            label = "can't tell" if rater == "expert_a" and item % 13 == 0 else LABELS[noisy[item]]
            rows.append((f"t{item}", rater, label))
    return rows


def test_report_shape_and_values() -> None:
    rows = _rows(0)
    scale = Scale(labels=LABELS, level="ordinal")
    report = pairwise_report(rows, scale=scale, seed=1, n_resamples=300, missing={"can't tell"})
    out = report.as_criterion().json_data()
    json.dumps(out)  # serializable as is
    assert set(out) == {"n_items", "fleiss_kappa", "krippendorff_alpha", "pairs", "why_undefined"}
    assert out["why_undefined"] == {}  # every value is defined here
    assert out["n_items"] == 60
    pairs = out["pairs"]
    assert isinstance(pairs, list) and len(pairs) == 3
    assert [p["raters"] for p in pairs] == [
        ["expert_a", "expert_b"],
        ["expert_a", "judge"],
        ["expert_b", "judge"],
    ]
    for pair in pairs:
        assert set(pair) == {
            "raters",
            "n",
            "cohen_kappa",
            "weighted_kappa",
            "ci95",
            "weighted_kappa_ci95",
            "why_undefined",
        }
        assert pair["why_undefined"] == {}
        assert type(pair["cohen_kappa"]) is float and type(pair["weighted_kappa"]) is float
        lo, hi = pair["ci95"]
        assert type(lo) is float and lo <= pair["cohen_kappa"] <= hi
        # the weighted kappa has its own interval, not the unweighted one's
        wlo, whi = pair["weighted_kappa_ci95"]
        assert wlo <= pair["weighted_kappa"] <= whi and (wlo, whi) != (lo, hi)
    assert type(out["fleiss_kappa"]) is float and type(out["krippendorff_alpha"]) is float

    # values agree with the building blocks
    a = scale.encode([r[2] for r in rows if r[1] == "expert_a"], missing={"can't tell"})
    j = scale.encode([r[2] for r in rows if r[1] == "judge"])
    assert pairs[1]["cohen_kappa"] == cohen_kappa(a, j, k=3)
    assert pairs[1]["weighted_kappa"] == cohen_kappa(a, j, k=3, weights="linear")
    assert pairs[1]["n"] == 60 - 5  # expert_a abstained on items 0, 13, 26, 39, 52
    assert pairs[0]["n"] == 60 - 6 - 4  # expert_b skipped 0,10,...,50; plus 13, 26, 39, 52
    b_rows = {r[0]: r[2] for r in rows if r[1] == "expert_b"}
    b = scale.encode([b_rows.get(f"t{i}") for i in range(60)])
    matrix = np.vstack([a, b, j])
    assert out["fleiss_kappa"] == fleiss_kappa(matrix, k=3)
    assert out["krippendorff_alpha"] == krippendorff_alpha(matrix, k=3, level="ordinal")
    assert report.pairs[0].bootstrap.seed == 1 and report.pairs[0].bootstrap.n_resamples == 300


def test_nominal_report_has_no_weighted_kappa() -> None:
    rows = [
        (f"t{i}", r, "pass" if (i + (r == "b")) % 3 else "fail") for i in range(30) for r in "ab"
    ]
    report = pairwise_report(rows, seed=0, n_resamples=100)
    assert report.scale == Scale(labels=("fail", "pass"))
    assert isinstance(report.pairs[0].weighted_kappa, Undefined)
    out = report.as_criterion().json_data()
    assert out["pairs"][0]["weighted_kappa"] is None


def test_undefined_values_become_null() -> None:
    rows = [(f"t{i}", r, "pass") for i in range(5) for r in ("a", "b")]
    report = pairwise_report(rows, scale=Scale(labels=("fail", "pass")), seed=0)
    out = report.as_criterion().json_data()
    assert out["fleiss_kappa"] is None and out["krippendorff_alpha"] is None
    pair = out["pairs"][0]
    assert pair["cohen_kappa"] is None and pair["ci95"] is None and pair["n"] == 5


def test_every_undefined_value_says_why_and_whose_labels() -> None:
    # rater a used only 'pass', b used both labels: kappa is 0 by construction, defined;
    # raters a and c both used only 'pass': kappa undefined, and the reason names them
    rows = [(f"t{i}", "a", "pass") for i in range(6)]
    rows += [(f"t{i}", "b", "pass" if i % 2 else "fail") for i in range(6)]
    rows += [(f"t{i}", "c", "pass") for i in range(6)]
    rows += [("t9", "d", "fail")]  # d shares no item with anyone
    report = pairwise_report(rows, scale=Scale(labels=("fail", "pass")), seed=0)
    out = report.as_criterion().json_data()
    pairs = {tuple(p["raters"]): p for p in out["pairs"]}
    nominal = "weighted kappa is not applicable to a nominal scale"
    assert pairs[("a", "b")]["why_undefined"] == {"weighted_kappa": nominal}
    why = pairs[("a", "c")]["why_undefined"]
    assert pairs[("a", "c")]["cohen_kappa"] is None
    assert set(why) == {"cohen_kappa", "ci95", "weighted_kappa"}
    assert "a used only 'pass'" in why["cohen_kappa"] and "c used only 'pass'" in why["cohen_kappa"]
    assert "6 shared items" in why["cohen_kappa"] and "a used only 'pass'" in why["ci95"]
    d_why = pairs[("a", "d")]["why_undefined"]["cohen_kappa"]
    assert "no item rated by both a and d" in d_why


def test_clusters_and_confidence_key() -> None:
    rows = _rows(1, n_items=40)
    clusters = {f"t{i}": f"case{i // 4}" for i in range(40)}
    report = pairwise_report(
        rows,
        level="ordinal",
        scale=Scale(labels=LABELS, level="ordinal"),
        missing={"can't tell"},
        seed=2,
        n_resamples=200,
        confidence=0.9,
        clusters=clusters,
    )
    assert report.pairs[0].bootstrap.n_clusters == 10
    assert ci_key(0.9) == "ci90" and ci_key(0.95) == "ci95"
    assert "ci90" in report.pairs[0].as_pair().json_data()
    with pytest.raises(ValueError, match="no cluster"):
        pairwise_report(rows, seed=0, missing={"can't tell"}, clusters={"t0": "c"})
    with pytest.raises(ValueError, match="contradicts"):
        pairwise_report(rows, seed=0, scale=Scale(labels=LABELS), level="ordinal")
