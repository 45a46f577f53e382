"""Does "cases needed" deliver? Follow the plan as a user would and count how often it decides
(issue 31, item 7).

`compare` on a pilot of G cases (6, 10 or 20) of 10 items, 5 pass/fail criteria, judge B better
than A (accuracy 0.78 -> 0.88) and **the judges varying by case**: besides a difficulty both
share (~ N(0, 0.7) on the logit scale), each judge has its own per-case offset (~ N(0, 1.2)), so
B's advantage is large on some cases and absent or reversed on others. Every undecided
criterion with a number gets it followed: label that many cases in all (the pilot's plus new
ones from the same population), rerun the whole comparison (`decide_family(paired_estimate(...))`,
what the CLI and the service call), and see whether the criterion is decided. Plans above the
cap are not simulated and are counted apart. The pilots (and the population the new cases come
from) are the same for both methods. *before* = the plan on the spread's estimate
(`spread_confidence=0`); *now* = the plan on its one-sided 80% upper bound (the default).

    python benchmarks/bench_cases_needed.py          # -> benchmarks/results/cases_needed.md
    python benchmarks/bench_cases_needed.py --quick  # smoke test, nothing written
"""

from __future__ import annotations

import argparse
import functools
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

import calibrant.compare.paired as paired
from calibrant.agreement.ci import wilson
from calibrant.agreement.familywise import SPREAD_CONFIDENCE, cases_needed

RESULTS = Path(__file__).parent / "results" / "cases_needed.md"
ITEMS = 10
CRITERIA = 5
ACC_A, ACC_B = 0.78, 0.88
SHARED_SD, OWN_SD = 0.7, 1.2
CAP = 800
GOAL = 0.8


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _cases(rng: np.random.Generator, g: int, offset: int) -> list[tuple[np.ndarray, ...]]:
    """Per criterion (reference, A, B, case ids) for g new cases numbered from `offset`."""
    case = np.repeat(np.arange(g), ITEMS)
    n = case.size
    prev = rng.normal(0, 0.8, g)[case]
    shared = rng.normal(0, SHARED_SD, g)[case]
    own_a, own_b = rng.normal(0, OWN_SD, g)[case], rng.normal(0, OWN_SD, g)[case]
    out = []
    for _ in range(CRITERIA):
        hard = rng.normal(0, 0.8, n)
        ref = (rng.random(n) < _sigmoid(prev)).astype(int)
        a = np.where(rng.random(n) < _sigmoid(_logit(ACC_A) - shared - own_a - hard), ref, 1 - ref)
        b = np.where(rng.random(n) < _sigmoid(_logit(ACC_B) - shared - own_b - hard), ref, 1 - ref)
        out.append((ref, a, b, case + offset))
    return out


def _join(x: list[tuple[np.ndarray, ...]], y: list[tuple[np.ndarray, ...]]) -> list:
    return [
        tuple(np.concatenate([u, v]) for u, v in zip(p, q, strict=True))
        for p, q in zip(x, y, strict=True)
    ]


def _compare(data: list[tuple[np.ndarray, ...]]) -> dict[str, paired.PairedComparison]:
    est = {
        f"c{i}": paired.paired_estimate(ref, a, b, k=2, clusters=case)
        for i, (ref, a, b, case) in enumerate(data)
    }
    return paired.decide_family(est)


def follow(pilot: int, reps: int, seed: int, spread_confidence: float) -> dict[str, object]:
    paired.cases_needed = functools.partial(cases_needed, spread_confidence=spread_confidence)  # type: ignore[assignment]
    undecided = given = over = followed = decided = right = 0
    plans: list[int] = []
    for rep in range(reps):
        # the same pilots and the same new cases for every method: the plans are paired
        first = _cases(np.random.default_rng([seed, pilot, rep]), pilot, 0)
        rng = np.random.default_rng([seed, pilot, rep, 1])
        for name, call in _compare(first).items():
            if call.decision != "undecided":
                continue
            undecided += 1
            if call.cases_needed is None:
                continue
            given += 1
            plans.append(call.cases_needed)
            if call.cases_needed > CAP:
                over += 1
                continue
            followed += 1
            extra = _cases(rng, call.cases_needed - pilot, pilot)
            again = _compare(_join(first, extra))[name]
            decided += again.decision != "undecided"
            right += again.decision == "B better"
    return {
        "undecided": undecided,
        "given": given,
        "over": over,
        "followed": followed,
        "decided": decided,
        "right": right,
        "plans": plans,
    }


def _rate(k: int, n: int) -> str:
    if n == 0:
        return "—"
    lo, hi = wilson(k, n, confidence=0.95)
    return f"{k / n:.3f} [{lo:.3f}, {hi:.3f}] ({k}/{n})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few pilots; write nothing")
    parser.add_argument("--reps", type=int, default=80, help="pilots per size and method")
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args(argv)
    reps = 6 if args.quick else args.reps
    started = time.perf_counter()
    lines = [
        '# "Cases needed", followed: how often the plan then decides',
        "",
        f"`python benchmarks/bench_cases_needed.py --seed {args.seed}` — {reps} pilots per size "
        f"and method, seeded; Python {platform.python_version()}, numpy {np.__version__}, TIME "
        "on this machine.",
        "",
        f"`compare`, 5 pass/fail criteria, {ITEMS} items a case, judge B better than A "
        f"(accuracy {ACC_A} -> {ACC_B}), the judges varying by case (shared difficulty "
        f"N(0, {SHARED_SD}) and each judge's own per-case offset N(0, {OWN_SD}), logit scale). "
        "The same pilots for both methods. Each undecided criterion's plan is followed: "
        "that many cases in all (the pilot's plus "
        "new ones), the whole comparison rerun, the criterion decided or not. Plans above "
        f"{CAP} cases are not simulated (counted in *above {CAP}*). *before*: the plan on the "
        "between-case spread as estimated; *now*: on its one-sided "
        f"{SPREAD_CONFIDENCE:.0%} upper bound (the default). Decision rate with its 95% Wilson "
        f"interval over the followed plans (goal >= {GOAL}); plan sizes over every plan given.",
        "",
        "| pilot cases | plan built on | decided when followed | B better when followed "
        f"| plans given / undecided | above {CAP} | plan size: quartiles | share above 200 "
        "| goal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for pilot in (6, 10, 20):
        for label, conf in (("estimate (before)", 0.0), ("80% upper bound (now)", None)):
            res = follow(pilot, reps, args.seed, SPREAD_CONFIDENCE if conf is None else conf)
            plans = np.asarray(res["plans"], dtype=float)
            quart = (
                " / ".join(f"{q:.0f}" for q in np.percentile(plans, [25, 50, 75]))
                if plans.size
                else "—"
            )
            above = _rate(int((plans > 200).sum()), int(plans.size))
            d, f = int(res["decided"]), int(res["followed"])  # type: ignore[call-overload]
            goal = "—"
            if f:
                lo, hi = wilson(d, f, confidence=0.95)
                goal = (
                    "met" if d / f >= GOAL else "within MC error" if hi >= GOAL else "**not met**"
                )
            lines.append(
                f"| {pilot} | {label} | {_rate(d, f)} | {_rate(int(res['right']), f)} "  # type: ignore[call-overload]
                f"| {res['given']} / {res['undecided']} | {res['over']} | {quart} | {above} "
                f"| {goal} |"
            )
            print(lines[-1], file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    lines[2] = lines[2].replace("TIME", f"{elapsed:.0f} s")
    text = "\n".join(lines) + "\n"
    if args.quick:
        print(text)
    else:
        RESULTS.write_text(text, encoding="utf-8")
        print(f"wrote {RESULTS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
