"""Two agent versions on the same cases: paired trial by trial, with a paired interval for every
difference and the cases that regressed.

Trials pair when they ran the same case (same case contract, by hash) under the same fault
schedule with the same trial number, so both versions faced the same user script and the same
faults. Differences are B minus A; their 95% intervals resample whole cases (the trials of one
case share its fixture and its faults, so they are not independent): BCa over cases united with
the cluster jackknife t with G - 1 df (:mod:`calibrant.agreement.familywise`). "B is better/worse"
is decided over all figures at once by Holm's rule (:data:`DECISION_RULE`), never on fewer than
``min_cases`` cases.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..agreement.familywise import (
    DEFAULT_ALPHA,
    METHOD,
    Call,
    CaseEstimate,
    SumsStatistic,
    case_estimate,
    cases_needed,
    holm,
)
from ..agreement.resample import bootstrap_indices
from ..agreement.undefined import Undefined
from ..contracts import SafetyVerdict, Transcript
from ..contracts.reports import TRIALS_SCHEMA_VERSION, TrialFigure, TrialsReport
from ..contracts.reports.compare import CaseChange, Sides
from ..safety.outcomes import DUPLICATES, PERMISSION, outcome_uncertain, succeeded
from .paired import MIN_CASES

__all__ = ["DECISION_RULE", "TrialFacts", "facts", "compare_trials", "PairingError"]

DECISION_RULE = (
    "B better (worse) on a figure only when the interval of B - A over whole cases lies on the "
    "better (worse) side of zero at Holm's family-wise level (95% across all figures together), "
    "and only with at least min_cases paired cases"
)


class PairingError(ValueError):
    """The two runs cannot be compared (a case changed, or nothing pairs)."""


@dataclass(frozen=True)
class TrialFacts:
    """What one trial showed, as numbers a comparison can difference."""

    case: str
    trial: int
    case_hash: str | None
    schedule: str  # the fault schedule, canonical JSON
    success: bool
    violated: bool
    permission_violation: bool
    duplicate_write: bool
    unresolved: bool
    latency_ms: float
    tool_calls: float
    cost_usd: float | None
    transcript_id: str

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.case, self.schedule, self.trial)


def facts(t: Transcript, v: SafetyVerdict) -> TrialFacts:
    names = {r.invariant for r in v.violated}
    return TrialFacts(
        case=t.case_id,
        trial=t.trial,
        case_hash=t.provenance.case_hash,
        schedule=json.dumps(
            [f.model_dump(mode="json") for f in t.provenance.fault_schedule], sort_keys=True
        ),
        success=succeeded(v),
        violated=bool(v.violated),
        permission_violation=bool(names & set(PERMISSION)),
        duplicate_write=bool(names & set(DUPLICATES)),
        unresolved=bool(v.harness_errors) or outcome_uncertain(t),
        latency_ms=float(t.metrics.latency_ms),
        tool_calls=float(t.metrics.tool_calls),
        cost_usd=t.metrics.cost_usd,
        transcript_id=t.transcript_id,
    )


# name -> (per-trial value, better when higher)
TRIAL_FIGURES: dict[str, tuple[Callable[[TrialFacts], float], bool]] = {
    "success_rate": (lambda f: float(f.success), True),
    "violation_rate": (lambda f: float(f.violated), False),
    "permission_violation_rate": (lambda f: float(f.permission_violation), False),
    "duplicate_write_rate": (lambda f: float(f.duplicate_write), False),
    "unresolved_rate": (lambda f: float(f.unresolved), False),
    "latency_ms_mean": (lambda f: f.latency_ms, False),
    "tool_calls_mean": (lambda f: f.tool_calls, False),
}


def _pair(
    a: Sequence[TrialFacts], b: Sequence[TrialFacts]
) -> tuple[list[tuple[TrialFacts, TrialFacts]], list[TrialFacts], list[TrialFacts]]:
    hashes: dict[str, set[str]] = defaultdict(set)
    for f in [*a, *b]:
        if f.case_hash:
            hashes[f.case].add(f.case_hash)
    changed = sorted(c for c, hs in hashes.items() if len(hs) > 1)
    if changed:
        raise PairingError(
            f"case {changed[0]} differs between the runs (its contract changed): trials of "
            "different cases are not comparable; rerun both versions on the same cases"
        )
    for side, name in ((a, "A"), (b, "B")):
        seen: set[tuple[str, str, int]] = set()
        for f in side:
            if f.key in seen:
                raise PairingError(
                    f"run {name} has two trials {f.trial} of case {f.case} under the same fault "
                    "schedule: give one run per folder"
                )
            seen.add(f.key)
    by_key_b = {f.key: f for f in b}
    pairs = [(fa, by_key_b[fa.key]) for fa in a if fa.key in by_key_b]
    paired_b = {fb.key for _, fb in pairs}
    only_a = [f for f in a if f.key not in by_key_b]
    only_b = [f for f in b if f.key not in paired_b]
    if not pairs:
        raise PairingError("no trial of run A pairs with one of run B (same case, faults, trial)")
    return pairs, only_a, only_b


def _case_figures(rows: list[tuple[TrialFacts, TrialFacts]]) -> tuple[float, float, float, float]:
    """pass^k and first-try success of one case, for A and for B."""
    rows = sorted(rows, key=lambda p: p[0].trial)
    all_a = float(all(p[0].success for p in rows))
    all_b = float(all(p[1].success for p in rows))
    return all_a, all_b, float(rows[0][0].success), float(rows[0][1].success)


def _mean_difference(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sum B - sum A) / weight, from per-case columns (sum A, sum B, weight)."""
    w = sums[:, 2]
    ok = w > 0
    return np.where(ok, (sums[:, 1] - sums[:, 0]) / np.where(ok, w, 1.0), 0.0), ok


def _cost_difference(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cost B / successes B - cost A / successes A, from (cost A, cost B, ok A, ok B)."""
    ok = (sums[:, 2] > 0) & (sums[:, 3] > 0)
    da, db = np.where(ok, sums[:, 2], 1.0), np.where(ok, sums[:, 3], 1.0)
    return np.where(ok, sums[:, 1] / db - sums[:, 0] / da, 0.0), ok


def _estimate(
    per_case: np.ndarray, statistic: SumsStatistic, idx: np.ndarray, bounds: tuple[float, float]
) -> CaseEstimate:
    return case_estimate(per_case, statistic, idx, bounds=bounds)


def _decided(
    fig: TrialFigure,
    call: Call,
    est: CaseEstimate,
    *,
    family_size: int,
    alpha: float,
    min_cases: int,
) -> None:
    """Fill a figure's interval, call and plan from the family-wise decision."""
    better = fig.higher_is_better
    ci = None if isinstance(call.ci95, Undefined) else list(call.ci95)
    fig.ci95 = ci
    fig.familywise_confidence = call.confidence
    fig.familywise_ci = None if isinstance(call.interval, Undefined) else list(call.interval)
    fig.b_is = {
        "above": "better" if better else "worse",
        "below": "worse" if better else "better",
    }.get(call.direction, "undecided")  # type: ignore[assignment]
    # the renderers say "no interval: <reason>" themselves
    fig.undefined_reason = None if ci else (call.reason or "").removeprefix("no interval: ")
    fig.cases_needed, plan = None, None
    if fig.b_is == "undecided" and ci is not None:
        fig.cases_needed, plan = cases_needed(
            est, family_size=family_size, alpha=alpha, min_cases=min_cases
        )
    fig.reason = "; ".join(x for x in (call.reason, plan) if x) or None


def compare_trials(
    a: Sequence[TrialFacts],
    b: Sequence[TrialFacts],
    *,
    resamples: int = 2000,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    min_cases: int = MIN_CASES,
) -> TrialsReport:
    """The paired comparison of run B against run A."""
    pairs, only_a, only_b = _pair(a, b)
    by_case: dict[str, list[tuple[TrialFacts, TrialFacts]]] = defaultdict(list)
    for p in pairs:
        by_case[p[0].case].append(p)
    cases = sorted(by_case)
    g = len(cases)
    idx = bootstrap_indices(g, n_resamples=resamples, seed=seed)  # whole cases
    n_trials = np.array([len(by_case[c]) for c in cases], dtype=float)
    estimates: dict[str, CaseEstimate] = {}

    def figure(
        name: str,
        sum_a: np.ndarray,
        sum_b: np.ndarray,
        weight: np.ndarray,
        higher_better: bool,
        unit: str,
        bounds: tuple[float, float],
    ) -> TrialFigure:
        total = weight.sum()
        value_a, value_b = sum_a.sum() / total, sum_b.sum() / total
        estimates[name] = _estimate(
            np.column_stack([sum_a, sum_b, weight]), _mean_difference, idx, bounds
        )
        return TrialFigure(
            a=float(value_a),
            b=float(value_b),
            difference=float(value_b - value_a),
            n=int(total),
            n_cases=g,
            unit=unit,
            higher_is_better=higher_better,
            ci95=None,  # until decided, below
            b_is="undecided",
        )

    figures: dict[str, TrialFigure] = {}
    for name, (get, higher) in TRIAL_FIGURES.items():
        sa = np.array([sum(get(p[0]) for p in by_case[c]) for c in cases])
        sb = np.array([sum(get(p[1]) for p in by_case[c]) for c in cases])
        rate = name.endswith("_rate")
        bounds = (-1.0, 1.0) if rate else (-np.inf, np.inf)
        figures[name] = figure(name, sa, sb, n_trials, higher, "trials", bounds)
    per_case = np.array([_case_figures(by_case[c]) for c in cases])
    ones = np.ones(g)
    rates = (-1.0, 1.0)
    figures["pass_all_k"] = figure(
        "pass_all_k", per_case[:, 0], per_case[:, 1], ones, True, "cases", rates
    )
    figures["pass_first_trial"] = figure(
        "pass_first_trial", per_case[:, 2], per_case[:, 3], ones, True, "cases", rates
    )
    figures["cost_usd_per_accepted_outcome"] = _cost_figure(by_case, cases, idx, estimates)
    calls = holm(estimates, alpha=alpha, min_cases=min_cases)
    for name, call in calls.items():
        _decided(
            figures[name],
            call,
            estimates[name],
            family_size=len(estimates),
            alpha=alpha,
            min_cases=min_cases,
        )
    rows = _case_rows(by_case, cases)
    return TrialsReport(
        schema_version=TRIALS_SCHEMA_VERSION,
        paired_trials=len(pairs),
        cases=g,
        unpaired=Sides(
            a=sorted(f"{f.case} trial {f.trial}" for f in only_a),
            b=sorted(f"{f.case} trial {f.trial}" for f in only_b),
        ),
        interval=f"95% {METHOD} (n={resamples} resamples, seed={seed})",
        decision_rule=DECISION_RULE,
        alpha=alpha,
        min_cases=min_cases,
        figures=figures,
        b_worse_on=sorted(k for k, f in figures.items() if f.b_is == "worse"),
        regressed_cases=[r.case for r in rows if r.change == "regressed"],
        by_case=rows,
    )


def _case_rows(
    by_case: dict[str, list[tuple[TrialFacts, TrialFacts]]], cases: list[str]
) -> list[CaseChange]:
    """Each case's successes in A and B and its change, regressions first."""
    rows: list[CaseChange] = []
    for c in cases:
        ps = by_case[c]
        won_a, won_b = sum(p[0].success for p in ps), sum(p[1].success for p in ps)
        rows.append(
            CaseChange(
                case=c,
                trials=len(ps),
                successes_a=won_a,
                successes_b=won_b,
                change="regressed" if won_b < won_a else "improved" if won_b > won_a else "same",
                b_transcripts_newly_violating=sorted(
                    p[1].transcript_id for p in ps if p[1].violated and not p[0].violated
                ),
            )
        )
    order = {"regressed": 0, "improved": 1, "same": 2}
    rows.sort(key=lambda r: (order[r.change], r.successes_b - r.successes_a, r.case))
    return rows


def _cost_figure(
    by_case: dict[str, list[tuple[TrialFacts, TrialFacts]]],
    cases: list[str],
    idx: np.ndarray,
    estimates: dict[str, CaseEstimate],
) -> TrialFigure:
    """Cost per accepted outcome (total cost / successes) of each run, and B - A."""
    n = int(sum(len(by_case[c]) for c in cases))

    def cost(
        a: float | None = None, b: float | None = None, n: int = n, why: str | None = None
    ) -> TrialFigure:
        fig = TrialFigure(
            unit="USD",
            higher_is_better=False,
            ci95=None,
            b_is="undecided",
            n=n,
            n_cases=len(cases),
            a=a,
            b=b,
            difference=None if a is None or b is None else b - a,
        )
        if why is not None:
            fig.undefined_reason = why
        return fig

    if any(p[0].cost_usd is None or p[1].cost_usd is None for c in cases for p in by_case[c]):
        return cost(n=0, why="cost unknown for some trials")
    cost_a = np.array([sum(p[0].cost_usd or 0.0 for p in by_case[c]) for c in cases])
    cost_b = np.array([sum(p[1].cost_usd or 0.0 for p in by_case[c]) for c in cases])
    ok_a = np.array([sum(p[0].success for p in by_case[c]) for c in cases], dtype=float)
    ok_b = np.array([sum(p[1].success for p in by_case[c]) for c in cases], dtype=float)
    if ok_a.sum() == 0 or ok_b.sum() == 0:
        return cost(why="a run has no accepted outcome")
    a, b = cost_a.sum() / ok_a.sum(), cost_b.sum() / ok_b.sum()
    estimates["cost_usd_per_accepted_outcome"] = _estimate(
        np.column_stack([cost_a, cost_b, ok_a, ok_b]), _cost_difference, idx, (-np.inf, np.inf)
    )
    return cost(float(a), float(b))
