"""Coverage of the trial report's success-rate interval and of the corrected pass rate, by
simulation (issue 18, items 6 and 7; issue 31, item 8: skewed data at 5 to 100 cases, the
misses counted on each side).

Trials: G cases of k trials each; case i has its own success probability p_i ~ Beta with mean mu
and intra-case correlation ICC (Beta(mu (1/ICC - 1), (1 - mu) (1/ICC - 1))), so trials of one
case go together. The estimand is mu, the success rate over the population of cases. Each sample
goes through the library's `clustered_proportion` (what `trials` reports) and, for comparison,
the Wilson interval over trials that `trials` printed before (the trials as if independent).
pass^k at k = the trials per case is checked the same way (truth E[p^k]).

Correction: a calibration of G cases of m items; each case has its own sensitivity and
specificity (Beta around the judge's, concentration c), and its items are passed by the experts
with probability 1/2. A batch of 100 new cases x 5 items, each with its own error rates, true
pass probability pi. The corrected rate (`corrected_pass_rate`, the calibration resampled by case)
should cover pi; *before* is the previous method (each of the three proportions from its own
Jeffreys posterior, items independent, point clipped, no interval only when more than 2.5% of the
draws have J <= 0, a point estimate printed all the same). Undefined = no corrected rate given
(with the reason).

    python benchmarks/bench_trials_coverage.py          # -> benchmarks/results/trials_coverage.md
    python benchmarks/bench_trials_coverage.py --quick  # smoke test, few samples, nothing written
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibrant.agreement.ci import wilson
from calibrant.agreement.clustered import clustered_proportion, pass_hat_k
from calibrant.scoring.correction import ErrorCounts, corrected_pass_rate

RESULTS = Path(__file__).parent / "results" / "trials_coverage.md"
GOAL = 0.94


def _wilson_text(hits: int, n: int) -> str:
    if n == 0:
        return "—"
    lo, hi = wilson(hits, n, confidence=0.95)
    return f"{hits / n:.3f} [{lo:.3f}, {hi:.3f}]"


@dataclass(frozen=True)
class TrialCell:
    cases: int
    k: int
    mu: float
    icc: float


def trial_cell(cell: TrialCell, reps: int, seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    phi = 1 / cell.icc - 1
    a, b = cell.mu * phi, (1 - cell.mu) * phi
    truth_all = float(np.prod([(a + j) / (a + b + j) for j in range(cell.k)]))  # E[p^k]
    now = before = all_k = above = below = 0
    widths: list[float] = []
    for r in range(reps):
        p = rng.beta(a, b, cell.cases)
        c = rng.binomial(cell.k, p)
        fig = clustered_proportion(c.tolist(), [cell.k] * cell.cases, seed=r, resamples=1000)
        assert fig.ci95 is not None
        now += fig.ci95[0] <= cell.mu <= fig.ci95[1]
        above += fig.ci95[0] > cell.mu  # the whole interval above the truth
        below += fig.ci95[1] < cell.mu
        widths.append(fig.ci95[1] - fig.ci95[0])
        lo, hi = wilson(int(c.sum()), cell.cases * cell.k, confidence=0.95)
        before += lo <= cell.mu <= hi
        v = [pass_hat_k(int(x), cell.k, cell.k) or 0.0 for x in c]
        pk = clustered_proportion(
            [x * cell.k for x in v], [cell.k] * cell.cases, seed=r, resamples=1000
        )
        assert pk.ci95 is not None
        all_k += pk.ci95[0] <= truth_all <= pk.ci95[1]
    return {
        "before": before,
        "now": now,
        "above": above,
        "below": below,
        "pass_k": all_k,
        "truth_k": truth_all,
        "width": float(np.median(widths)),
    }


@dataclass(frozen=True)
class CorrectionCell:
    name: str
    se: float
    sp: float
    pi: float
    cases: int = 10
    items: int = 6
    concentration: float = 20.0


def _old_method(passed: int, judged: int, tot: ErrorCounts, rng: np.random.Generator) -> tuple:
    """The previous correction: (value, interval or None) — items independent."""
    se, sp = tot.true_pass / tot.passed, tot.true_fail / tot.failed
    if se + sp - 1 <= 0:
        return None, None
    point = min(1.0, max(0.0, (passed / judged + sp - 1) / (se + sp - 1)))
    draws = 4000
    p = rng.beta(passed + 0.5, judged - passed + 0.5, draws)
    s = rng.beta(tot.true_pass + 0.5, tot.false_fail + 0.5, draws)
    q = rng.beta(tot.true_fail + 0.5, tot.false_pass + 0.5, draws)
    j = s + q - 1
    if np.mean(j <= 0) > 0.025:
        return point, None
    v = np.clip((p[j > 0] + q[j > 0] - 1) / j[j > 0], 0, 1)
    lo, hi = np.percentile(v, [2.5, 97.5])
    return point, (float(lo), float(hi))


def correction_cell(cell: CorrectionCell, reps: int, seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    c = cell.concentration

    def rates(n: int) -> tuple[np.ndarray, np.ndarray]:
        return (
            rng.beta(cell.se * c, (1 - cell.se) * c, n),
            rng.beta(cell.sp * c, (1 - cell.sp) * c, n),
        )

    stats = {
        "defined": 0,
        "covered": 0,
        "zero": 0,
        "before_number": 0,
        "before_defined": 0,
        "before_covered": 0,
        "before_zero": 0,
        "clipped": 0,
    }
    widths = []
    for r in range(reps):
        s, q = rates(cell.cases)
        cases = []
        for g in range(cell.cases):
            pos = int(rng.binomial(cell.items, 0.5))
            tp, tn = int(rng.binomial(pos, s[g])), int(rng.binomial(cell.items - pos, q[g]))
            cases.append(ErrorCounts(tp, pos - tp, tn, cell.items - pos - tn))
        bs, bq = rates(100)
        truth = rng.random((100, 5)) < cell.pi
        u = rng.random((100, 5))
        said = np.where(truth, u < bs[:, None], u < 1 - bq[:, None])
        passed, judged = int(said.sum()), said.size
        res = corrected_pass_rate(passed, judged, cases, draws=1000, seed=r)
        if res.corrected.ci95 is not None:
            lo, hi = res.corrected.ci95
            stats["defined"] += 1
            stats["covered"] += lo <= cell.pi <= hi
            stats["zero"] += hi - lo <= 0
            stats["clipped"] += res.note is not None
            widths.append(hi - lo)
        tot = ErrorCounts(*(sum(getattr(x, f) for x in cases) for f in _FIELDS))
        if tot.passed and tot.failed:
            value, ci = _old_method(passed, judged, tot, rng)
            stats["before_number"] += value is not None
            if ci is not None:
                stats["before_defined"] += 1
                stats["before_covered"] += ci[0] <= cell.pi <= ci[1]
                stats["before_zero"] += ci[1] - ci[0] <= 0
    stats["width"] = float(np.median(widths)) if widths else float("nan")
    return stats


_FIELDS = ("true_pass", "false_fail", "true_fail", "false_pass")

TRIAL_CELLS = [
    TrialCell(g, k, mu, icc)
    for g, k in ((5, 5), (10, 5), (30, 5), (100, 5), (20, 3))
    for mu in (0.5, 0.8, 0.95)
    for icc in (0.1, 0.3, 0.6)
] + [TrialCell(g, 5, 0.98, icc) for g in (30, 100) for icc in (0.3, 0.6)]
CORRECTION_CELLS = [
    CorrectionCell("good judge, 10 cases", 0.9, 0.85, 0.3),
    CorrectionCell("good judge, errors lumped by case", 0.9, 0.85, 0.3, concentration=3.0),
    CorrectionCell("low pass rate (judged < 1 - spec often)", 0.9, 0.85, 0.03),
    CorrectionCell("weak judge, J = 0.3", 0.7, 0.6, 0.5),
    CorrectionCell("J near 0 (0.05)", 0.55, 0.5, 0.5),
    CorrectionCell("J = 0.016, 40 cases x 10 items", 0.51, 0.506, 0.5, cases=40, items=10),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few samples; write nothing")
    parser.add_argument("--reps", type=int, default=400, help="samples per trials cell")
    parser.add_argument("--skip-correction", action="store_true", help="the trials part only")
    parser.add_argument("--correction-reps", type=int, default=300)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    reps, creps = (60, 30) if args.quick else (args.reps, args.correction_reps)
    out = args.out if args.out is not None else (None if args.quick else RESULTS)
    started = time.perf_counter()
    lines = [
        "# Coverage of the trial report's success rate and of the corrected pass rate",
        "",
        f"`python benchmarks/bench_trials_coverage.py` — {reps} simulated runs per trials cell "
        f"(1000 case resamples each), {creps} per correction cell (1000 draws each), seeded; "
        f"Python {platform.python_version()}, numpy {np.__version__}, TIME on this machine.",
        "",
        f"## The success rate of `trials` (goal: coverage >= {GOAL} at 5, 10, 30 and 100 cases "
        "x 5 trials, skewed data included)",
        "",
        "Each case has its own success probability (mean mu, intra-case correlation ICC; mu "
        "0.95 and 0.98 with ICC 0.6 are the skewed populations: most cases always succeed, a "
        "few fail often). *before* = Wilson over trials (trials as if independent); *now* = "
        "the case-resampling interval `trials` prints (BCa over cases ∪ cluster jackknife "
        "t(G-1) on the proportion and the logit scale ∪ Wilson floor at trials/deff, each case "
        "counted once when fewer than 5 cases show the rarer outcome). Coverage of mu, with "
        "its 95% Wilson interval over the runs; *above* / *below* = runs whose whole interval "
        "lies above / below mu (the misses, by side); width = median width now. pass^k "
        "(k = trials per case) is the same interval on C(c, k)/C(k, k) per case; its truth is "
        "E[p^k]. Goal met when the coverage is >= the goal, or within Monte-Carlo error "
        "(its Wilson interval reaches the goal).",
        "",
        "| cases x trials | mu | ICC | coverage before | coverage now | above | below "
        "| width now | pass^k: truth | pass^k coverage | goal |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    worst, worst_cell = 1.0, ""
    for i, cell in enumerate(TRIAL_CELLS):
        res = trial_cell(cell, reps, seed=1000 + i)
        cov = float(res["now"]) / reps  # type: ignore[arg-type]
        goal = "—"
        if cell.k == 5:
            if cov < worst:
                worst, worst_cell = cov, f"{cell.cases} x 5, mu {cell.mu}, ICC {cell.icc}"
            upper = wilson(int(res["now"]), reps, confidence=0.95)[1]  # type: ignore[call-overload]
            goal = (
                "met" if cov >= GOAL else "met within MC error" if upper >= GOAL else "**not met**"
            )
        lines.append(
            f"| {cell.cases} x {cell.k} | {cell.mu} | {cell.icc} "
            f"| {_wilson_text(res['before'], reps)} | {_wilson_text(res['now'], reps)} "  # type: ignore[arg-type]
            f"| {res['above']} | {res['below']} "
            f"| {res['width']:.2f} | {res['truth_k']:.3f} "
            f"| {_wilson_text(res['pass_k'], reps)} | {goal} |"  # type: ignore[arg-type]
        )
        print(lines[-1], file=sys.stderr, flush=True)
    lines += [
        "",
        f"Lowest coverage at 5 trials a case: **{worst:.3f}** ({worst_cell}, n = {reps} runs) "
        f"— goal >= {GOAL}.",
        "",
        "## The corrected pass rate of `score`",
        "",
        "Calibration: G cases of m items (half passed by the experts on average), each case with "
        "its own sensitivity and specificity (Beta around the judge's; concentration 20, or 3 "
        "where errors are lumped by case). Batch: 100 cases x 5 items, true pass rate pi. "
        "*now*: `corrected_pass_rate` (the calibration resampled by case). *before*: the "
        "previous method (items independent). Coverage among the runs with an interval, with "
        "its Wilson interval; undefined = no corrected rate (the reason is given); "
        "zero-width = intervals [x, x]. Goal: coverage >= 0.93 when defined, no zero-width "
        "interval, and a judge near chance undefined rather than a number.",
        "",
        "| setting | sens | spec | J | pi | cases x items | defined now | coverage now "
        "| width now | clipped | zero-width now | number printed before | coverage before "
        "| zero-width before | goal |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, ccell in enumerate([] if args.skip_correction else CORRECTION_CELLS):
        st = correction_cell(ccell, creps, seed=2000 + i)
        d = int(st["defined"])  # type: ignore[call-overload]
        cov = st["covered"] / d if d else None  # type: ignore[operator]
        j = ccell.se + ccell.sp - 1
        if j < 0.1:
            ok = d / creps <= 0.5 and st["zero"] == 0
            goal = (
                "met (mostly undefined)" if ok else "**not met** (a number for a judge near chance)"
            )
        else:
            ok = cov is not None and cov >= GOAL and st["zero"] == 0
            goal = "met" if ok else "**not met**"
        lines.append(
            f"| {ccell.name} | {ccell.se} | {ccell.sp} | {j:.3f} | {ccell.pi} "
            f"| {ccell.cases} x {ccell.items} | {d}/{creps} "
            f"| {_wilson_text(int(st['covered']), d)} | {st['width']:.2f} "  # type: ignore[call-overload]
            f"| {st['clipped']} | {st['zero']} | {st['before_number']}/{creps} "
            f"| {_wilson_text(int(st['before_covered']), int(st['before_defined']))} "  # type: ignore[call-overload]
            f"| {st['before_zero']} | {goal} |"
        )
        print(lines[-1], file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    lines[2] = lines[2].replace("TIME", f"{elapsed:.0f} s")
    text = "\n".join(lines) + "\n"
    if out is not None:
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
