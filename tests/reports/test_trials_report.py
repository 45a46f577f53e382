"""The trial report's figures count cases: pass^k for every k, intervals that resample cases,
and reports written by the previous version still render."""

from __future__ import annotations

import io
from math import comb

import pytest
from rich.console import Console

from calibrant.agreement.clustered import clustered_proportion, pass_hat_k
from calibrant.reports.trials import render_trial_report, summary_rows, trial_markdown


def test_pass_hat_k_is_the_unbiased_estimate_from_c_of_n() -> None:
    # 3 successes of 5 trials: pass^1 = 3/5, pass^2 = C(3,2)/C(5,2) = 3/10, pass^3 = 1/10,
    # pass^4 = pass^5 = 0 (no 4 successes to choose from)
    assert [pass_hat_k(3, 5, k) for k in range(1, 6)] == pytest.approx([0.6, 0.3, 0.1, 0, 0])
    assert pass_hat_k(5, 5, 5) == 1.0
    assert pass_hat_k(3, 5, 6) is None
    # unbiased: averaging over Binomial(n, p) outcomes gives p^k exactly
    p, n, k = 0.7, 5, 3
    mean = sum(comb(n, c) * p**c * (1 - p) ** (n - c) * pass_hat_k(c, n, k) for c in range(n + 1))
    assert mean == pytest.approx(p**k)


def test_a_success_rate_interval_counts_cases_not_trials() -> None:
    # 10 cases x 5 trials, all-or-nothing by case: 5 cases always succeed, 5 always fail.
    # Over trials (Wilson, n = 50) the interval would be about [0.37, 0.63]; by case there
    # are 10 units, and the interval is as wide as ten coin flips: about [0.2, 0.8].
    fig = clustered_proportion([5] * 5 + [0] * 5, [5] * 10, seed=1)
    assert fig.value == 0.5 and fig.n == 50 and fig.n_cases == 10
    lo, hi = fig.ci95  # type: ignore[misc]
    assert lo < 0.25 and hi > 0.75
    # the same 25 successes spread evenly (every case 2 or 3 of 5): nearer the trial count
    even = clustered_proportion([2, 3] * 5, [5] * 10, seed=1)
    assert even.ci95[1] - even.ci95[0] < 0.8 * (hi - lo)  # type: ignore[index]


def test_every_trial_succeeding_is_not_certainty_and_one_case_has_no_interval() -> None:
    fig = clustered_proportion([5] * 10, [5] * 10)
    assert fig.value == 1.0
    # nothing to measure the spread between cases with: the floor counts each case once
    assert fig.ci95 is not None and 0.6 < fig.ci95[0] < 0.8 and fig.ci95[1] == 1.0
    one = clustered_proportion([40], [40])
    assert one.value == 1.0 and one.ci95 is None and one.n_cases == 1
    assert "one case" in (one.undefined_reason or "")
    assert "one case" in one.text()  # said, not printed as an interval
    assert clustered_proportion([], []).value is None


def test_a_rare_failure_spread_thin_does_not_make_the_rate_look_certain() -> None:
    # 30 cases x 5 trials, 28 cases 5/5 and 2 cases 4/5: 148/150 = 0.987. Two single failures
    # look binomial (deff about 1, so a trial-count interval was [0.963, 1.0]), but a
    # population whose failures come lumped in a few cases (mean 0.95, intra-case correlation
    # 0.6) gives samples like this one time in eleven. With fewer than 5 cases showing a
    # failure the spread is not measured: each case counts once (Wilson at 30: about 0.865).
    fig = clustered_proportion([5] * 28 + [4] * 2, [5] * 30, seed=3)
    assert fig.value == pytest.approx(148 / 150) and fig.n == 150 and fig.n_cases == 30
    lo, hi = fig.ci95  # type: ignore[misc]
    assert 0.85 < lo < 0.9 and hi == pytest.approx(1.0, abs=0.01)
    # with failures in 6 cases the spread is measured again: the interval is narrower
    spread = clustered_proportion([5] * 24 + [4] * 6, [5] * 30, seed=3)
    assert spread.ci95[0] > lo  # type: ignore[index]


VERSION_1 = {
    "schema_version": 1,
    "provenance": {"agent": "scripted:correct", "agent_version": "scripted-1", "seed": 0},
    "trials": 4,
    "success_rate": {
        "value": 0.75,
        "n": 4,
        "ci95": [0.3, 0.95],
        "method": "wilson",
        "undefined_reason": None,
    },
    "cases": [
        {
            "case": "a",
            "tags": ["regression"],
            "trials": 2,
            "successes": 1,
            "passed_all": False,
            "passed_first": True,
            "violated": {"no_duplicate_payment": 1},
            "harness_errors": 0,
        }
    ],
}
for key in (
    "pass_all_k",
    "pass_first_trial",
    "permission_violations",
    "duplicate_writes",
    "unresolved_outcomes",
    "harness_incidents",
    "latency_ms_mean",
    "latency_ms_p95",
    "tool_calls_mean",
    "cost_usd_per_accepted_outcome",
):
    VERSION_1[key] = dict(VERSION_1["success_rate"])  # type: ignore[arg-type]
VERSION_1["by_tag"] = {"regression": VERSION_1["success_rate"]}


def test_a_report_of_the_previous_version_still_renders() -> None:
    out = io.StringIO()
    render_trial_report(Console(file=out, width=200), VERSION_1)
    text = out.getvalue()
    assert "cases passing all k trials (pass^k)" in text and "75% [30%, 95%] (n=4)" in text
    assert "older calibrant" in text
    md = trial_markdown(VERSION_1)
    assert "| successes / trials | 75% [30%, 95%] (n=4) |" in md
    assert "| a | regression | 1/2 | — | no | yes | no_duplicate_payment×1 |" in md
    assert [name for name, _ in summary_rows(VERSION_1)][:2] == [
        "successes / trials",
        "cases passing all k trials (pass^k)",
    ]
