"""compare-trials' decisions: over whole cases, all figures together, never below the minimum."""

from __future__ import annotations

import pytest

from calibrant.compare.trials import TrialFacts, compare_trials


def _run(side: str, cases: int, *, fail_every: int, trials: int = 3) -> list[TrialFacts]:
    """Every trial succeeds, except in B the trials whose case + trial number is a multiple of
    `fail_every` (0: none)."""
    out = []
    for c in range(cases):
        for t in range(1, trials + 1):
            failed = side == "b" and fail_every and (c + t) % fail_every == 0
            out.append(
                TrialFacts(
                    case=f"case{c}",
                    trial=t,
                    case_hash=f"h{c}",
                    schedule="[]",
                    success=not failed,
                    violated=bool(failed),
                    permission_violation=False,
                    duplicate_write=bool(failed),
                    unresolved=False,
                    latency_ms=100.0 + 10 * c + t,
                    tool_calls=4.0,
                    cost_usd=0.01,
                    transcript_id=f"{side}{c}-{t}",
                )
            )
    return out


def test_a_clear_regression_on_enough_cases_is_called_worse_at_the_family_level() -> None:
    r = compare_trials(_run("a", 8, fail_every=0), _run("b", 8, fail_every=2), seed=1).json_data()
    ok = r["figures"]["success_rate"]
    assert ok["difference"] == pytest.approx(-0.5, abs=0.05) and ok["n_cases"] == 8
    assert ok["b_is"] == "worse" and "success_rate" in r["b_worse_on"]
    # 10 figures asked together: the first decision needs the 1 - 0.05/10 interval
    assert ok["familywise_confidence"] == pytest.approx(0.995)
    assert ok["familywise_ci"][1] < 0 and ok["ci95"][1] < 0
    assert r["min_cases"] == 6 and "Holm" in r["decision_rule"]
    same = r["figures"]["tool_calls_mean"]
    assert same["difference"] == 0 and same["b_is"] == "undecided" and same["cases_needed"] is None


def test_below_the_minimum_of_cases_nothing_is_decided_and_one_case_has_no_interval() -> None:
    r = compare_trials(_run("a", 3, fail_every=0), _run("b", 3, fail_every=2), seed=1).json_data()
    ok = r["figures"]["success_rate"]
    assert ok["b_is"] == "undecided" and ok["ci95"] is not None
    assert "below the minimum of 6 cases" in ok["reason"]
    assert r["b_worse_on"] == []
    assert r["regressed_cases"]  # the case listing still names them
    one = compare_trials(_run("a", 1, fail_every=0), _run("b", 1, fail_every=2), seed=1).json_data()
    fig = one["figures"]["success_rate"]
    assert fig["ci95"] is None and "1 case(s)" in fig["undefined_reason"]
    assert fig["b_is"] == "undecided"


def test_the_commands_state_the_libraries_minimum_of_cases() -> None:
    """The CLI help says [default: 6]: it must be the number the libraries use."""
    from calibrant.agreement.robustness import PROBE_MIN_CASES
    from calibrant.compare.paired import MIN_CASES
    from calibrant.probes import ProbeSettings

    assert MIN_CASES == PROBE_MIN_CASES == 6
    assert ProbeSettings(probes=(), families=()).min_cases == 6
