"""Which items to label next: labels to a gate decision, by strategy, by simulation (issue 22).

A judge of true Cohen's kappa ``κ`` on one binary criterion (``fail`` rare, ``pass``) is measured
against the experts' consensus, as ``calibrate --no-ceiling`` gates it: PASS when the lower end of
kappa's 95% case-clustered interval is at least the bar (0.6), FAIL when the upper end is below
it, UNDECIDED otherwise (and below 8 cases or 20 items). The interval and the decision come from
the real calibrant code: :func:`calibrant.agreement.noninferiority.paired_comparison` (one expert,
the consensus, with ``clusters=`` the cases, 2,000 resamples) and
:func:`calibrant.agreement.gate.release_gate` (``use_ceiling=False``, coverage 1). The proposal
is :func:`calibrant.calibration.propose.propose`, as ``calibrant propose`` calls it.

Population of one run (``--scenarios``, ``LO-HIxCASES[cCONC]``, e.g. ``1-4x300c4``): 300 cases
of 1-4 items each (uniform). The rare class's share
``p`` is drawn per run, uniform in [0.15, 0.30]; a case's own fail share is Beta with mean ``p``
and concentration 4 (cases differ), an item's consensus label is fail with that share. The judge
gives the consensus label with probability ``a_c``, the case's accuracy, Beta with mean ``a`` and
concentration 20 (``c4``: 4, the judge's errors cluster by case much more; some cases are hard
for it), and the other label otherwise; ``a`` is solved so
that the population's kappa, ``(a - pe) / (1 - pe)`` with ``pe`` from the rates ``p`` and ``p a +
(1 - p)(1 - a)``, is the target κ. A second judge version errs independently with the same case
accuracies (for ``disagree``). The consensus is the truth of the simulation (no expert noise).

Each run starts from ``--start`` items drawn at random that leave the gate UNDECIDED (redrawn
otherwise); then every strategy, from the same start on the same population, asks ``propose``
for ``--batch`` items, labels them, re-runs the gate, until it decides or ``--budget`` labels
were added. A decision is wrong when it is PASS while the population's own kappa (over all its
items, the quantity a random sample estimates) is below the bar, or FAIL while it is at or above
it.

    python benchmarks/bench_active.py              # 80 runs per κ, one scenario: < 3 min
    python benchmarks/bench_active.py --runs 200 --scenarios 1-4x300,1-4x300c4,4-8x150c4,10-20x40c4
                                                   # the committed results/active.md
    python benchmarks/bench_active.py --quick      # a smoke run: printed, not written
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

import numpy as np

from calibrant.agreement.ci import wilson
from calibrant.agreement.gate import GateSettings, release_gate
from calibrant.agreement.noninferiority import paired_comparison
from calibrant.calibration.propose import STRATEGIES, LabeledItem, PoolItem, Strategy, propose

RESULTS = Path(__file__).parent / "results" / "active.md"
BAR = 0.6
RESAMPLES = 2000
CASE_CONC, ACC_CONC = 4.0, 20.0
ORDER: tuple[Strategy, ...] = ("random", "stratified", "unseen", "disagree", "proposed")
assert set(ORDER) == set(STRATEGIES)


def accuracy_for(kappa: float, p: float) -> float:
    """The symmetric accuracy ``a`` at which a judge has population kappa ``kappa`` at rare-class
    share ``p`` (bisection on a monotone function)."""

    def k(a: float) -> float:
        q = p * a + (1 - p) * (1 - a)
        pe = p * q + (1 - p) * (1 - q)
        return (a - pe) / (1 - pe)

    lo, hi = 0.5, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if k(mid) < kappa else (lo, mid)
    return (lo + hi) / 2


@dataclass
class Population:
    case: np.ndarray  # case id per item
    truth: np.ndarray  # 1 = fail (rare), 0 = pass
    judge: np.ndarray
    judge_b: np.ndarray

    @property
    def kappa(self) -> float:
        """Cohen's kappa of the judge with the consensus over every item of the population."""
        po = float(np.mean(self.judge == self.truth))
        pt, pj = float(self.truth.mean()), float(self.judge.mean())
        pe = pt * pj + (1 - pt) * (1 - pj)
        return (po - pe) / (1 - pe)


@dataclass(frozen=True)
class Scenario:
    smallest: int  # items per case, uniform from smallest to largest
    largest: int
    cases: int
    accuracy_concentration: float = ACC_CONC  # lower: the judge's errors cluster more by case

    @classmethod
    def parse(cls, text: str) -> Scenario:
        sizes, _, rest = text.partition("x")
        cases, _, conc = rest.partition("c")
        lo, _, hi = sizes.partition("-")
        return cls(int(lo), int(hi or lo), int(cases), float(conc or ACC_CONC))

    def __str__(self) -> str:
        return f"{self.smallest}-{self.largest}x{self.cases}c{self.accuracy_concentration:g}"


def population(rng: np.random.Generator, kappa: float, sc: Scenario) -> Population:
    n_cases = sc.cases
    p = rng.uniform(0.15, 0.30)
    a = accuracy_for(kappa, p)
    sizes = rng.integers(sc.smallest, sc.largest + 1, n_cases)
    case = np.repeat(np.arange(n_cases), sizes)
    pc = rng.beta(p * CASE_CONC, (1 - p) * CASE_CONC, n_cases)[case]
    conc = sc.accuracy_concentration
    ac = rng.beta(a * conc, (1 - a) * conc, n_cases)[case]
    truth = (rng.random(case.size) < pc).astype(np.int64)
    judge = np.where(rng.random(case.size) < ac, truth, 1 - truth)
    judge_b = np.where(rng.random(case.size) < ac, truth, 1 - truth)
    return Population(case, truth, judge, judge_b)


SETTINGS = GateSettings(min_lower=BAR, use_ceiling=False)


def gate(pop: Population, chosen: list[int], seed: int) -> tuple[str, float]:
    """The gate's decision on the labeled items ``chosen``, and their kappa."""
    idx = np.asarray(chosen)
    comparison = paired_comparison(
        pop.judge[idx],
        pop.truth[idx][None, :],
        k=2,
        seed=seed,
        statistic="cohen_kappa",
        n_resamples=RESAMPLES,
        confidence=0.95,
        clusters=pop.case[idx],
    )
    est = comparison.judge.estimate
    status = release_gate(comparison, coverage=1.0, settings=SETTINGS).status
    return status, est if isinstance(est, float) else float("nan")


@dataclass
class Outcome:
    status: str  # PASS, FAIL or UNDECIDED (budget spent)
    labels: int  # labels added until the decision (the budget when undecided)
    cases: int  # new cases among them
    kappa: float  # the labeled set's kappa at the end


def follow(
    pop: Population, start: list[int], strategy: Strategy, seed: int, args: argparse.Namespace
) -> Outcome:
    chosen = list(start)
    status, kappa = "UNDECIDED", float("nan")
    labeled_cases = {int(pop.case[i]) for i in start}
    names = [f"i{i}" for i in range(pop.case.size)]
    added = 0
    while added < args.budget:
        taken = set(chosen)
        labeled = [
            LabeledItem(names[i], int(pop.case[i]), int(pop.judge[i]), int(pop.truth[i]))
            for i in chosen
        ]
        pool = [
            PoolItem(names[i], int(pop.case[i]), int(pop.judge[i]), int(pop.judge_b[i]))
            for i in range(pop.case.size)
            if i not in taken
        ]
        step = min(args.batch, args.budget - added)
        picks = propose(labeled, pool, count=step, strategy=strategy, seed=seed + added)
        chosen += [int(p.item[1:]) for p in picks]
        added += len(picks)
        status, kappa = gate(pop, chosen, seed)
        if status != "UNDECIDED":
            break
    new = len({int(pop.case[i]) for i in chosen} - labeled_cases)
    return Outcome(status, added, new, kappa)


Run = tuple[float, dict[Strategy, Outcome]]


def one_run(seed: int, kappa: float, sc: Scenario, args: argparse.Namespace) -> Run | None:
    rng = np.random.default_rng([seed, round(kappa * 1000)])
    pop = population(rng, kappa, sc)
    for _ in range(50):
        start = [int(i) for i in rng.choice(pop.case.size, args.start, replace=False)]
        if gate(pop, start, seed)[0] == "UNDECIDED":
            break
    else:
        return None
    return pop.kappa, {s: follow(pop, start, s, seed, args) for s in ORDER}


def fmt_rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n, confidence=0.95) if n else (0.0, 1.0)
    return f"{k / n:.2f} [{lo:.2f}, {hi:.2f}] ({k}/{n})" if n else "– (0/0)"


def shown(x: float, beyond: str) -> str:
    return f"{x:g}" if math.isfinite(x) else beyond


def censored_median(xs: list[float]) -> float:
    """The median with undecided runs at +infinity (infinite when half or more are)."""
    return float(median(xs))


def ratio_ci(
    prop: list[float], rand: list[float], budget: int, rng: np.random.Generator, n_boot: int = 2000
) -> str:
    """Median labels of a strategy over random's (undecided = +inf), with a 95% percentile
    interval from resampling runs (paired: both strategies ran on each run); when random's
    median is beyond the budget only a bound is stated."""
    a, b = np.asarray(prop), np.asarray(rand)
    ma, mb = float(np.median(a)), float(np.median(b))
    if not math.isfinite(mb):
        if not math.isfinite(ma):
            return "– (both medians beyond the budget)"
        return f"< {ma / budget:.2f} (random's median beyond the budget of {budget})"
    if not math.isfinite(ma):
        return f"> {budget / mb:.2f} (its median beyond the budget of {budget})"
    idx = rng.integers(0, a.size, (n_boot, a.size))
    na, nb = np.median(a[idx], axis=1), np.median(b[idx], axis=1)
    ok = np.isfinite(na) & np.isfinite(nb)
    if ok.mean() < 0.95:
        return f"{ma / mb:.2f} (interval undefined: a median beyond the budget in resamples)"
    r = na[ok] / nb[ok]
    return f"{ma / mb:.2f} [{np.quantile(r, 0.025):.2f}, {np.quantile(r, 0.975):.2f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--runs", type=int, default=80, help="simulated runs per scenario and kappa"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kappas", default="0.5,0.7", help="true kappas, comma-separated")
    parser.add_argument(
        "--scenarios",
        default="1-4x300",
        help="populations, comma-separated: LO-HIxCASES = CASES cases of LO to HI items each",
    )
    parser.add_argument("--start", type=int, default=30, help="labeled items at the start")
    parser.add_argument("--batch", type=int, default=20, help="labels added per round")
    parser.add_argument("--budget", type=int, default=400, help="labels added at most")
    parser.add_argument("--quick", action="store_true", help="10 runs; print, do not write")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the table")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs = 10
    kappas = [float(x) for x in args.kappas.split(",")]
    t0 = time.time()
    runs: dict[tuple[Scenario, float], list[Run]] = {}
    skipped: dict[tuple[Scenario, float], int] = {}
    scenarios = [Scenario.parse(x) for x in args.scenarios.split(",")]
    cells = [(sc, kappa) for sc in scenarios for kappa in kappas]
    for cell in cells:
        sc, kappa = cell
        runs[cell], skipped[cell] = [], 0
        for r in range(args.runs):
            out = one_run(args.seed * 1_000_003 + r, kappa, sc, args)
            if out is None:
                skipped[cell] += 1
            else:
                runs[cell].append(out)
        print(f"{sc} κ {kappa}: {len(runs[cell])} runs, {time.time() - t0:.0f} s", file=sys.stderr)
    elapsed = time.time() - t0
    rng = np.random.default_rng(args.seed)
    lines = [
        "# Which items to label next: labels to a gate decision, by strategy",
        "",
        f"`python benchmarks/bench_active.py --runs {args.runs} --seed {args.seed} --kappas "
        f"{args.kappas} --scenarios {args.scenarios} --start {args.start} --batch {args.batch} "
        f"--budget {args.budget}` — {args.runs} simulated runs per κ, seed {args.seed}; gate bar "
        f"κ {BAR} (`--no-ceiling`), {RESAMPLES} resamples; Python "
        f"{platform.python_version()}, numpy {np.__version__}, {elapsed:.0f} s on 2 shared cores.",
        "",
        " ".join(line.strip() for line in (__doc__ or "").split("\n\n")[1:4]),
        "",
        "Per strategy: the median number of labels added until the gate decided (undecided "
        "runs count as never: ∞ when half or more of them are), the new cases among them, "
        "P(decided within the budget) and the wrong-decision rate among decided runs with 95% "
        "Wilson intervals, the ratio of the median labels to random's, with a 95% "
        "percentile interval from resampling the runs (both strategies ran on the same runs), "
        "and how far the labeled set's kappa ended from the population's (a strategy that "
        "shifts it makes the gate measure another kappa).",
        "",
    ]
    for cell in cells:
        sc, kappa = cell
        rs = [o for _, o in runs[cell]]
        realized = [k for k, _ in runs[cell]]
        n = len(rs)
        lines += [
            f"## {sc.cases} cases of {sc.smallest}–{sc.largest} items, judge accuracy by case "
            f"Beta(concentration {sc.accuracy_concentration:g}), true κ {kappa} "
            f"({'above' if kappa > BAR else 'below'} the bar; {n} runs"
            + (f", {skipped[cell]} without an undecided start skipped" if skipped[cell] else "")
            + ")",
            "",
            f"The population's own kappa (all its items) ranged {min(realized):.2f}–"
            f"{max(realized):.2f} (median {median(realized):.2f}); a decision is wrong when it "
            "is on the other side of the bar from it.",
            "",
            "| strategy | median labels to a decision | median new cases | P(decided within "
            f"{args.budget}) | wrong decisions (of decided) | labels / random's | labeled set's "
            "κ − population's (mean, at the end) |",
            "|---|---|---|---|---|---|---|",
        ]
        inf = float("inf")
        rand = [o["random"].labels if o["random"].status != "UNDECIDED" else inf for o in rs]
        for s in ORDER:
            outs = [o[s] for o in rs]
            lab = [o.labels if o.status != "UNDECIDED" else inf for o in outs]
            cases = [o.cases if o.status != "UNDECIDED" else inf for o in outs]
            decided = [o for o in outs if o.status != "UNDECIDED"]
            wrong = sum(
                1
                for (k, _), o in zip(runs[cell], outs, strict=True)
                if o.status != "UNDECIDED" and (o.status == "PASS") != (k >= BAR)
            )
            med = censored_median(lab)
            shift = float(
                np.nanmean([o.kappa - k for (k, _), o in zip(runs[cell], outs, strict=True)])
            )
            ratio_text = "1" if s == "random" else ratio_ci(lab, rand, args.budget, rng)
            lines.append(
                f"| {s} | {shown(med, f'> {args.budget}')} | "
                f"{shown(censored_median(cases), '–')} | {fmt_rate(len(decided), n)} | "
                f"{fmt_rate(wrong, len(decided))} | {ratio_text} | {shift:+.3f} |"
            )
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
