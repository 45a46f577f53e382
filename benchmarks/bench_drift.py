"""Drift monitor after release: false alarms, power and delay, and who gets blamed (issue 22).

A year of weekly windows per simulated year, through :class:`calibrant.monitor.Monitor` exactly
as a command would run it. One binary criterion (``fail``/``pass``). Each week: an audit sample
of 5-15 cases with 1-4 items each (judge and expert label per item), the judged labels of
``--scored`` scored cases (1-4 items each), and ``--anchors-per-week`` anchor cases drawn with
replacement from a frozen set of ``--anchor-cases`` expert-labeled cases (1-4 items each),
re-scored by the current judge.

Cases: a case has its own pass share (Beta with mean the product's pass rate, concentration 8)
and difficulty ``u ~ Beta(12, 1)``; an item's expert label is pass with the case's share. A
judge of skill ``s`` gives the expert's label with probability ``s * u`` and otherwise a label of
its own, pass with probability 0.6 (its release pass rate). ``s`` is solved by bisection so that
the case-weighted kappa of a 20,000-case population is the target. On anchors the judge is
deterministic apart from run-to-run noise: a judge version's answer to an anchor item is drawn
once, and each re-scoring redraws it with probability 0.05 (a judge at temperature 0 that a
provider serves with some nondeterminism); a changed judge draws new answers. The release
baseline: the anchors' kappa and judged label shares measured on one scoring of every anchor
case by the released judge (so they carry their own measurement noise, as at a real release;
rule 3 is either test); rule 2 compares each week with
the judge's labels on the first 4 weeks of traffic (its reference windows), as the monitor does
(the judged pass share 0.6 of the baseline is shown only). Rule 2 firing says shift_unexplained
until the anchors rule out a judge change, then product_changed
(``bench_drift_baselines.py`` measures that delay).

Scenarios: a stable judge at κ 0.80; a stable judge exactly at the gate's bar (κ 0.60, the
worst case for rule 1); a judge whose kappa drops by 0.2 in week 26 (0.80 → 0.60 and 0.70 →
0.50); a product change in week 26 (the product's pass rate 0.6 → 0.4, judge unchanged). The
naive contrast: each week a z-test at 0.05 over the last 4 weeks with items counted as
independent, one-sided on agreement (observed agreement against the agreement the bar implies
at the window's own label rates) and two-sided on the judged pass rate against 0.6.

    python benchmarks/bench_drift.py              # -> benchmarks/results/drift.md
    python benchmarks/bench_drift.py --years 2000 # tighter intervals
    python benchmarks/bench_drift.py --quick      # a smoke run: printed, not written
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist, median

import numpy as np

from calibrant.agreement.ci import wilson
from calibrant.monitor import Case, CriterionBaseline, Monitor, MonitorSettings, Window
from calibrant.monitor.eprocess import agreement_weights, case_weighted_kappa

RESULTS = Path(__file__).parent / "results" / "drift.md"
WEEKS, CHANGE = 52, 26
LABELS = ("fail", "pass")
JUDGE_PASS = 0.6  # the judge's own guesses, and the release pass rate
PRODUCT_PASS = 0.6
CONCENTRATION = 8.0
U = (12.0, 1.0)
FLIP = 0.05  # run-to-run redraw of an anchor answer
POPULATION = 20_000
CRITERION = "c"


@dataclass(frozen=True)
class Scenario:
    name: str
    kappa: tuple[float, float]  # before / from week CHANGE
    pass_rate: tuple[float, float]
    kind: str  # "stable", "judge", "product"


SCENARIOS = [
    Scenario("stable judge, κ 0.80", (0.80, 0.80), (PRODUCT_PASS, PRODUCT_PASS), "stable"),
    Scenario("stable judge at the gate's bar, κ 0.60", (0.60, 0.60), (PRODUCT_PASS,) * 2, "stable"),
    Scenario("judge κ 0.80 → 0.60 in week 26", (0.80, 0.60), (PRODUCT_PASS,) * 2, "judge"),
    Scenario("judge κ 0.70 → 0.50 in week 26", (0.70, 0.50), (PRODUCT_PASS,) * 2, "judge"),
    Scenario(
        "product pass rate 0.6 → 0.4 in week 26, judge κ 0.80", (0.80, 0.80), (0.6, 0.4), "product"
    ),
]


def draw_cases(rng: np.random.Generator, n: int, pass_rate: float) -> Cases:
    """``n`` cases of 1-4 items: case difficulty, case sizes and the items' expert labels."""
    share = rng.beta(pass_rate * CONCENTRATION, (1 - pass_rate) * CONCENTRATION, size=n)
    u = rng.beta(*U, size=n)
    sizes = rng.integers(1, 5, size=n)
    expert = (rng.random(int(sizes.sum())) < np.repeat(share, sizes)).astype(np.int64)
    return Cases(np.repeat(u, sizes), sizes, expert)


@dataclass(frozen=True)
class Cases:
    u: np.ndarray  # per item: its case's difficulty
    sizes: np.ndarray
    expert: np.ndarray

    def judge(self, rng: np.random.Generator, skill: float) -> np.ndarray:
        own = (rng.random(self.expert.size) < JUDGE_PASS).astype(np.int64)
        return np.where(rng.random(self.expert.size) < skill * self.u, self.expert, own)

    def split(self, labels: np.ndarray) -> list[tuple[str, ...]]:
        words = np.array(LABELS, dtype=object)[labels]
        return [tuple(x) for x in np.split(words, np.cumsum(self.sizes)[:-1])]

    def take(self, cases: np.ndarray) -> Cases:
        starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
        idx = np.concatenate([np.arange(starts[c], starts[c] + self.sizes[c]) for c in cases])
        return Cases(self.u[idx], self.sizes[cases], self.expert[idx])


def population_kappa(skill: float, pass_rate: float = PRODUCT_PASS) -> float:
    """Case-weighted kappa in expectation over a POPULATION-case population (fixed seed)."""
    rng = np.random.default_rng(5)
    share = rng.beta(pass_rate * CONCENTRATION, (1 - pass_rate) * CONCENTRATION, size=POPULATION)
    u = rng.beta(*U, size=POPULATION)
    # expectations per case (items of a case share u and the pass share): P(expert pass) = share
    su = skill * u
    p_o = su + (1 - su) * (share * JUDGE_PASS + (1 - share) * (1 - JUDGE_PASS))
    a_pass = su * share + (1 - su) * JUDGE_PASS
    b_pass = share
    p_e = a_pass.mean() * b_pass.mean() + (1 - a_pass.mean()) * (1 - b_pass.mean())
    return float((p_o.mean() - p_e) / (1 - p_e))


def skill_for(kappa: float) -> float:
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if population_kappa(mid) < kappa else (lo, mid)
    return (lo + hi) / 2


def as_cases(cases: Cases, judge: np.ndarray, *, expert: bool) -> list[Case]:
    js = cases.split(judge)
    es: list[tuple[str, ...] | None] = [None] * len(js)
    if expert:
        es = list(cases.split(cases.expert))
    return [Case(f"k{i}", j, e) for i, (j, e) in enumerate(zip(js, es, strict=True))]


class Anchors:
    """The frozen anchor set and the answers each judge version gives it."""

    def __init__(self, rng: np.random.Generator, n: int) -> None:
        self.cases = draw_cases(rng, n, PRODUCT_PASS)
        self.n = n
        self.answers: dict[float, np.ndarray] = {}

    def score(self, rng: np.random.Generator, skill: float, drawn: np.ndarray) -> Cases:
        """Re-score the drawn anchor cases: the version's answers, a few redrawn."""
        if skill not in self.answers:
            self.answers[skill] = self.cases.judge(rng, skill)
        cases = self.cases.take(drawn)
        fixed = Cases(self.cases.u, self.cases.sizes, self.answers[skill]).take(drawn).expert
        fresh = cases.judge(rng, skill)
        return Cases(cases.u, cases.sizes, np.where(rng.random(fixed.size) < FLIP, fresh, fixed))


def naive_agreement_rejects(j: np.ndarray, e: np.ndarray, kappa0: float) -> bool:
    n = j.size
    p_o = float((j == e).mean())
    pa, pb = j.mean(), e.mean()
    p_e = pa * pb + (1 - pa) * (1 - pb)
    p0 = p_e + kappa0 * (1 - p_e)
    if p0 >= 1:
        return False
    return (p_o - p0) / math.sqrt(p0 * (1 - p0) / n) < -NormalDist().inv_cdf(0.95)


def naive_pass_rejects(labels: np.ndarray) -> bool:
    n = labels.size
    p = float(labels.mean())
    z = (p - JUDGE_PASS) / math.sqrt(JUDGE_PASS * (1 - JUDGE_PASS) / n)
    return abs(z) > NormalDist().inv_cdf(0.975)


@dataclass
class Year:
    first: dict[str, int | None]  # rule / naive test -> first week it fired


def one_year(seed: int, sc: Scenario, skills: dict[float, float], args: argparse.Namespace) -> Year:
    rng = np.random.default_rng(seed)
    anchors = Anchors(rng, args.anchor_cases)
    at_release = anchors.score(rng, skills[sc.kappa[0]], np.arange(anchors.n))
    release = [
        (tuple(LABELS.index(x) for x in j), tuple(LABELS.index(x) for x in e))
        for j, e in zip(
            anchors.cases.split(at_release.expert),
            anchors.cases.split(anchors.cases.expert),
            strict=True,
        )
    ]
    anchor_kappa = case_weighted_kappa(release, agreement_weights(2, ordinal=False))
    sums = [0.0, 0.0, float(len(release))]  # the release scoring's label shares, case by case
    for j, _ in release:
        for code in j:
            sums[code] += 1 / len(j)
    baseline = CriterionBaseline(
        LABELS,
        (1 - JUDGE_PASS, JUDGE_PASS),
        anchor_kappa=anchor_kappa,
        anchor_cases=args.anchor_cases,
        anchor_reference=tuple(sums),
    )
    monitor = Monitor({CRITERION: baseline}, MonitorSettings(alpha=args.alpha))
    first: dict[str, int | None] = dict.fromkeys(
        ("agreement", "shift", "anchors", "naive_agreement", "naive_pass"), None
    )
    recent_items: list[tuple[np.ndarray, np.ndarray]] = []
    recent_scored: list[np.ndarray] = []
    for week in range(1, WEEKS + 1):
        after = week >= CHANGE
        skill = skills[sc.kappa[after]]
        pass_rate = sc.pass_rate[after]
        audited = draw_cases(rng, int(rng.integers(5, 16)), pass_rate)
        audit_judge = audited.judge(rng, skill)
        scored = draw_cases(rng, args.scored, pass_rate)
        scored_judge = scored.judge(rng, skill)
        drawn = rng.integers(0, anchors.n, size=args.anchors_per_week)
        rescored = anchors.score(rng, skill, drawn)
        frozen = anchors.cases.take(drawn)  # the anchors' expert labels never change
        anchor_cases = [
            Case(f"a{i}", j, e)
            for i, (j, e) in enumerate(
                zip(rescored.split(rescored.expert), frozen.split(frozen.expert), strict=True)
            )
        ]
        window = Window(
            f"w{week}",
            audit={CRITERION: as_cases(audited, audit_judge, expert=True)},
            scored={CRITERION: as_cases(scored, scored_judge, expert=False)},
            anchors={CRITERION: anchor_cases},
        )
        status = monitor.update(window).criteria[CRITERION]
        for rule, st in (
            ("agreement", status.agreement),
            ("shift", status.shift),
            ("anchors", status.anchors),
        ):
            if first[rule] is None and st is not None and st.alarm:
                first[rule] = week
        if first["anchors"] is None and "judge_changed" in status.verdicts:
            first["anchors"] = week  # rule 3's label-share test on the anchors
        recent_items = [*recent_items, (audit_judge, audited.expert)][-4:]
        recent_scored = [*recent_scored, scored_judge][-4:]
        j = np.concatenate([x for x, _ in recent_items])
        e = np.concatenate([y for _, y in recent_items])
        if first["naive_agreement"] is None and naive_agreement_rejects(j, e, args.gate):
            first["naive_agreement"] = week
        if first["naive_pass"] is None and naive_pass_rejects(np.concatenate(recent_scored)):
            first["naive_pass"] = week
    return Year(first)


def rate(hits: int, n: int) -> str:
    lo, hi = wilson(hits, n, confidence=0.95)
    return f"{hits / n:.3f} [{lo:.3f}, {hi:.3f}] ({hits}/{n})"


def delays(years: list[Year], rules: tuple[str, ...]) -> str:
    d = []
    for y in years:
        weeks = [y.first[r] for r in rules if y.first[r] is not None]
        if weeks and min(weeks) >= CHANGE:  # type: ignore[type-var]
            d.append(min(weeks) - CHANGE + 1)  # type: ignore[type-var,operator]
    if not d:
        return "–"
    q1, q3 = np.percentile(d, [25, 75])
    return f"{median(d):g} (IQR {q1:g}–{q3:g})"


def fired(
    years: list[Year],
    rules: tuple[str, ...],
    *,
    before: int | None = None,
    after: int | None = None,
) -> int:
    n = 0
    for y in years:
        weeks = [y.first[r] for r in rules if y.first[r] is not None]
        if not weeks:
            continue
        w = min(weeks)  # type: ignore[type-var]
        if before is not None and w >= before:  # type: ignore[operator]
            continue
        if after is not None and w < after:  # type: ignore[operator]
            continue
        n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--years", type=int, default=250, help="simulated years per scenario")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scored", type=int, default=40, help="scored cases per week")
    parser.add_argument("--anchor-cases", type=int, default=40)
    parser.add_argument("--anchors-per-week", type=int, default=40)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--gate", type=float, default=MonitorSettings().gate_kappa)
    parser.add_argument("--quick", action="store_true", help="30 years; print, do not write")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the table")
    args = parser.parse_args(argv)
    if args.quick:
        args.years = 30
    start = time.perf_counter()
    skills = {k: skill_for(k) for sc in SCENARIOS for k in sc.kappa}
    results: dict[str, list[Year]] = {}
    for n, sc in enumerate(SCENARIOS):
        results[sc.name] = [
            one_year(args.seed * 1_000_003 + n * 100_000 + rep, sc, skills, args)
            for rep in range(args.years)
        ]
    took = time.perf_counter() - start
    y = args.years
    all_rules = ("agreement", "shift", "anchors")
    judge_rules = ("agreement", "anchors")
    rows = []
    for sc in SCENARIOS:
        ys = results[sc.name]
        cells = [rate(fired(ys, (r,)), y) for r in (*all_rules, "naive_agreement", "naive_pass")]
        rows.append(
            f"| {sc.name} | {y} | {rate(fired(ys, all_rules), y)} | " + " | ".join(cells) + " |"
        )
    stable, bar = results[SCENARIOS[0].name], results[SCENARIOS[1].name]
    goals = [
        (
            "false alarm, stable judge κ 0.80, any rule, over 52 looks",
            fired(stable, all_rules),
        ),
        (
            "false alarm, stable judge at the bar κ 0.60, rule 1 (below the gate)",
            fired(bar, ("agreement",)),
        ),
        (
            "false alarm, stable judge at the bar κ 0.60, rule 3 (judge changed)",
            fired(bar, ("anchors",)),
        ),
        (
            "false alarm, stable judge at the bar κ 0.60, rule 2 (label shift)",
            fired(bar, ("shift",)),
        ),
    ]
    product = results[SCENARIOS[4].name]
    goals.append(
        (
            "product change blamed on the judge (rule 3 fires in the year)",
            fired(product, ("anchors",)),
        )
    )
    goal_rows = [
        f"| {what} | {rate(h, y)} | {'met' if h / y <= 0.05 else 'not met'} |" for what, h in goals
    ]
    power_rows = []
    for sc in SCENARIOS[2:]:
        ys = results[sc.name]
        rules = judge_rules if sc.kind == "judge" else ("shift",)
        for label, rs in (
            ("judge changed (rule 3)", ("anchors",)),
            ("below the gate (rule 1)", ("agreement",)),
            ("label shift (rule 2)", ("shift",)),
            ("rule 1 or 3" if sc.kind == "judge" else "label shift (rule 2), the product's", rules),
        ):
            power_rows.append(
                f"| {sc.name} | {label} | {rate(fired(ys, rs, before=CHANGE), y)} | "
                f"{rate(fired(ys, rs, after=CHANGE), y)} | {delays(ys, rs)} |"
            )
    realized = ", ".join(f"κ {k:.2f}: skill {s:.3f}" for k, s in sorted(skills.items()))
    text = "\n".join(
        [
            "# Drift monitor: false alarms, power, delay and blame",
            "",
            f"`python benchmarks/bench_drift.py --years {y} --seed {args.seed} --scored "
            f"{args.scored} --anchor-cases {args.anchor_cases} --anchors-per-week "
            f"{args.anchors_per_week}` — {y} simulated "
            f"years of {WEEKS} weekly looks per scenario, seed {args.seed}; audit 5–15 cases × "
            f"1–4 items a week, {args.scored} scored cases a week, {args.anchors_per_week} anchor "
            f"cases a week drawn from {args.anchor_cases} frozen ones; alpha {args.alpha} per "
            f"rule (alarm at e ≥ {1 / args.alpha:g}), gate bar κ {args.gate}, anchor tolerance "
            f"{MonitorSettings().anchor_tolerance}; Python {platform.python_version()}, numpy "
            f"{np.__version__}, {took:.0f} s on 2 shared cores.",
            "",
            " ".join(__doc__.split("\n\n")[1:4]).replace("\n", " "),
            "",
            f"Judge skills solved for the targets: {realized}. Every rate is the share of "
            "simulated years in which the rule fired at least once, with its 95% Wilson interval "
            "and (fired/years).",
            "",
            "## Any alarm in the year, by rule",
            "",
            "Rule 1: below the gate (audit kappa e-process, H0 κ ≥ bar). Rule 2: judged label "
            "shift (H0 shares = release). Rule 3: judge changed (anchors' kappa e-process, "
            "H0 κ ≥ release − tolerance). Naive: rolling 4-week z-test at 0.05 at every look.",
            "",
            "| scenario | years | any rule 1–3 | rule 1 | rule 2 | rule 3 | naive z agreement "
            "| naive z pass rate |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            "## Goals",
            "",
            "| goal (≤ 5%) | measured | status |",
            "|---|---|---|",
            *goal_rows,
            "",
            "## After a change in week 26: power and delay",
            "",
            "Fired before the change: a false alarm (the judge or product was still the released "
            "one). Fired from the change on: detected within the year (weeks 26–52). Delay: weeks "
            "from the change to the first alarm, week 26 counting as 1, among the years that "
            "detected it.",
            "",
            "| scenario | alarm | fired before week 26 | fired in weeks 26–52 "
            "| median delay, weeks |",
            "|---|---|---|---|---|",
            *power_rows,
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
