"""Power of the release gate on a gold split: does a judge as good as the experts PASS there?

For one split of a gold set (``gold/manifest.yaml`` + ``gold/labels/*.jsonl``, read by
calibrant's own loader) and each criterion of the rubric, the split's structure is kept as it is:
its cases, the items of each case, which expert labelled which item, and each item's consensus
label (its true level, or not applicable). Two experts and a judge are then simulated on that
structure. A rater gives an item's true level with probability ``p_case = expit(logit(s) + z)``,
``z ~ N(0, 1)`` drawn once per case (items of one case move together, as the case bootstrap
assumes), else a level drawn from the criterion's consensus shares; on a criterion that allows
not_applicable it tells applicability right with probability ``a`` (else it guesses, not
applicable with the criterion's share of not-applicable items), and gives a level only to items
it finds applicable. ``s`` is solved (bisection on 4,000 resampled cases) so that the two
simulated experts' pooled kappa (linear-weighted on an ordinal criterion) equals the two real
experts' kappa on every labelled item of the gold set (all splits: the most items); ``a`` so that
their applicability kappa equals the real experts' one. The judge has the experts' ``s`` and
``a``: a judge exactly as good as one more expert (D = 0 in expectation, applicability
included). Each simulated gold set goes through ``gate_part`` and ``applicability_comparison``,
the functions ``calibrate`` calls, with default gate settings and coverage counted as calibrate
counts it.

Power is the PASS rate on the split as it is, then on the split scaled up by resampling its cases
with replacement to G cases, G on a grid, until the PASS rate reaches 0.8: the first such G is the
number of cases the split needs for that criterion (a grid value, so an upper end: the true
need lies between it and the grid value before). Each rate carries its 95% Wilson interval over
the simulated gold sets.

What-ifs (gold v4 planning; any of them writes ``results/gold_power_whatif.md`` unless ``--out``
is given): ``--experts-kappa CRIT=K`` simulates experts and judge at kappa K on that criterion
instead of the measured one (what a rubric revision would buy if it raised agreement to K),
``--applicability-kappa CRIT=K`` the same for applicability; ``--design KIND`` with
``--items-per-case K`` adds new held-out cases to the split as it is instead of resampling it
(KIND: targeted, mixed or balanced, see ``Design``) and searches the number of new cases by
bisection on a grid; ``--early-stop`` stops a row once its 95% interval excludes 0.8 (looked at
every 50 sets); ``--criteria`` limits the run to some criteria.

    python benchmarks/bench_gold_power.py                       # gold/, held-out split
    python benchmarks/bench_gold_power.py --gold DIR --split heldout --rubric FILE --out FILE
    python benchmarks/bench_gold_power.py --quick               # a smoke run, printed
    python benchmarks/bench_gold_power.py --criteria reports_access_problem \
        --experts-kappa reports_access_problem=0.9 --design targeted --items-per-case 5
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibrant.agreement.ci import wilson
from calibrant.agreement.gate import GateDecision, GateSettings
from calibrant.agreement.pairwise import kappa_from_tables
from calibrant.calibration.criterion import ABSTAIN, scale_of
from calibrant.calibration.gate_section import applicability_comparison, gate_part
from calibrant.contracts import NOT_APPLICABLE, Criterion
from calibrant.files import load_rubric
from calibrant.gold import CONSENSUS, GoldSet, load_gold

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results" / "gold_power.md"
WHATIF_RESULTS = Path(__file__).parent / "results" / "gold_power_whatif.md"
GRID = [20, 30, 40, 60, 80, 120, 160, 240]
TARGET_POWER = 0.8
CASE_SD = 1.0  # sd of the case effect on the logit of a rater's accuracy
POPULATION = 4000  # resampled cases the skills are solved on
NA, UNRATED = -1, -2  # codes of the simulation: not applicable, no label


@dataclass(frozen=True)
class Structure:
    """One criterion on one split: per item its case, its consensus code (NA: not applicable)
    and which experts labelled it; the criterion's level shares and not-applicable share."""

    criterion: Criterion
    k: int
    statistic: str
    case_of_item: np.ndarray  # case index per item
    truth: np.ndarray  # consensus code per item; NA; UNRATED (no consensus: applies, unknown)
    rated: np.ndarray  # (experts, items) bool: that expert labelled that item
    shares: np.ndarray  # consensus level shares (all splits)
    na_share: float
    n_cases: int


def _codes(c: Criterion, labels: list[Any]) -> np.ndarray:
    """Scale codes; NA for not_applicable; UNRATED for no label or an abstention."""
    scale = scale_of(c)
    out = np.full(len(labels), UNRATED, dtype=np.int64)
    for i, v in enumerate(labels):
        if v is None or v in ABSTAIN:
            continue
        if v == NOT_APPLICABLE and NOT_APPLICABLE not in scale.labels:
            out[i] = NA
        else:
            out[i] = int(scale.encode([v])[0])
    return out


def _kappa(a: np.ndarray, b: np.ndarray, k: int, ordinal: bool) -> float:
    ok = (a >= 0) & (b >= 0)
    t = np.bincount(a[ok] * k + b[ok], minlength=k * k).reshape(k, k)
    return float(kappa_from_tables(t, weights="linear" if ordinal else None)[0])


def _applicability_kappa(a: np.ndarray, b: np.ndarray) -> float:
    ok = (a != UNRATED) & (b != UNRATED)
    return _kappa((a[ok] == NA).astype(np.int64), (b[ok] == NA).astype(np.int64), 2, False)


def structure(c: Criterion, split: GoldSet) -> Structure:
    items = split.item_ids
    raters = sorted(split.experts)
    cases = [split.items[i].case for i in items]
    names = sorted(set(cases))
    truth = _codes(c, [split.labels_by(CONSENSUS, c.id).get(i) for i in items])
    rated = np.vstack(
        [_codes(c, [split.labels_by(r, c.id).get(i) for i in items]) != UNRATED for r in raters]
    )
    scale = scale_of(c)
    return Structure(
        criterion=c,
        k=scale.k,
        statistic="weighted_kappa_linear" if scale.level == "ordinal" else "cohen_kappa",
        case_of_item=np.asarray([names.index(x) for x in cases]),
        truth=truth,
        rated=rated,
        shares=np.ones(scale.k) / scale.k,
        na_share=0.0,
        n_cases=len(names),
    )


def expert_agreement(c: Criterion, every: GoldSet) -> dict[str, Any]:
    """The real experts' kappa (and applicability kappa) on every labelled item of the gold set,
    and the consensus's level shares and not-applicable share."""
    items = every.item_ids
    raters = sorted(every.experts)
    a, b = (_codes(c, [every.labels_by(r, c.id).get(i) for i in items]) for r in raters[:2])
    cons = _codes(c, [every.labels_by(CONSENSUS, c.id).get(i) for i in items])
    k = scale_of(c).k
    ordinal = scale_of(c).level == "ordinal"
    levels = cons[cons >= 0]
    return {
        "kappa": _kappa(a, b, k, ordinal),
        "n_items": int(((a >= 0) & (b >= 0)).sum()),
        "applicability_kappa": _applicability_kappa(a, b) if c.not_applicable_when else None,
        "shares": np.bincount(levels, minlength=k) / max(levels.size, 1),
        "na_share": float((cons == NA).sum() / max((cons != UNRATED).sum(), 1)),
    }


def draw_cases(
    st: Structure, rng: np.random.Generator, g: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """(item indices, case index per item) of a gold set of ``g`` cases resampled with
    replacement from the split's cases (``None``: the split as it is)."""
    if g is None:
        return np.arange(st.truth.size), st.case_of_item
    picks = rng.integers(0, st.n_cases, size=g)
    members = [np.flatnonzero(st.case_of_item == c) for c in range(st.n_cases)]
    idx = np.concatenate([members[c] for c in picks])
    return idx, np.repeat(np.arange(g), [members[c].size for c in picks])


DESIGNS = ("targeted", "mixed", "balanced")


@dataclass(frozen=True)
class Design:
    """New held-out cases a gold v4 would add to the split (a what-if): ``new_cases`` cases of
    ``items_per_case`` items, every item labelled by both experts, each applicable item's true
    level drawn from the consensus shares. Applicability, on a criterion that allows
    not_applicable: *targeted*, the criterion applies to every item (each case built around a
    denied, failed or lost call); *mixed*, like the split's cases (each new case copies the
    applicability of a random split case's items, drawn with replacement); *balanced*, half the
    new cases (at random) wholly not applicable, half targeted."""

    kind: str = "targeted"
    items_per_case: int = 3
    new_cases: int = 0


def new_cases(
    st: Structure, rng: np.random.Generator, design: Design
) -> tuple[np.ndarray, np.ndarray]:
    """(consensus code per new item, case index per new item, from 0) of the design's cases."""
    n, k = design.new_cases, design.items_per_case
    cases = np.repeat(np.arange(n), k)
    level = rng.choice(st.k, size=n * k, p=st.shares)
    if not st.criterion.not_applicable_when or design.kind == "targeted":
        return level, cases
    if design.kind == "balanced":
        na = np.repeat(rng.random(n) < 0.5, k)
    else:  # mixed: the applicability of a random split case's items, with replacement
        members = [np.flatnonzero(st.case_of_item == c) for c in range(st.n_cases)]
        picks = rng.integers(0, st.n_cases, size=n)
        na = np.concatenate([st.truth[rng.choice(members[c], size=k)] == NA for c in picks])
    return np.where(na, NA, level), cases


def simulate(
    st: Structure,
    rng: np.random.Generator,
    g: int | None,
    s: float,
    a: float,
    design: Design | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(codes (3, items), truth, cases)``: judge, expert 1, expert 2 (NA, UNRATED, levels);
    with a ``design``, its new cases follow the split's (both experts label every new item)."""
    idx, cases = draw_cases(st, rng, g)
    truth, rated = st.truth[idx], st.rated[:, idx]
    if design is not None and design.new_cases:
        more, more_cases = new_cases(st, rng, design)
        truth = np.concatenate([truth, more])
        cases = np.concatenate([cases, more_cases + int(cases.max()) + 1])
        rated = np.hstack([rated, np.ones((rated.shape[0], more.size), dtype=bool)])
    n = truth.size
    n_cases = int(cases.max()) + 1
    applies = truth != NA
    level = np.where(truth >= 0, truth, rng.choice(st.k, size=n, p=st.shares))
    logit_s = np.log(s / (1 - s))
    out = np.empty((3, n), dtype=np.int64)
    for r in range(3):
        z = rng.normal(0.0, CASE_SD, size=n_cases)[cases]
        p = 1 / (1 + np.exp(-(logit_s + z)))
        random_level = rng.choice(st.k, size=n, p=st.shares)
        label = np.where(rng.random(n) < p, level, random_level)
        if st.criterion.not_applicable_when:
            guess = rng.random(n) >= st.na_share
            sees = np.where(rng.random(n) < a, applies, guess)
            label = np.where(sees, label, NA)
        if r > 0:  # the experts label what they labelled in the gold set
            label = np.where(rated[r - 1], label, UNRATED)
        out[r] = label
    return out, truth, cases


def solve(st: Structure, target: float, applicability: float | None) -> tuple[float, float]:
    """(s, a) giving two simulated experts the real experts' kappas (bisection)."""
    a = 1.0
    s = 0.9
    for _ in range(2):  # a moves which items enter the level kappa a little: solve twice
        if applicability is not None:
            lo, hi = 0.0, 1.0
            for _ in range(14):
                a = (lo + hi) / 2
                codes, _, _ = simulate(st, np.random.default_rng(5), POPULATION, s, a)
                got = _applicability_kappa(codes[1], codes[2])
                lo, hi = (a, hi) if got < applicability else (lo, a)
            a = (lo + hi) / 2
        lo, hi = 0.0, 1.0 - 1e-6
        for _ in range(20):
            s = (lo + hi) / 2
            codes, _, _ = simulate(st, np.random.default_rng(7), POPULATION, s, a)
            ordinal = st.statistic == "weighted_kappa_linear"
            got = _kappa(codes[1], codes[2], st.k, ordinal)
            lo, hi = (s, hi) if got < target else (lo, s)
        s = (lo + hi) / 2
    return s, a


def _raw(row: np.ndarray) -> list[Any]:
    return [None if v == UNRATED else (NOT_APPLICABLE if v == NA else int(v)) for v in row]


def gate_once(
    st: Structure,
    rng: np.random.Generator,
    g: int | None,
    s: float,
    a: float,
    seed: int,
    b: int,
    design: Design | None = None,
) -> GateDecision:
    codes, truth, cases = simulate(st, rng, g, s, a, design)
    quality = np.where(codes >= 0, codes, -1)
    # coverage as calibrate counts it: the judge's not_applicable where the consensus rated
    coverage = float(1 - ((codes[0] == NA) & (truth != NA) & (truth != UNRATED)).mean())
    app = (
        applicability_comparison(
            _raw(codes[0]), [_raw(r) for r in codes[1:]], cases, seed=seed, n_resamples=b
        )
        if st.criterion.not_applicable_when
        else None
    )
    decision, _ = gate_part(
        quality[0],
        [quality[1], quality[2]],
        cases,
        k=st.k,
        statistic=st.statistic,
        coverage=coverage,
        gate=GateSettings(),
        seed=seed,
        n_resamples=b,
        applicability=app,
    )
    return decision


BLOCKS = {  # what kept a simulated gold set from PASS, from the gate's own reasons
    "too few": "too few to decide",
    "D": "D's ",
    "bar": "judge side's ",
    "applicability": "applicability (applies",
    "coverage": "usable label",
}


def blocked_by(reasons: tuple[str, ...]) -> set[str]:
    text = "; ".join(reasons)
    found = set()
    for name, marker in BLOCKS.items():
        if name == "D":
            if any(r.startswith("D's ") or "; D's " in r for r in reasons):
                found.add(name)
        elif name == "bar":
            if any(
                part.strip().startswith("judge side's ") for r in reasons for part in r.split(";")
            ):
                found.add(name)
        elif marker in text:
            found.add(name)
    return found


def rate(hits: int, reps: int) -> str:
    lo, hi = wilson(hits, reps, confidence=0.95)
    return f"{hits / reps:.3f} [{lo:.3f}, {hi:.3f}]"


NEW_GRID = [10, 20, 30, 40, 50, 60, 80, 100, 120, 140, 160, 200, 240, 280, 320, 400, 480, 640]
BATCH = 50  # early stop: reps looked at in batches of this many


@dataclass(frozen=True)
class WhatIf:
    """What the gold set or the experts could be instead of what they are (all optional):
    experts and judge at another kappa or applicability kappa per criterion; new held-out cases
    of a design (kind and items per case; the number of new cases is searched); only some
    criteria; rows stopped early once their 95% interval excludes the target power."""

    kappa: dict[str, float] = field(default_factory=dict)
    applicability_kappa: dict[str, float] = field(default_factory=dict)
    design: Design | None = None
    criteria: tuple[str, ...] = ()
    early_stop: bool = False

    def any(self) -> bool:
        return bool(self.kappa or self.applicability_kappa or self.design or self.early_stop)


@dataclass
class Row:
    """One row of a power curve: ``size`` cases resampled (``None``: the split as it is), or
    with a design, new cases added to the split."""

    size: int | None
    reps: int
    passes: int
    blocks: dict[str, int]

    @property
    def power(self) -> float:
        return self.passes / self.reps


def power_row(
    st: Structure,
    n_c: int,
    s: float,
    a: float,
    resamples: int,
    reps: int,
    size: int | None,
    design: Design | None = None,
    early_stop: bool = False,
) -> Row:
    """The PASS rate over ``reps`` simulated gold sets (seeded by criterion, size and rep); with
    ``early_stop``, looked at every ``BATCH`` sets and stopped once the 95% Wilson interval
    excludes ``TARGET_POWER``."""
    passes, done = 0, 0
    blocks = dict.fromkeys(BLOCKS, 0)
    for rep in range(reps):
        seed = 1_000_000 * n_c + 1000 * (size or 0) + rep
        d = gate_once(
            st,
            np.random.default_rng(seed),
            None if design else size,
            s,
            a,
            seed,
            resamples,
            replace(design, new_cases=size or 0) if design else None,
        )
        passes += d.status == "PASS"
        done += 1
        if d.status != "PASS":
            for name in blocked_by(d.reasons):
                blocks[name] += 1
        if early_stop and done % BATCH == 0 and done < reps:
            lo, hi = wilson(passes, done, confidence=0.95)
            if hi < TARGET_POWER or lo > TARGET_POWER:
                break
    return Row(size, done, passes, blocks)


def cases_needed(
    st: Structure,
    n_c: int,
    s: float,
    a: float,
    resamples: int,
    reps: int,
    design: Design,
    grid: list[int],
    early_stop: bool = False,
) -> tuple[list[Row], int | None]:
    """New cases of ``design`` the split needs for power ≥ ``TARGET_POWER``: the split as it is
    (0 new), then bisection on ``grid`` (power taken as rising with cases), so each answer is a
    grid value whose predecessor on the grid was measured (or taken) below the target."""
    rows = [power_row(st, n_c, s, a, resamples, reps, 0, design, early_stop)]
    if rows[0].power >= TARGET_POWER:
        return rows, 0
    lo, hi = -1, len(grid)  # grid[lo] below the target (-1: the split), grid[hi] at or above
    while hi - lo > 1:
        mid = (lo + hi) // 2
        row = power_row(st, n_c, s, a, resamples, reps, grid[mid], design, early_stop)
        rows.append(row)
        lo, hi = (lo, mid) if row.power >= TARGET_POWER else (mid, hi)
    return sorted(rows, key=lambda r: r.size or 0), (grid[hi] if hi < len(grid) else None)


def simulated_experts(
    c: Criterion, part: GoldSet, every: GoldSet, what: WhatIf
) -> tuple[Structure, dict[str, Any], float, float]:
    """The split's structure for ``c``, the real experts' agreement and the skills (s, a) that
    give two simulated experts that agreement (or the what-if's kappas)."""
    agree = expert_agreement(c, every)
    st = structure(c, part)
    st = replace(st, shares=agree["shares"], na_share=agree["na_share"])
    app_k = agree["applicability_kappa"]
    if app_k is not None:
        app_k = what.applicability_kappa.get(c.id, app_k)
    s, a = solve(st, what.kappa.get(c.id, agree["kappa"]), app_k)
    return st, agree, s, a


def run(
    gold: Path,
    split: str,
    rubric: Path,
    reps: int,
    resamples: int,
    grid: list[int],
    agreement_from: str = "all",
    what: WhatIf | None = None,
) -> tuple[list[str], list[str], dict[str, Any]]:
    what = what or WhatIf()
    part = load_gold(gold, split=split)
    every = load_gold(gold, split=None) if agreement_from == "all" else part
    criteria = load_rubric(rubric).criteria
    rows, need = [], []
    info = {
        "items": len(part.item_ids),
        "cases": len({part.items[i].case for i in part.item_ids}),
        "experts": sorted(part.experts),
    }
    for n_c, c in enumerate(criteria):
        if what.criteria and c.id not in what.criteria:
            continue
        st, agree, s, a = simulated_experts(c, part, every, what)
        two = (st.rated.sum(axis=0) >= 2) & (st.truth != NA)
        app_cases = int(np.unique(st.case_of_item[two]).size)
        app_k = agree["applicability_kappa"]
        kappa = f"{agree['kappa']:.3f} (n={agree['n_items']} items)"
        if c.id in what.kappa:
            kappa = f"{what.kappa[c.id]:.3f} (what-if; measured {kappa})"
        app = f"{app_k:.3f}" if app_k is not None else "—"
        if app_k is not None and c.id in what.applicability_kappa:
            app = f"{what.applicability_kappa[c.id]:.3f} (what-if; measured {app})"
        rows.append(
            f"| {c.id} | {kappa} | {app} | {agree['na_share']:.0%} | {app_cases} | {s:.3f} | "
            + (f"{a:.3f}" if app_k is not None else "—")
            + " |"
        )
        if what.design is not None:
            curve, got = cases_needed(
                st, n_c, s, a, resamples, reps, what.design, grid, what.early_stop
            )
            found = None if got is None else str(got)
            label = "new cases needed"
        else:
            curve, found = [], None
            for g in [None, *grid]:
                row = power_row(st, n_c, s, a, resamples, reps, g, None, what.early_stop)
                curve.append(row)
                if g is not None and row.power >= TARGET_POWER:
                    found = f"{g}"
                    break
            label = "cases needed"
        for row in curve:
            if what.design is not None:
                size = f"{st.n_cases} + {row.size or 0} new"
            else:
                size = f"{st.n_cases} (the split)" if row.size is None else str(row.size)
            why = ", ".join(f"{k} {n / row.reps:.0%}" for k, n in row.blocks.items() if n)
            need.append(
                f"| {c.id} | {size} | {row.reps} | {rate(row.passes, row.reps)} | {why or '—'} |"
            )
        need.append(
            f"| **{c.id}: {label} for power ≥ {TARGET_POWER}** | "
            f"**{found or f'more than {grid[-1]}'}** | | | |"
        )
    return rows, need, info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gold", type=Path, default=ROOT / "gold")
    parser.add_argument("--split", default="heldout")
    parser.add_argument(
        "--rubric", type=Path, default=ROOT / "rubrics" / "refund_communication.yaml"
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument(
        "--agreement-from",
        choices=["all", "split"],
        default="all",
        help="the experts' agreement measured on every labelled item (default) or the split's",
    )
    parser.add_argument("--quick", action="store_true", help="few reps; print, do not write")
    parser.add_argument(
        "--experts-kappa",
        action="append",
        default=[],
        metavar="CRIT=K",
        help="what-if: experts and judge simulated at kappa K on criterion CRIT",
    )
    parser.add_argument(
        "--applicability-kappa",
        action="append",
        default=[],
        metavar="CRIT=K",
        help="what-if: their applicability kappa K on criterion CRIT (one that allows n/a)",
    )
    parser.add_argument(
        "--design", choices=DESIGNS, default=None, help="what-if: add new cases of this kind"
    )
    parser.add_argument("--items-per-case", type=int, default=3, help="items of a new case")
    parser.add_argument(
        "--criteria", action="append", default=[], metavar="CRIT", help="only these criteria"
    )
    parser.add_argument(
        "--early-stop",
        action="store_true",
        help="stop a row once its 95%% interval excludes 0.8 (looked at every 50 sets)",
    )
    args = parser.parse_args(argv)
    try:
        what = what_if(args, load_rubric(args.rubric).criteria)
    except ValueError as e:
        parser.error(str(e))
    reps = 20 if args.quick else args.reps
    out = args.out or (WHATIF_RESULTS if what.any() else RESULTS)
    start = time.perf_counter()
    rows, need, info = run(
        args.gold,
        args.split,
        args.rubric,
        reps,
        args.resamples,
        NEW_GRID if what.design else GRID,
        args.agreement_from,
        what,
    )
    took = time.perf_counter() - start
    where = "all splits" if args.agreement_from == "all" else "the split"
    text = "\n".join(
        [
            f"# Gate power on the gold set's '{args.split}' split",
            "",
            f"`python benchmarks/bench_gold_power.py --gold {args.gold.name} --split "
            f"{args.split}"
            + (" --agreement-from split" if args.agreement_from == "split" else "")
            + what_if_flags(args)
            + f"` — split of {info['cases']} cases, {info['items']} items, experts "
            f"{', '.join(info['experts'])}; {reps} simulated gold sets per row"
            + (" (fewer where stopped early)" if what.early_stop else "")
            + f", {args.resamples} bootstrap resamples each (calibrate uses 2000), seeded; Python "
            f"{platform.python_version()}, numpy {np.__version__}, {took:.0f} s on 2 shared "
            "cores.",
            "",
            __doc__.split("\n\n")[1].replace("\n", " "),
            "",
            __doc__.split("\n\n")[2].replace("\n", " "),
            "",
            *(
                [__doc__.split("\n\n")[3].replace("\n", " "), "", design_text(what), ""]
                if what.any()
                else []
            ),
            "*What kept the others from PASS*: among the simulated gold sets that did not PASS, "
            "the share (of all sets) whose gate named each reason: *too few* (a case or item "
            "minimum), *D* (D's lower bound at or below −margin), *bar* (the judge side's lower "
            "bound below 0.6), *applicability* (its D), *coverage*. A set can name several.",
            "",
            "## The experts, as simulated",
            "",
            f"| criterion | experts' κ ({where}) | their applicability κ | not applicable "
            "(consensus) | cases of the split with an applicable item rated by two experts "
            "| skill s | applicability skill a |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            "## Power of a judge as good as the experts (default gate: 8 cases, 20 items, "
            "margin 0.10, bar 0.6, 95% intervals)",
            "",
            "| criterion | cases | reps | PASS rate (power) | what kept the others from PASS "
            "(share of all sets) |",
            "|---|---|---|---|---|",
            *need,
            "",
        ]
    )
    if args.quick:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {out} in {took:.0f} s\n")
    return 0


def parse_kappas(values: list[str], flag: str, allowed: dict[str, bool]) -> dict[str, float]:
    """``CRIT=K`` pairs to {criterion: K}; ValueError naming the flag and the bad value.
    ``allowed``: criterion id -> whether the flag applies to it."""
    out: dict[str, float] = {}
    for v in values:
        crit, sep, k = v.partition("=")
        if not sep:
            raise ValueError(f"{flag} {v!r}: expected CRIT=K, e.g. {flag} overall_clarity=0.9")
        if crit not in allowed:
            raise ValueError(f"{flag} {v!r}: no criterion {crit!r} in the rubric")
        if not allowed[crit]:
            raise ValueError(f"{flag} {v!r}: criterion {crit!r} has no not_applicable")
        try:
            kappa = float(k)
        except ValueError:
            raise ValueError(f"{flag} {v!r}: K must be a number in (0, 1)") from None
        if not 0 < kappa < 1:
            raise ValueError(f"{flag} {v!r}: K must be in (0, 1)")
        out[crit] = kappa
    return out


def what_if(args: argparse.Namespace, criteria: list[Criterion]) -> WhatIf:
    ids = [c.id for c in criteria]
    for crit in args.criteria:
        if crit not in ids:
            raise ValueError(f"--criteria {crit!r}: no such criterion in the rubric")
    if args.items_per_case < 1:
        raise ValueError(f"--items-per-case {args.items_per_case}: must be at least 1")
    if args.items_per_case != 3 and args.design is None:
        raise ValueError("--items-per-case needs --design (it shapes the new cases)")
    return WhatIf(
        kappa=parse_kappas(args.experts_kappa, "--experts-kappa", dict.fromkeys(ids, True)),
        applicability_kappa=parse_kappas(
            args.applicability_kappa,
            "--applicability-kappa",
            {c.id: bool(c.not_applicable_when) for c in criteria},
        ),
        design=Design(args.design, args.items_per_case) if args.design else None,
        criteria=tuple(args.criteria),
        early_stop=args.early_stop,
    )


def what_if_flags(args: argparse.Namespace) -> str:
    flags = [f" --criteria {c}" for c in args.criteria]
    flags += [f" --experts-kappa {v}" for v in args.experts_kappa]
    flags += [f" --applicability-kappa {v}" for v in args.applicability_kappa]
    if args.design:
        flags.append(f" --design {args.design} --items-per-case {args.items_per_case}")
    if args.early_stop:
        flags.append(" --early-stop")
    return "".join(flags)


def design_text(what: WhatIf) -> str:
    if what.design is None:
        return "*This run*: the split resampled by case as above, at the what-if kappas."
    d = what.design
    return (
        f"*This run*: new held-out cases of {d.items_per_case} items, {d.kind} "
        f"({' '.join((Design.__doc__ or '').split()).split('Applicability, ')[1]}), "
        "added to the split as it is; the rows are the split alone, then bisection on "
        f"{NEW_GRID} new cases. *New cases needed* is the first grid value at or above the "
        "target whose predecessor on the grid (or the split alone) was measured below it: an "
        "upper end, the true need lies between the two."
    )


if __name__ == "__main__":
    raise SystemExit(main())
