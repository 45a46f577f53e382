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

    python benchmarks/bench_gold_power.py                       # gold/, held-out split
    python benchmarks/bench_gold_power.py --gold DIR --split heldout --rubric FILE --out FILE
    python benchmarks/bench_gold_power.py --quick               # a smoke run, printed
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import dataclass, replace
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


def simulate(
    st: Structure, rng: np.random.Generator, g: int | None, s: float, a: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(codes (3, items), truth, cases)``: judge, expert 1, expert 2 (NA, UNRATED, levels)."""
    idx, cases = draw_cases(st, rng, g)
    truth, n = st.truth[idx], idx.size
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
            label = np.where(st.rated[r - 1, idx], label, UNRATED)
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
    st: Structure, rng: np.random.Generator, g: int | None, s: float, a: float, seed: int, b: int
) -> GateDecision:
    codes, truth, cases = simulate(st, rng, g, s, a)
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


def run(
    gold: Path,
    split: str,
    rubric: Path,
    reps: int,
    resamples: int,
    grid: list[int],
    agreement_from: str = "all",
) -> tuple[list[str], list[str], dict[str, Any]]:
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
        agree = expert_agreement(c, every)
        st = structure(c, part)
        st = replace(st, shares=agree["shares"], na_share=agree["na_share"])
        s, a = solve(st, agree["kappa"], agree["applicability_kappa"])
        two = (st.rated.sum(axis=0) >= 2) & (st.truth != NA)
        app_cases = int(np.unique(st.case_of_item[two]).size)
        app_k = agree["applicability_kappa"]
        rows.append(
            f"| {c.id} | {agree['kappa']:.3f} (n={agree['n_items']} items) | "
            + (f"{app_k:.3f}" if app_k is not None else "—")
            + f" | {agree['na_share']:.0%} | {app_cases} | {s:.3f} | "
            + (f"{a:.3f}" if app_k is not None else "—")
            + " |"
        )
        found: str | None = None
        for g in [None, *grid]:
            passes = 0
            blocks = dict.fromkeys(BLOCKS, 0)
            for rep in range(reps):
                seed = 1_000_000 * n_c + 1000 * (g or 0) + rep
                d = gate_once(st, np.random.default_rng(seed), g, s, a, seed, resamples)
                passes += d.status == "PASS"
                if d.status != "PASS":
                    for name in blocked_by(d.reasons):
                        blocks[name] += 1
            size = f"{st.n_cases} (the split)" if g is None else str(g)
            why = ", ".join(f"{name} {n / reps:.0%}" for name, n in blocks.items() if n)
            need.append(f"| {c.id} | {size} | {reps} | {rate(passes, reps)} | {why or '—'} |")
            if g is not None and passes / reps >= TARGET_POWER:
                found = f"{g}"
                break
        need.append(
            f"| **{c.id}: cases needed for power ≥ {TARGET_POWER}** | "
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
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument(
        "--agreement-from",
        choices=["all", "split"],
        default="all",
        help="the experts' agreement measured on every labelled item (default) or the split's",
    )
    parser.add_argument("--quick", action="store_true", help="few reps; print, do not write")
    args = parser.parse_args(argv)
    reps = 20 if args.quick else args.reps
    start = time.perf_counter()
    rows, need, info = run(
        args.gold, args.split, args.rubric, reps, args.resamples, GRID, args.agreement_from
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
            + f"` — split of {info['cases']} cases, {info['items']} items, experts "
            f"{', '.join(info['experts'])}; {reps} simulated gold sets per row, "
            f"{args.resamples} bootstrap resamples each (calibrate uses 2000), seeded; Python "
            f"{platform.python_version()}, numpy {np.__version__}, {took:.0f} s on 2 shared "
            "cores.",
            "",
            __doc__.split("\n\n")[1].replace("\n", " "),
            "",
            __doc__.split("\n\n")[2].replace("\n", " "),
            "",
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
        args.out.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {args.out} in {took:.0f} s\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
