"""What the cheapest gold v4 is: new held-out cases needed for power ≥ 0.8, by design and kappa.

Gold v3's held-out split gives a judge as good as the experts power ≥ 0.8 on three criteria but
not on ``separates_done_from_pending`` and ``reports_access_problem``. For each of those two this
runs ``bench_gold_power``'s what-ifs on a grid of scenarios: the experts (and the judge) at their
measured kappa or at 0.85 / 0.90 (a rubric revision that writes the adjudicators' principles into
the guide, if it raised agreement that far; on ``reports_access_problem`` the applicability kappa
is raised to the same value), new cases targeted (the criterion applies to every item), mixed
(like the split's cases) or balanced (half wholly not applicable), 3, 4 or 5 items a case; and on
``reports_access_problem`` one of the two kappas raised alone, to see which matters. Each
scenario searches the number of new cases added to the split as it is (bisection on a grid;
rows of 200 simulated gold sets; with ``--early-stop``, stopped at 50, 100 or 150 once the 95%
interval excludes 0.8).
A gold v4 is one set of new cases for both criteria, so a design needs the larger of the two
answers; its cost is counted in new items times the expert-hours an item takes.

    python benchmarks/bench_gold_v4_plan.py                # writes results/gold_v4_plan.md
    python benchmarks/bench_gold_v4_plan.py --quick        # a smoke run, printed
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_gold_power as bench  # noqa: E402

from calibrant.files import load_rubric  # noqa: E402
from calibrant.gold import load_gold  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "gold_v4_plan.md"
SEPARATES, ACCESS = "separates_done_from_pending", "reports_access_problem"
KAPPAS: list[float | None] = [None, 0.85, 0.90]  # None: as measured
ITEMS_PER_CASE = (3, 4, 5)
HOURS_PER_ITEM = 0.25  # two experts label an item's five criteria, plus adjudication


@dataclass(frozen=True)
class Scenario:
    criterion: str
    kappa: float | None  # None: as measured
    app_kappa: float | None  # applicability kappa (reports_access_problem); None: as measured
    kind: str
    items_per_case: int

    @property
    def joint(self) -> bool:
        """Level and applicability kappa moved together (what a gold v4 plan combines)."""
        return self.kappa == self.app_kappa


def scenarios() -> list[Scenario]:
    out = []
    for kappa in KAPPAS:
        for k in ITEMS_PER_CASE:
            # no not_applicable on separates: targeted, mixed and balanced are the same cases
            out.append(Scenario(SEPARATES, kappa, kappa, "targeted", k))
            for kind in ("targeted", "mixed", "balanced"):
                out.append(Scenario(ACCESS, kappa, kappa, kind, k))
    for kind in ("targeted", "mixed"):  # which of the two kappas matters on access
        out.append(Scenario(ACCESS, 0.90, None, kind, 3))
        out.append(Scenario(ACCESS, None, 0.90, kind, 3))
    return out


def one(
    sc: Scenario, gold: Path, rubric: Path, reps: int, resamples: int, early_stop: bool
) -> dict[str, Any]:
    start = time.perf_counter()
    part = load_gold(gold, split="heldout")
    every = load_gold(gold, split=None)
    criteria = load_rubric(rubric).criteria
    n_c, c = next((i, c) for i, c in enumerate(criteria) if c.id == sc.criterion)
    kappa = {} if sc.kappa is None else {c.id: sc.kappa}
    app = {} if sc.app_kappa is None or not c.not_applicable_when else {c.id: sc.app_kappa}
    what = bench.WhatIf(kappa=kappa, applicability_kappa=app)
    st, agree, s, a = bench.simulated_experts(c, part, every, what)
    design = bench.Design(sc.kind, sc.items_per_case)
    rows, need = bench.cases_needed(
        st, n_c, s, a, resamples, reps, design, bench.NEW_GRID, early_stop=early_stop
    )
    return {
        "scenario": sc,
        "rows": rows,
        "need": need,
        "measured": (agree["kappa"], agree["applicability_kappa"]),
        "skills": (s, a),
        "cases": st.n_cases,
        "seconds": time.perf_counter() - start,
    }


def kappa_text(r: dict[str, Any]) -> str:
    sc, (k, app) = r["scenario"], r["measured"]
    level = f"{k:.3f} (measured)" if sc.kappa is None else f"{sc.kappa:.2f}"
    if app is None:
        return level
    return (
        level + " / " + (f"{app:.3f} (measured)" if sc.app_kappa is None else f"{sc.app_kappa:.2f}")
    )


def row_of(r: dict[str, Any], size: int | None) -> bench.Row | None:
    return next((x for x in r["rows"] if (x.size or 0) == size), None)


def summary(results: list[dict[str, Any]]) -> list[str]:
    out = [
        "| criterion | κ (level / applicability) | new cases | items a case | new cases "
        "needed | new items | power there (reps) | power one grid step lower (reps) | s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        sc, need = r["scenario"], r["need"]
        at = row_of(r, need) if need is not None else None
        below: bench.Row | None = None
        if need:
            grid = [0, *bench.NEW_GRID]
            below = row_of(r, grid[grid.index(need) - 1])
        kind = sc.kind if sc.criterion == ACCESS else "any (no n/a)"
        out.append(
            f"| {sc.criterion} | {kappa_text(r)} | {kind} | {sc.items_per_case} | "
            + (f"**{need}**" if need is not None else f"more than {bench.NEW_GRID[-1]}")
            + f" | {need * sc.items_per_case if need is not None else '—'} | "
            + (f"{bench.rate(at.passes, at.reps)} ({at.reps})" if at else "—")
            + " | "
            + (f"{bench.rate(below.passes, below.reps)} ({below.reps})" if below else "—")
            + f" | {r['seconds']:.0f} |"
        )
    return out


def detail(results: list[dict[str, Any]]) -> list[str]:
    out = [
        "| criterion | κ | new cases | items a case | cases | reps | PASS rate (power) | "
        "what kept the others from PASS (share of all sets) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        sc = r["scenario"]
        for x in r["rows"]:
            why = ", ".join(f"{k} {n / x.reps:.0%}" for k, n in x.blocks.items() if n)
            kind = sc.kind if sc.criterion == ACCESS else "any"
            out.append(
                f"| {sc.criterion} | {kappa_text(r)} | {kind} | {sc.items_per_case} | "
                f"{r['cases']} + {x.size or 0} | {x.reps} | {bench.rate(x.passes, x.reps)} | "
                f"{why or '—'} |"
            )
    return out


def plans(results: list[dict[str, Any]], hours: float) -> list[str]:
    """A gold v4 is one set of new cases for both criteria: per kappa and design, the larger
    of the two criteria's needs, in cases, items and expert-hours; cheapest first."""
    by = {
        (
            r["scenario"].criterion,
            r["scenario"].kappa,
            r["scenario"].kind,
            r["scenario"].items_per_case,
        ): r["need"]
        for r in results
        if r["scenario"].joint
    }
    rows = []
    for (crit, kappa, kind, k), need_access in by.items():
        if crit != ACCESS:
            continue
        need_sep = by.get((SEPARATES, kappa, "targeted", k))
        if need_sep is None or need_access is None:
            rows.append((float("inf"), kappa, kind, k, need_sep, need_access))
            continue
        rows.append((max(need_sep, need_access) * k, kappa, kind, k, need_sep, need_access))
    rows.sort(key=lambda x: (x[0], -1 if x[1] is None else x[1]))
    out = [
        "| κ of both criteria (level / applicability) | new cases | items a case | new cases "
        f"(separates, access) | new items | expert-hours at {hours} h an item |",
        "|---|---|---|---|---|---|",
    ]
    for items, kappa, kind, k, sep, acc in rows:
        if items == float("inf"):
            cases = f"more than {bench.NEW_GRID[-1]}"
            out.append(
                f"| {'measured' if kappa is None else f'{kappa:.2f}'} | {kind} | {k} | "
                f"{cases} ({sep if sep is not None else '>' + str(bench.NEW_GRID[-1])}, "
                f"{acc if acc is not None else '>' + str(bench.NEW_GRID[-1])}) | — | — |"
            )
            continue
        out.append(
            f"| {'measured' if kappa is None else f'{kappa:.2f}'} | {kind} | {k} | "
            f"**{max(sep, acc)}** ({sep}, {acc}) | {int(items)} | {items * hours:.0f} |"
        )
    out.append("")
    for kappa in KAPPAS:
        best = next((x for x in rows if x[1] == kappa and x[0] != float("inf")), None)
        name = "at the measured κ" if kappa is None else f"with both κ raised to {kappa:.2f}"
        out.append(
            f"- Cheapest {name}: "
            + (
                f"{max(best[4], best[5])} new {best[2]} cases of {best[3]} items "
                f"({int(best[0])} items, about {best[0] * hours:.0f} expert-hours)."
                if best
                else f"none on the grid (more than {bench.NEW_GRID[-1]} new cases)."
            )
        )
    return out


NOTE = "## Recommendation"


def kept_note(out: Path) -> str:
    """The hand-written recommendation at the end of an earlier result (a rerun keeps it, to be
    re-read against the new tables)."""
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    at = old.find("\n" + NOTE)
    return old[at + 1 :] if at >= 0 else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gold", type=Path, default=bench.ROOT / "gold")
    parser.add_argument(
        "--rubric", type=Path, default=bench.ROOT / "rubrics" / "refund_communication.yaml"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hours-per-item", type=float, default=HOURS_PER_ITEM)
    parser.add_argument(
        "--early-stop",
        action="store_true",
        help="stop a row once its 95%% interval excludes 0.8 (looked at every 50 sets)",
    )
    parser.add_argument("--quick", action="store_true", help="few reps; print, do not write")
    args = parser.parse_args(argv)
    reps, resamples = (10, 100) if args.quick else (args.reps, args.resamples)
    todo = scenarios()
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [
            pool.submit(one, sc, args.gold, args.rubric, reps, resamples, args.early_stop)
            for sc in todo
        ]
        for done in as_completed(futures):  # progress, in case the run is cut short
            r = done.result()
            rows = "; ".join(f"{x.size or 0}: {x.passes}/{x.reps}" for x in r["rows"])
            sys.stderr.write(f"{r['scenario']} need {r['need']} ({rows}) {r['seconds']:.0f} s\n")
        results = [f.result() for f in futures]
    took = time.perf_counter() - start
    sets = sum(x.reps for r in results for x in r["rows"])
    text = "\n".join(
        [
            "# Gold v4: the new held-out cases that give every criterion power ≥ 0.8",
            "",
            "`python benchmarks/bench_gold_v4_plan.py"
            + (" --early-stop" if args.early_stop else "")
            + "` — gold v3's held-out split (48 cases, "
            f"144 items) plus new cases; {reps} simulated gold sets a row"
            + (
                " (stopped at 50, 100 or 150 once the row's 95% Wilson interval excludes 0.8: "
                "the reps column says how many)"
                if args.early_stop
                else ""
            )
            + f", {resamples} bootstrap resamples each (calibrate uses 2000), seeded; "
            f"{len(todo)} scenarios, {sets} simulated gold sets, {args.workers} worker "
            f"processes, Python {platform.python_version()}, numpy {np.__version__}, "
            f"{took:.0f} s wall on 2 shared cores (the s column: one scenario's seconds).",
            "",
            " ".join(__doc__.split("\n\n")[1].split()),
            "",
            "The simulation is `bench_gold_power`'s (its "
            "[results](gold_power.md) describe it): two experts and a judge as good as them, "
            "with a case effect of sd 1 on the logit of each rater's accuracy, every simulated "
            "gold set through `gate_part` and `applicability_comparison` with default gate "
            "settings. " + " ".join((bench.Design.__doc__ or "").split()),
            "",
            "## Cheapest gold v4 per kappa and design",
            "",
            f"Cost: {args.hours_per_item} expert-hours a new item (an assumption, "
            "`--hours-per-item`: two experts labelling its five criteria at about 6 minutes "
            "each, plus about 3 minutes of adjudication and review; writing the transcripts is "
            "not counted). Sorted by new items; designs within one "
            "grid step of each other are not told apart by this run (see the intervals below).",
            "",
            *plans(results, args.hours_per_item),
            "",
            "## Per criterion and scenario",
            "",
            *summary(results),
            "",
            "## Every row measured",
            "",
            *detail(results),
            "",
        ]
    )
    if args.quick:
        sys.stdout.write(text)
    else:
        args.out.write_text(text + kept_note(args.out), encoding="utf-8")
        sys.stdout.write(f"wrote {args.out} in {took:.0f} s\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
