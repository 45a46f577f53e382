"""Do comparisons hold their level? By simulation with case-clustered data (issue 18, item 5).

Every simulated data set goes through the library's own decision functions, the ones the CLI
and the service call: ``decide_family(paired_estimate(...))`` for ``compare`` (all 5 criteria
together), ``compare_trials`` for ``compare-trials`` (all figures together) and
``attack_gates`` for the probe gate (9 attack families x 2 channels together).

* ``compare``: G cases of 10 items; 5 criteria like the shipped rubric's (three pass/fail, one
  pass/fail/not_applicable, one ordinal 1-4 scored by linear weighted kappa). Each case has its
  own prevalence (logit offset ~ N(0, 0.8)) and difficulty (~ N(0, 0.7)); each item a hardness
  shared by both judges (~ N(0, 0.8)): errors are correlated within cases and between judges,
  as on real gold sets. A judge is right with probability sigmoid(logit(accuracy) - difficulty
  - hardness); wrong, it picks another label (ordinal: a neighbouring level).
* ``compare-trials``: G cases x 5 trials of two agent versions; per case a success probability
  (Beta(2, 1)), violation, permission, duplicate and unresolved rates tied to failure, latency
  (log-normal with a case effect), tool calls (Poisson with a case effect) and cost. Identical
  versions draw from the same case parameters.
* probe gate: G cases of 8 failed items; per case a clean false-positive rate f (logit(0.15) +
  N(0, 0.7)); per item "judged pass clean" ~ Bernoulli(f) and, for each of 18 gates, "moved
  toward pass" on the items that were not already passing, with a success rate of f + effect in
  every case. At the bar: effect = margin (0.10); clean: effect 0.

    python benchmarks/bench_compare.py            # -> benchmarks/results/compare.md
    python benchmarks/bench_compare.py --quick    # smoke test, few reps
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from calibrant.agreement.ci import wilson  # noqa: E402
from calibrant.agreement.robustness import attack_gates  # noqa: E402
from calibrant.compare.paired import MIN_CASES, decide_family, paired_estimate  # noqa: E402
from calibrant.compare.trials import TrialFacts, compare_trials  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "compare.md"
ITEMS_PER_CASE = 10
CRITERIA = (("c1", 2), ("c2", 2), ("c3", 2), ("na", 3), ("ordinal", 4))
TRIALS = 5
FAILED_ITEMS_PER_CASE = 8
GATES = 18
MARGIN = 0.10
GOAL = 0.05


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n, confidence=0.95)
    return f"{k / n:.1%} [{lo:.1%}, {hi:.1%}] ({k}/{n})"


def _goal(k: int, n: int, goal: float, *, at_most: bool = True) -> str:
    """met / not met on the point estimate, and whether the Wilson interval settles it."""
    lo, hi = wilson(k, n, confidence=0.95)
    p = k / n
    met = p <= goal if at_most else p >= goal
    sure = (hi <= goal) if at_most else (lo >= goal)
    return ("met" if met else "**not met**") + ("" if sure or not met else " (within noise)")


# ---------------------------------------------------------------------------------- compare


def _cases(rng: np.random.Generator, g: int, acc_a: float, acc_b: float) -> dict[str, tuple]:
    """Per criterion: (reference, A, B, case ids) codes for g new cases."""
    case = np.repeat(np.arange(g), ITEMS_PER_CASE)
    n = case.size
    prev = rng.normal(0, 0.8, g)[case]
    diff = rng.normal(0, 0.7, g)[case]
    out = {}
    for name, k in CRITERIA:
        hard = rng.normal(0, 0.8, n)
        if k == 4:
            ref = np.clip(np.rint(1.5 + prev + rng.normal(0, 1, n)), 0, 3).astype(int)
        else:
            ref = (rng.random(n) < _sigmoid(prev)).astype(int)
            if k == 3:
                ref = np.where(rng.random(n) < 0.25, 2, ref)

        def judge(acc: float, ref: np.ndarray = ref, hard: np.ndarray = hard, k: int = k):
            right = rng.random(n) < _sigmoid(_logit(acc) - diff - hard)
            if k == 4:
                step = np.where(rng.random(n) < 0.5, -1, 1)
                wrong = np.clip(ref + step, 0, 3)
                wrong = np.where(wrong == ref, ref - step, wrong)
            else:
                wrong = (ref + rng.integers(1, k, n)) % k
            return np.where(right, ref, wrong)

        out[name] = (ref, judge(acc_a), judge(acc_b), case)
    return out


def _join(a: dict[str, tuple], b: dict[str, tuple], offset: int) -> dict[str, tuple]:
    return {
        c: tuple(
            np.concatenate([x, y + (offset if i == 3 else 0)])
            for i, (x, y) in enumerate(zip(a[c], b[c], strict=True))
        )
        for c in a
    }


def _compare(data: dict[str, tuple], *, min_cases: int = MIN_CASES) -> dict:
    est = {
        name: paired_estimate(
            data[name][0],
            data[name][1],
            data[name][2],
            k=k,
            statistic="weighted_kappa_linear" if k == 4 else "cohen_kappa",
            clusters=data[name][3],
        )
        for name, k in CRITERIA
    }
    return decide_family(est, min_cases=min_cases)


def bench_compare(reps: int, sizes: list[int], seed: int) -> list[list[str]]:
    rows = []
    for g in sizes:
        rng = np.random.default_rng([seed, 1, g])
        any_call = worse = 0
        for _ in range(reps):
            calls = _compare(_cases(rng, g, 0.85, 0.85))
            decided = [c.decision for c in calls.values() if c.decision != "undecided"]
            any_call += bool(decided)
            worse += "B worse" in decided
        rows.append(
            [
                "`compare`, equal judges (accuracy 0.85), 5 criteria",
                str(g),
                f"any criterion called different: {_rate(any_call, reps)}; B worse overall: "
                f"{_rate(worse, reps)}",
                f"<= {GOAL:.0%}: {_goal(any_call, reps, GOAL)}",
            ]
        )
    return rows


def bench_minimum(reps: int, sizes: list[int], seed: int) -> list[list[str]]:
    """The same rule with no minimum (2 cases is the least with an interval): where it stops
    holding its level, and what it could detect there."""
    rows = []
    for g in sizes:
        rng = np.random.default_rng([seed, 6, g])
        calls = sum(
            any(
                c.decision != "undecided"
                for c in _compare(_cases(rng, g, 0.85, 0.85), min_cases=2).values()
            )
            for _ in range(reps)
        )
        found = sum(
            sum(
                c.decision == "B better"
                for c in _compare(_cases(rng, g, 0.75, 0.92), min_cases=2).values()
            )
            for _ in range(reps // 3)
        )
        false_rate, power = calls / reps, found / (5 * (reps // 3))
        ratio = f"{power / false_rate:.1f}x" if false_rate else "no false call"
        rows.append(
            [
                "`compare` with no minimum of cases: equal judges called different; B better "
                "(0.75 -> 0.92) found, per criterion"
                + (" (the chosen minimum)" if g == MIN_CASES else ""),
                str(g),
                f"{_rate(calls, reps)}; power {_rate(found, 5 * (reps // 3))}",
                f"a real difference found {ratio} as often as a false call",
            ]
        )
    return rows


def bench_compare_power(reps: int, sizes: list[int], seed: int) -> list[list[str]]:
    rows = []
    for g in sizes:
        rng = np.random.default_rng([seed, 2, g])
        better = total = anyb = wrong = 0
        for _ in range(reps):
            calls = _compare(_cases(rng, g, 0.75, 0.92))
            d = [c.decision for c in calls.values()]
            better += d.count("B better")
            wrong += d.count("B worse")
            total += len(d)
            anyb += "B better" in d
        rows.append(
            [
                "`compare`, B better (accuracy 0.75 -> 0.92 on every criterion)",
                str(g),
                f"per criterion B better: {_rate(better, total)}; at least one: "
                f"{_rate(anyb, reps)}; B worse (wrong way): {_rate(wrong, total)}",
                "power (no goal)",
            ]
        )
    return rows


def bench_followed(reps: int, start: list[int], seed: int, cap: int) -> list[list[str]]:
    """Follow "cases needed": label that many cases in all (the old ones plus new ones), rerun
    the whole comparison, and count how often the criterion is then decided."""
    rows = []
    for g in start:
        rng = np.random.default_rng([seed, 3, g])
        given = followed = decided = right = over_cap = undecided = 0
        planned: list[int] = []
        for _ in range(reps):
            first_data = _cases(rng, g, 0.78, 0.88)
            first = _compare(first_data)
            for name, call in first.items():
                if call.decision != "undecided":
                    continue
                undecided += 1
                if call.cases_needed is None:
                    continue
                given += 1
                if call.cases_needed > cap:
                    over_cap += 1
                    continue
                followed += 1
                planned.append(call.cases_needed)
                extra = _cases(rng, call.cases_needed - g, 0.78, 0.88)
                again = _compare(_join(first_data, extra, g))[name]
                decided += again.decision != "undecided"
                right += again.decision == "B better"
        med = f"{int(np.median(planned))}" if planned else "—"
        rows.append(
            [
                "`compare`, B better (accuracy 0.78 -> 0.88); undecided criteria whose "
                '"cases needed" is followed',
                f"{g} at first",
                f"decided when followed: {_rate(decided, followed)} (B better: "
                f"{_rate(right, followed)}); a number was given for {given} of {undecided} "
                f"undecided criteria, {over_cap} above {cap} cases not simulated; median "
                f"cases planned {med}",
                f">= 80%: {_goal(decided, followed, 0.8, at_most=False)}" if followed else "—",
            ]
        )
    return rows


# ----------------------------------------------------------------------------- compare-trials


def _run(
    rng: np.random.Generator, params: dict[str, np.ndarray], g: int, side: str, drop: float
) -> list[TrialFacts]:
    out = []
    for c in range(g):
        for t in range(1, TRIALS + 1):
            ok = rng.random() < max(0.0, params["p"][c] - drop)
            violated = (not ok) and rng.random() < 0.4
            out.append(
                TrialFacts(
                    case=f"case{c}",
                    trial=t,
                    case_hash=f"h{c}",
                    schedule="[]",
                    success=bool(ok),
                    violated=bool(violated),
                    permission_violation=bool(violated and rng.random() < 0.3),
                    duplicate_write=bool(violated and rng.random() < 0.3),
                    unresolved=bool((not ok) and rng.random() < 0.3),
                    latency_ms=float(params["lat"][c] * rng.lognormal(0, 0.3)),
                    tool_calls=float(rng.poisson(params["tools"][c])),
                    cost_usd=float(params["cost"][c] * rng.lognormal(0, 0.2)),
                    transcript_id=f"{side}-{c}-{t}",
                )
            )
    return out


def _trial_params(rng: np.random.Generator, g: int) -> dict[str, np.ndarray]:
    return {
        "p": rng.beta(2, 1, g),
        "lat": 1000 * rng.lognormal(0, 0.5, g),
        "tools": rng.uniform(3, 9, g),
        "cost": 0.01 * rng.lognormal(0, 0.3, g),
    }


def bench_trials(reps: int, sizes: list[int], seed: int) -> list[list[str]]:
    rows = []
    for g in sizes:
        rng = np.random.default_rng([seed, 4, g])
        any_call = regress = power = power_any = 0
        for rep in range(reps):
            p = _trial_params(rng, g)
            r = compare_trials(_run(rng, p, g, "a", 0.0), _run(rng, p, g, "b", 0.0))
            any_call += any(f["b_is"] != "undecided" for f in r["figures"].values())
            regress += bool(r["regressed_cases"])
            if rep % 2:
                continue  # power on half the repetitions
            bad = compare_trials(_run(rng, p, g, "a", 0.0), _run(rng, p, g, "b", 0.3))
            power += bad["figures"]["success_rate"]["b_is"] == "worse"
            power_any += bool(bad["b_worse_on"])
        rows.append(
            [
                f"`compare-trials`, identical agents, {TRIALS} trials per case, 10 figures",
                str(g),
                f"any figure called different: {_rate(any_call, reps)}; "
                f"`--fail-on-regression` (any case with fewer successes in B, not a test): "
                f"{_rate(regress, reps)}",
                f"<= {GOAL:.0%}: {_goal(any_call, reps, GOAL)}",
            ]
        )
        rows.append(
            [
                "`compare-trials`, B succeeds 30 points less in every case",
                str(g),
                f"success rate called worse: {_rate(power, (reps + 1) // 2)}; worse on any "
                f"figure: {_rate(power_any, (reps + 1) // 2)}",
                "power (no goal)",
            ]
        )
    return rows


# --------------------------------------------------------------------------------- probe gate


def _probe(rng: np.random.Generator, g: int, effect: float) -> dict[str, dict]:
    f = _sigmoid(_logit(0.15) + rng.normal(0, 0.7, g))
    n = FAILED_ITEMS_PER_CASE
    fp = rng.random((g, n)) < f[:, None]
    gates = {}
    for j in range(GATES):
        q = np.clip((f + effect) / (1 - f), 0, 1)  # among the items not already passing
        up = (~fp) & (rng.random((g, n)) < q[:, None])
        gates[f"gate{j}"] = {f"case{c}": (n, int(up[c].sum()), int(fp[c].sum())) for c in range(g)}
    return gates


def bench_probe(reps: int, sizes: list[int], seed: int) -> list[list[str]]:
    rows = []
    for label, effect, goal in (
        ("a judge sitting exactly at the bar (success = clean rate + margin)", MARGIN, True),
        ("a clean judge (success rate = clean false-positive rate)", 0.0, True),
        ("an obeying judge (success = clean rate + margin + 0.20)", MARGIN + 0.2, False),
    ):
        for g in sizes:
            rng = np.random.default_rng([seed, 5, g, int(effect * 100)])
            fail = passed = 0
            runs = reps if goal else reps // 2  # power on half as many
            for _ in range(runs):
                out = attack_gates(_probe(rng, g, effect), margin=MARGIN, min_items=10)
                statuses = {x.status for x in out.values()}
                fail += "FAIL" in statuses
                passed += statuses == {"PASS"}
            rows.append(
                [
                    f"probe gate, {label}, {GATES} gates",
                    str(g),
                    f"FAIL: {_rate(fail, runs)}; PASS: {_rate(passed, runs)}",
                    f"false FAIL <= {GOAL:.0%}: {_goal(fail, reps, GOAL)}" if goal else "power",
                ]
            )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--follow-reps", type=int, default=80)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps, follow = (20, 10) if args.quick else (args.reps, args.follow_reps)
    sizes = [4, 10, 16]
    started = time.perf_counter()
    parts: list[tuple[str, Callable[[], list[list[str]]]]] = [
        ("compare", lambda: bench_compare(reps, sizes, args.seed)),
        ("minimum", lambda: bench_minimum(reps, [2, 3, 4, 5, 6], args.seed)),
        ("compare power", lambda: bench_compare_power(reps // 2, sizes, args.seed)),
        ("followed", lambda: bench_followed(follow, [6, 10], args.seed, cap=200)),
        ("compare-trials", lambda: bench_trials(reps, sizes, args.seed)),
        ("probe", lambda: bench_probe(reps, sizes, args.seed)),
    ]
    rows: list[list[str]] = []
    timing = []
    for name, part in parts:
        t0 = time.perf_counter()
        rows += part()
        timing.append(f"{name} {time.perf_counter() - t0:.0f} s")
        print(timing[-1], file=sys.stderr, flush=True)
    head = ["decision rule, scenario", "cases", "measured (95% Wilson interval, reps)", "goal"]
    out = [
        "# Comparisons that hold their level (compare, compare-trials, probe gate)",
        "",
        f"`python benchmarks/bench_compare.py --reps {reps} --follow-reps {follow} "
        f"--seed {args.seed}`" + (" (`--quick`)" if args.quick else ""),
        "",
        __doc__.split("\n\n", 1)[1].split("    python")[0].strip(),
        "",
        f"Every rule decides at a family-wise 5% by Holm over intervals of whole cases (BCa ∪ "
        f"cluster jackknife t with G - 1 df); no better/worse or PASS/FAIL below {MIN_CASES} "
        "cases. A goal is met when the measured rate is on the right side of it; "
        '"within noise" when its Wilson interval still crosses it.',
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(r) + " |" for r in rows),
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
        f"{time.perf_counter() - started:.0f} s in all ({', '.join(timing)}).",
    ]
    RESULTS.write_text("\n".join(out) + "\n")
    print(RESULTS.read_text())


if __name__ == "__main__":
    main()
