"""Two agent versions on the same cases: paired trial by trial, with a paired interval for every
difference and the cases that regressed.

Trials pair when they ran the same case (same case contract, by hash) under the same fault
schedule with the same trial number, so both versions faced the same user script and the same
faults. Differences are B minus A; their 95% intervals come from a bootstrap that resamples whole
cases (the trials of one case share its fixture and its faults, so they are not independent).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..contracts import SafetyVerdict, Transcript
from ..reports.trials import DUPLICATES, PERMISSION, outcome_uncertain, succeeded

__all__ = ["TrialFacts", "facts", "compare_trials", "PairingError"]


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


def _direction(ci: tuple[float, float] | None, higher_better: bool) -> str:
    """better / worse only when the whole interval of B - A is on one side of zero."""
    if ci is None or ci[0] <= 0 <= ci[1]:
        return "undecided"
    return "better" if (ci[0] > 0) == higher_better else "worse"


def _interval(values: np.ndarray) -> tuple[float, float] | None:
    if values.size < 2:
        return None
    lo, hi = np.percentile(values, [2.5, 97.5])
    return (float(lo), float(hi))


def compare_trials(
    a: Sequence[TrialFacts],
    b: Sequence[TrialFacts],
    *,
    resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """The paired comparison of run B against run A, as plain JSON data."""
    pairs, only_a, only_b = _pair(a, b)
    by_case: dict[str, list[tuple[TrialFacts, TrialFacts]]] = defaultdict(list)
    for p in pairs:
        by_case[p[0].case].append(p)
    cases = sorted(by_case)
    g = len(cases)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, g, size=(resamples, g))  # whole cases, with replacement
    counts = np.stack([np.bincount(row, minlength=g) for row in draws]) if g else None

    # per case: sums of A and B values and the number of paired trials
    n_trials = np.array([len(by_case[c]) for c in cases], dtype=float)

    def figure(
        sum_a: np.ndarray, sum_b: np.ndarray, weight: np.ndarray, higher_better: bool, unit: str
    ) -> dict[str, Any]:
        total = weight.sum()
        value_a, value_b = sum_a.sum() / total, sum_b.sum() / total
        diff = value_b - value_a
        assert counts is not None
        w = counts @ weight
        ok = w > 0
        boot = ((counts @ sum_b)[ok] - (counts @ sum_a)[ok]) / w[ok]
        ci = _interval(boot) if g >= 2 else None
        verdict = _direction(ci, higher_better)
        return {
            "a": float(value_a),
            "b": float(value_b),
            "difference": float(diff),
            "ci95": list(ci) if ci else None,
            "n": int(total),
            "unit": unit,
            "higher_is_better": higher_better,
            "b_is": verdict,
            "undefined_reason": None if ci else "one case only: no interval across cases",
        }

    figures: dict[str, Any] = {}
    for name, (get, higher) in TRIAL_FIGURES.items():
        sa = np.array([sum(get(p[0]) for p in by_case[c]) for c in cases])
        sb = np.array([sum(get(p[1]) for p in by_case[c]) for c in cases])
        figures[name] = figure(sa, sb, n_trials, higher, "trials")
    per_case = np.array([_case_figures(by_case[c]) for c in cases])
    ones = np.ones(g)
    figures["pass_all_k"] = figure(per_case[:, 0], per_case[:, 1], ones, True, "cases")
    figures["pass_first_trial"] = figure(per_case[:, 2], per_case[:, 3], ones, True, "cases")
    figures["cost_usd_per_accepted_outcome"] = _cost_figure(by_case, cases, counts)

    rows: list[dict[str, Any]] = []
    for c in cases:
        ps = by_case[c]
        won_a, won_b = sum(p[0].success for p in ps), sum(p[1].success for p in ps)
        rows.append(
            {
                "case": c,
                "trials": len(ps),
                "successes_a": won_a,
                "successes_b": won_b,
                "change": "regressed" if won_b < won_a else "improved" if won_b > won_a else "same",
                "b_transcripts_newly_violating": sorted(
                    p[1].transcript_id for p in ps if p[1].violated and not p[0].violated
                ),
            }
        )
    order = {"regressed": 0, "improved": 1, "same": 2}
    rows.sort(key=lambda r: (order[r["change"]], r["successes_b"] - r["successes_a"], r["case"]))
    return {
        "schema_version": 1,
        "paired_trials": len(pairs),
        "cases": g,
        "unpaired": {
            "a": sorted(f"{f.case} trial {f.trial}" for f in only_a),
            "b": sorted(f"{f.case} trial {f.trial}" for f in only_b),
        },
        "interval": f"95% percentile bootstrap over cases (n={resamples}, seed={seed})",
        "figures": figures,
        "regressed_cases": [r["case"] for r in rows if r["change"] == "regressed"],
        "by_case": rows,
    }


def _cost_figure(
    by_case: dict[str, list[tuple[TrialFacts, TrialFacts]]],
    cases: list[str],
    counts: np.ndarray | None,
) -> dict[str, Any]:
    """Cost per accepted outcome (total cost / successes) of each run, and B - A."""
    base: dict[str, Any] = {
        "unit": "USD",
        "higher_is_better": False,
        "ci95": None,
        "b_is": "undecided",
    }
    if any(p[0].cost_usd is None or p[1].cost_usd is None for c in cases for p in by_case[c]):
        return {
            **base,
            "a": None,
            "b": None,
            "difference": None,
            "n": 0,
            "undefined_reason": "cost unknown for some trials",
        }
    cost_a = np.array([sum(p[0].cost_usd or 0.0 for p in by_case[c]) for c in cases])
    cost_b = np.array([sum(p[1].cost_usd or 0.0 for p in by_case[c]) for c in cases])
    ok_a = np.array([sum(p[0].success for p in by_case[c]) for c in cases], dtype=float)
    ok_b = np.array([sum(p[1].success for p in by_case[c]) for c in cases], dtype=float)
    n = int(sum(len(by_case[c]) for c in cases))
    if ok_a.sum() == 0 or ok_b.sum() == 0:
        return {
            **base,
            "a": None,
            "b": None,
            "difference": None,
            "n": n,
            "undefined_reason": "a run has no accepted outcome",
        }
    a, b = cost_a.sum() / ok_a.sum(), cost_b.sum() / ok_b.sum()
    ci = None
    if counts is not None and len(cases) >= 2:
        da, db = counts @ ok_a, counts @ ok_b
        good = (da > 0) & (db > 0)
        boot = (counts @ cost_b)[good] / db[good] - (counts @ cost_a)[good] / da[good]
        ci = _interval(boot)
    verdict = _direction(ci, higher_better=False)
    return {
        **base,
        "a": float(a),
        "b": float(b),
        "difference": float(b - a),
        "n": n,
        "ci95": list(ci) if ci else None,
        "b_is": verdict,
        "undefined_reason": None if ci else "one case only: no interval across cases",
    }
