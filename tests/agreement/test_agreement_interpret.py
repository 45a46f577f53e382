"""Landis-Koch bands, items_needed, and the abstention report."""

from __future__ import annotations

import numpy as np
import pytest

from calibrant.agreement import (
    ABSTAIN_LABEL,
    Scale,
    Undefined,
    abstention_report,
    bootstrap_pairwise,
    cohen_kappa,
    items_needed,
    landis_koch_band,
)


@pytest.mark.parametrize(
    ("ci", "band"),
    [
        ((-0.4, -0.05), "poor"),
        ((0.0, 0.2), "slight"),
        ((0.25, 0.38), "fair"),
        ((0.41, 0.6), "moderate"),
        ((0.62, 0.78), "substantial"),
        ((0.81, 1.0), "almost perfect"),
        ((0.55, 0.65), None),  # straddles moderate / substantial
        ((-0.1, 0.1), None),  # straddles poor / slight
        ((0.1, 0.9), None),
    ],
)
def test_band_only_when_whole_interval_in_one_band(
    ci: tuple[float, float], band: str | None
) -> None:
    assert landis_koch_band(ci) == band


def test_band_of_undefined_or_bootstrap_result() -> None:
    assert landis_koch_band(Undefined("no data")) is None
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 2000)
    y = np.where(rng.random(2000) < 0.95, x, 1 - x)  # kappa ~ 0.9 with a narrow CI
    result = bootstrap_pairwise(x, y, k=2, seed=0, n_resamples=500)
    assert landis_koch_band(result) == "almost perfect"
    with pytest.raises(ValueError, match="exceeds"):
        landis_koch_band((0.5, 0.4))


def test_items_needed_scales_with_inverse_square_of_width() -> None:
    # width ~ 1/sqrt(n): halving the width needs 4x the items
    assert items_needed(observed_width=0.2, n=100, target_width=0.1) == 400
    assert items_needed(observed_width=0.2, n=100, target_width=0.05) == 1600
    # (0.3/0.1)^2 is 9.000000000000002 in floating point: still 900, not 901
    assert items_needed(observed_width=0.3, n=100, target_width=0.1) == 900
    assert items_needed(observed_width=0.1, n=100, target_width=0.2) == 25
    assert isinstance(items_needed(observed_width=0.0, n=100, target_width=0.1), Undefined)
    with pytest.raises(ValueError):
        items_needed(observed_width=0.1, n=0, target_width=0.1)
    with pytest.raises(ValueError):
        items_needed(observed_width=0.1, n=10, target_width=0.0)


def test_abstention_report_by_hand() -> None:
    scale = Scale(labels=("fail", "pass"))
    p, f, cant, ie = "pass", "fail", "can't tell", "insufficient_evidence"
    expert = [p, p, f, f, cant, p, f, p, None, p]
    judge = [p, f, f, ie, p, p, f, p, p, ie]
    report = abstention_report(expert, judge, scale=scale, abstain={cant, ie})
    # item 9 has no expert label: dropped. 9 items remain; abstentions at items 4, 5, 10.
    assert report.n_items == 9
    assert report.n_covered == 6
    assert report.coverage == pytest.approx(6 / 9)
    assert report.judge_coverage == pytest.approx(7 / 9)
    assert report.reference_coverage == pytest.approx(8 / 9)
    # covered pairs: (p,p) (p,f) (f,f) (p,p) (f,f) (p,p) -> 5/6 agree
    # rows (fail 2, pass 4), cols (fail 3, pass 3): p_e = (2*3 + 4*3)/36 = 0.5
    # kappa = (5/6 - 1/2) / (1/2) = 2/3
    assert report.covered_percent_agreement == pytest.approx(5 / 6)
    assert report.covered_kappa == pytest.approx(2 / 3)
    assert isinstance(report.covered_weighted_kappa, Undefined)
    # with abstention as a third category: 5 agreements of 9
    assert report.with_abstention_percent_agreement == pytest.approx(5 / 9)
    expert_codes = [1, 1, 0, 0, 2, 1, 0, 1, 1]
    judge_codes = [1, 0, 0, 2, 1, 1, 0, 1, 2]
    assert report.with_abstention_kappa == cohen_kappa(expert_codes, judge_codes, k=3)
    assert report.labels_with_abstention == ("fail", "pass", ABSTAIN_LABEL)
    assert report.confusion_with_abstention.shape == (3, 3)
    as_dict = report.as_abstention().json_data()
    assert as_dict["covered_weighted_kappa"] is None
    assert as_dict["confusion_with_abstention"] == report.confusion_with_abstention.tolist()


def test_abstention_report_single_code_and_ordinal_scale() -> None:
    scale = Scale(labels=(1, 2, 3, 4), level="ordinal")
    expert = [1, 2, 3, 4, 4, 2]
    judge = [1, 3, 3, 0, 4, 1]  # 0 is the judge's abstention code
    report = abstention_report(expert, judge, scale=scale, abstain=0)
    assert report.n_covered == 5
    assert report.covered_weighted_kappa == cohen_kappa(
        [0, 1, 2, 3, 1], [0, 2, 2, 3, 0], k=4, weights="linear"
    )


def test_abstention_report_validation() -> None:
    scale = Scale(labels=("fail", "pass"))
    with pytest.raises(ValueError, match="also on the scale"):
        abstention_report(["pass"], ["pass"], scale=scale, abstain="pass")
    with pytest.raises(ValueError, match="not on the scale"):
        abstention_report(["pass"], ["maybe"], scale=scale, abstain="unsure")
    with pytest.raises(ValueError, match="differ in length"):
        abstention_report(["pass"], [], scale=scale, abstain="unsure")
    everything_abstained = abstention_report(
        ["unsure", "pass"], ["pass", "unsure"], scale=scale, abstain="unsure"
    )
    assert everything_abstained.coverage == 0.0
    assert isinstance(everything_abstained.covered_kappa, Undefined)
