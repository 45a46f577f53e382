"""Outside audit of the `trials` report's promises (issue 18): pass^k for every k with the
unbiased C(c, k) / C(n, k), per case and over cases; intervals over cases, none from one case."""

from __future__ import annotations

from collections.abc import Callable
from math import comb

import pytest

from calibrant.contracts import Transcript
from calibrant.reports.trials import trial_report
from calibrant.safety import check_transcript


def _mixed_case(trial: Callable[..., Transcript], passes: int, fails: int) -> list[Transcript]:
    """One case played `passes` times by the correct agent and `fails` times by a faulty one,
    as one agent whose trials of that case succeed `passes` times out of `passes + fails`."""
    out = []
    for i in range(passes + fails):
        agent = "scripted:correct" if i < passes else "scripted:retry-without-reconcile"
        t = trial("timeout_after_payment_commit", agent, trial=1)
        out.append(t.model_copy(update={"trial": i + 1}))
    return out


def test_pass_k_is_the_unbiased_estimator_for_every_k_per_case_and_overall(
    trial: Callable[..., Transcript],
) -> None:
    # 3 successes of 5 trials: pass^1 = 3/5, pass^2 = C(3,2)/C(5,2) = 3/10, pass^3 = 1/10, then 0
    mixed = _mixed_case(trial, 3, 2)
    good = [
        trial("eligible_damaged_order", "scripted:correct", trial=i).model_copy(update={"trial": i})
        for i in range(1, 6)
    ]
    pairs = [(t, check_transcript(t)) for t in mixed + good]
    assert sum(not v.violated for _, v in pairs[:5]) == 3  # the mix is what the test assumes
    r = trial_report(pairs, seed=0).json_data()
    by_case = {c["case"]: c for c in r["cases"]}
    want = [comb(3, k) / comb(5, k) for k in range(1, 6)]
    assert by_case["timeout_after_payment_commit"]["pass_k"] == pytest.approx(want)
    assert by_case["eligible_damaged_order"]["pass_k"] == pytest.approx([1.0] * 5)
    assert [p["k"] for p in r["pass_k"]] == [1, 2, 3, 4, 5]
    for p, w in zip(r["pass_k"], want, strict=True):
        assert p["value"] == pytest.approx((w + 1.0) / 2)  # the mean over the two cases
        assert p["n_cases"] == 2
        lo, hi = p["ci95"]
        assert lo <= p["value"] <= hi and hi - lo > 0
    # pass^n is the share of cases passing all n trials
    assert r["pass_k"][-1]["value"] == pytest.approx(r["pass_all_k"]["value"])


def test_one_case_gives_no_interval_however_many_trials(
    trial: Callable[..., Transcript],
) -> None:
    pairs = [(t, check_transcript(t)) for t in _mixed_case(trial, 4, 4)]
    r = trial_report(pairs, seed=0).json_data()
    assert r["success_rate"]["value"] == pytest.approx(0.5)
    assert r["success_rate"]["ci95"] is None
    assert "one case" in r["success_rate"]["undefined_reason"]
    for p in r["pass_k"]:
        assert p["ci95"] is None and p["n_cases"] == 1


def test_a_rare_failure_spread_thin_shows_a_wide_interval_in_the_summary(
    trial: Callable[..., Transcript],
) -> None:
    # 30 cases x 5 trials (one real case's trials, relabelled as 30 cases), 2 cases with one
    # failure each: 148/150. Two single failures look binomial, but a population whose failures
    # are lumped in a few cases makes samples like this; with fewer than 5 cases showing a
    # failure each case counts once (Wilson at 30 cases: lower bound about 0.86, not 0.96).
    from calibrant.reports.trials import summary_rows

    good = trial("timeout_after_payment_commit", "scripted:correct", trial=1)
    mixed = _mixed_case(trial, 4, 1)
    pairs = []
    for n in range(30):
        rows = mixed if n < 2 else [good.model_copy(update={"trial": i}) for i in range(1, 6)]
        for t in rows:
            verdict = check_transcript(t)  # checked as the case it played, then relabelled
            pairs.append((t.model_copy(update={"case_id": f"case-{n:02d}"}), verdict))
    r = trial_report(pairs, seed=0).json_data()
    rate = r["success_rate"]
    assert rate["value"] == pytest.approx(148 / 150) and rate["n"] == 150
    assert rate["n_cases"] == 30
    assert 0.85 < rate["ci95"][0] < 0.9
    shown = dict(summary_rows(r))["successes / trials"]
    assert shown.startswith("99% [86%, 100%]") or shown.startswith("99% [87%, 100%]"), shown
