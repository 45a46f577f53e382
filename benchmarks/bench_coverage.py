"""Coverage of the 95% agreement intervals, by simulation (issue 9, point 7).

Two raters label n items on a binary scale drawn from a known population: prevalence pi
(both raters' marginal) and Cohen's kappa kappa, i.e. cell probabilities
P(1,1) = pi^2 + kappa pi (1-pi), P(1,0) = P(0,1) = (1-kappa) pi (1-pi), P(0,0) = the rest.
Ordinal cells: a 4-level scale and linear-weighted kappa (see ``_ordinal_joint``).
Each simulated sample goes through the library's own ``bootstrap_pairwise`` (the path
``calibrate`` and ``agree`` use), once with the plain percentile interval (the old method) and
once with the default interval (BCa / cluster jackknife t, united with the Wilson score floor).
A cell's coverage is the share of samples whose interval contains the true kappa, among the
samples where kappa is defined (a sample in which both raters used one label has no kappa;
those are counted in ``undefined``, and the gate reports them as UNDECIDED).

Clustered cells: G clusters (cases) of 3-7 items; each cluster has its own prevalence
pi_g ~ Beta with mean pi and intra-cluster correlation ``icc``; the true kappa is the kappa of
the population's pooled table (computed exactly below).

    python benchmarks/bench_coverage.py          # full grid -> benchmarks/results/coverage.md
    python benchmarks/bench_coverage.py --quick  # smoke test: a few cells, few simulations
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibrant.agreement import bootstrap_pairwise
from calibrant.agreement.ci import wilson

RESULTS = Path(__file__).parent / "results" / "coverage.md"


@dataclass(frozen=True)
class Cell:
    n: int
    kappa: float  # binary cells: the planted kappa; ordinal cells: each rater's error rate
    prevalence: float  # binary: share of the positive label; ordinal: share of the top level
    clusters: int | None = None
    icc: float = 0.0
    ordinal: bool = False


def _ordinal_joint(error: float, top: float) -> np.ndarray:
    """Joint 4 x 4 distribution of two raters on a 4-level scale: the true level has shares
    ((1-top)/3, (1-top)/3, (1-top)/3, top); each rater reports it, or with probability
    ``error`` a neighbouring level (clipped at the ends)."""
    levels = 4
    share = np.array([(1 - top) / 3] * 3 + [top])
    report = np.zeros((levels, levels))
    for t in range(levels):
        report[t, t] += 1 - error
        report[t, max(t - 1, 0)] += error / 2
        report[t, min(t + 1, levels - 1)] += error / 2
    return np.einsum("t,ti,tj->ij", share, report, report)


def _weighted_kappa(joint: np.ndarray) -> float:
    k = joint.shape[0]
    w = np.abs(np.subtract.outer(np.arange(k), np.arange(k)))
    return float(1 - (w * joint).sum() / (joint.sum(axis=1) @ w @ joint.sum(axis=0)))


def _cells(p_1: float, kappa: float) -> np.ndarray:
    """Cell probabilities (00, 01, 10, 11) of the common-marginal model."""
    q = p_1 * (1 - p_1)
    both_1 = p_1 * p_1 + kappa * q
    off = (1 - kappa) * q
    return np.array([1 - both_1 - 2 * off, off, off, both_1])


def true_kappa(cell: Cell) -> float:
    """Kappa of the population table (pooled over clusters when pi varies by cluster)."""
    if cell.ordinal:
        return _weighted_kappa(_ordinal_joint(cell.kappa, cell.prevalence))
    if cell.clusters is None or cell.icc == 0:
        return cell.kappa
    pi = cell.prevalence
    var = cell.icc * pi * (1 - pi)  # Var(pi_g) of the Beta with this ICC
    q = pi * (1 - pi) - var  # E[pi_g (1 - pi_g)]
    off = (1 - cell.kappa) * q
    return 1 - 2 * off / (2 * pi * (1 - pi))


def draw(cell: Cell, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One sample: the two raters' codes and the cluster id of each item (or None)."""
    if cell.ordinal:
        codes = rng.choice(16, size=cell.n, p=_ordinal_joint(cell.kappa, cell.prevalence).ravel())
        return codes // 4, codes % 4, None
    if cell.clusters is None:
        codes = rng.choice(4, size=cell.n, p=_cells(cell.prevalence, cell.kappa))
        return codes // 2, codes % 2, None
    g = cell.clusters
    sizes = rng.integers(3, 8, size=g)
    concentration = 1 / cell.icc - 1
    a, b = cell.prevalence * concentration, (1 - cell.prevalence) * concentration
    pis = rng.beta(a, b, size=g)
    probs = np.stack([_cells(p, cell.kappa) for p in pis])  # (g, 4)
    ids = np.repeat(np.arange(g), sizes)
    cum = probs.cumsum(axis=1)[ids]
    codes = (rng.random(ids.size)[:, None] > cum).sum(axis=1).clip(0, 3)
    return codes // 2, codes % 2, ids


@dataclass
class Tally:
    covered: int = 0
    defined: int = 0
    undefined: int = 0
    widths: list[float] | None = None

    def add(self, ci: object, truth: float) -> None:
        if not isinstance(ci, tuple):
            self.undefined += 1
            return
        self.defined += 1
        self.covered += ci[0] <= truth <= ci[1]
        if self.widths is None:
            self.widths = []
        self.widths.append(ci[1] - ci[0])

    def text(self) -> str:
        if self.defined == 0:
            return "undefined in every sample"
        lo, hi = wilson(self.covered, self.defined, confidence=0.95)
        return f"{self.covered / self.defined:.3f} [{lo:.3f}, {hi:.3f}]"

    def width(self) -> str:
        return "–" if not self.widths else f"{float(np.median(self.widths)):.2f}"


def run_cell(cell: Cell, *, sims: int, resamples: int, seed: int) -> tuple[Tally, Tally]:
    rng = np.random.default_rng(seed)
    truth = true_kappa(cell)
    old, new = Tally(), Tally()
    for s in range(sims):
        x, y, ids = draw(cell, rng)
        k, statistic = (4, "weighted_kappa_linear") if cell.ordinal else (2, "cohen_kappa")
        for method, tally in (("percentile", old), ("bca", new)):
            r = bootstrap_pairwise(
                x,
                y,
                k=k,
                seed=s,
                n_resamples=resamples,
                clusters=ids,
                method=method,  # type: ignore[arg-type]
                statistic=statistic,  # type: ignore[arg-type]
            )
            tally.add(r.ci, truth)
    return old, new


def grid(quick: bool) -> list[Cell]:
    if quick:
        return [
            Cell(30, 0.9, 0.5),
            Cell(20, 0.6, 0.05),
            Cell(50, 0.6, 0.3, clusters=10, icc=0.2),
            Cell(30, 0.1, 0.6, ordinal=True),
        ]
    cells = [
        Cell(n, k, p)
        for n in (20, 30, 50, 100, 200)
        for k in (0.4, 0.6, 0.8, 0.9)
        for p in (0.05, 0.2, 0.5)
    ]
    cells += [
        Cell(50, k, p, clusters=10, icc=icc)
        for k in (0.4, 0.6, 0.8, 0.9)
        for p in (0.2, 0.5)
        for icc in (0.1, 0.3)
    ]
    cells += [
        Cell(n, error, top, ordinal=True)
        for n in (20, 50, 100)
        for error in (0.1, 0.3, 0.5)
        for top in (0.25, 0.6)
    ]
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke test: few cells, few sims")
    parser.add_argument("--sims", type=int, default=None, help="simulations per cell")
    parser.add_argument("--resamples", type=int, default=None, help="bootstrap resamples")
    parser.add_argument("--out", type=Path, default=None, help="Markdown output file")
    args = parser.parse_args(argv)
    sims = args.sims or (40 if args.quick else 400)
    resamples = args.resamples or (300 if args.quick else 1000)
    out = args.out if args.out is not None else (None if args.quick else RESULTS)
    start = time.perf_counter()
    rows = []
    worst = 1.0
    for i, cell in enumerate(grid(args.quick)):
        old, new = run_cell(cell, sims=sims, resamples=resamples, seed=1000 + i)
        if new.defined:
            worst = min(worst, new.covered / new.defined)
        design = "items" if cell.clusters is None else f"{cell.clusters} clusters, ICC {cell.icc}"
        planted = f"{cell.kappa}"
        if cell.ordinal:
            design = "ordinal, 4 levels, linear-weighted κ"
            planted = f"error {cell.kappa}"
        rows.append(
            f"| {cell.n} | {design} | {planted} | {cell.prevalence} | {true_kappa(cell):.3f} "
            f"| {new.defined} | {new.undefined} | {old.text()} | {new.text()} "
            f"| {old.width()} | {new.width()} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - start
    lines = [
        "# Coverage of the 95% agreement intervals",
        "",
        f"`python benchmarks/bench_coverage.py{' --quick' if args.quick else ''}` — "
        f"{sims} simulated samples per cell, {resamples} bootstrap resamples each, "
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"{elapsed:.0f} s on this machine.",
        "",
        "Binary labels from two raters with known Cohen's kappa and prevalence (both raters' "
        "share of the positive label); clustered cells draw 10 cases of 3-7 transcripts, each "
        "case with its own prevalence (intra-case correlation ICC). Coverage = share of samples "
        "whose interval contains the true kappa, among the samples where kappa is defined "
        "(`defined`); `undefined` samples (a rater used one label only) have no interval and "
        "the gate calls them UNDECIDED. Each coverage has its 95% Wilson interval over the "
        "`defined` samples. *before* = percentile bootstrap; *now* = BCa bootstrap (clusters: "
        "united with a cluster jackknife t(G-1) interval), united with the Wilson score floor. "
        "Width = median interval width. Ordinal cells: two raters on a 4-level scale report "
        "the true level or, with the given error rate, a neighbouring one; the statistic is "
        "linear-weighted kappa (what the gate uses on ordinal criteria), and the prevalence "
        "column is the share of the top level.",
        "",
        "| n | design | κ | prevalence | true κ | defined | undefined | coverage before "
        "| coverage now | width before | width now |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Lowest coverage now: **{worst:.3f}** (goal: ≥ 0.93 in every cell).",
        "",
    ]
    text = "\n".join(lines)
    if out is not None:
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)
    else:
        print(text)
    return 0 if math.isfinite(worst) else 1


if __name__ == "__main__":
    raise SystemExit(main())
