"""Bias and coverage of the corrected pass rate in `agreement-over-time` (issue 31, item 9).

A score run of many cases of very different sizes; the judge is more accurate on big cases than
on small ones. Experts audit a sample drawn by the product's own sampler
(`calibrant.scoring.audit_sample.draw_sample`: at most 2 transcripts a case, then strata by the
judge's verdict), so an item of a big case is far less likely to be audited than one of a small
case. The audited items go through the product's own functions, as `agreement-over-time` calls
them (`audit_error_counts` then `corrected_pass_rate`): *weighted* with the inclusion
probabilities the sampler recorded, and *unweighted* (the same items with no recorded
probability: an audit from an earlier version, and what the correction did before). The truth is
the run's own share of items the experts would pass (every item of the run, known in the
simulation). Bias = mean(corrected - truth) with its 95% Monte-Carlo interval (± 1.96 SD /
sqrt(runs)); coverage = share of runs whose 95% interval holds the truth, with its Wilson
interval.

    python benchmarks/bench_audit_correction.py          # -> results/audit_correction.md
    python benchmarks/bench_audit_correction.py --quick  # smoke test, nothing written
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from calibrant.agreement.ci import wilson
from calibrant.scoring.audit_sample import Scored, draw_sample
from calibrant.scoring.correction import corrected_pass_rate
from calibrant.scoring.over_time import AuditedItem, audit_error_counts

RESULTS = Path(__file__).parent / "results" / "audit_correction.md"


@dataclass(frozen=True)
class Setting:
    name: str
    audited: int
    small_se: float
    small_sp: float
    big_se: float = 0.97
    big_sp: float = 0.95
    cases: int = 400
    big_share: float = 0.25  # of the cases; a big case has 10-40 transcripts, a small one 1-3


def simulate(s: Setting, reps: int, seed: int) -> dict[str, list[float]]:
    rng = np.random.default_rng(seed)
    keys = ("w_err", "w_cov", "w_width", "u_err", "u_cov", "u_width")
    out: dict[str, list[float]] = {k: [] for k in keys}
    out["undefined"] = [0.0, 0.0]
    for r in range(reps):
        big = rng.random(s.cases) < s.big_share
        sizes = np.where(big, rng.integers(10, 41, s.cases), rng.integers(1, 4, s.cases))
        pass_p = rng.beta(np.where(big, 7.0, 5.0), np.where(big, 3.0, 5.0))  # big cases pass more
        rows, truth = [], {}
        pos = 0
        for c in range(s.cases):
            se, sp = (s.big_se, s.big_sp) if big[c] else (s.small_se, s.small_sp)
            for _ in range(int(sizes[c])):
                expert = "pass" if rng.random() < pass_p[c] else "fail"
                right = rng.random() < (se if expert == "pass" else sp)
                judge = expert if right else ("fail" if expert == "pass" else "pass")
                tid = f"t{pos}"
                rows.append(Scored(pos, tid, f"case{c}", "verdict", {"a": judge}))
                truth[tid] = expert
                pos += 1
        judged_pass = sum(1 for row in rows if row.labels["a"] == "pass")
        true_rate = sum(1 for v in truth.values() if v == "pass") / len(rows)
        design = draw_sample(rows, ["a"], seed=r, count=s.audited, per_case=2)
        items = [
            AuditedItem(
                d.scored.case_id,
                d.scored.transcript_id,
                truth[d.scored.transcript_id],
                d.scored.labels["a"],
                inclusion_probability=d.inclusion_probability,
            )
            for d in design.items
        ]
        for key, audit in (
            ("w", items),
            ("u", [replace(it, inclusion_probability=None) for it in items]),
        ):
            counts, _ = audit_error_counts(audit)
            res = corrected_pass_rate(judged_pass, len(rows), counts, draws=1000, seed=r)
            fig = res.corrected
            if fig.value is None or fig.ci95 is None:
                out["undefined"][0 if key == "w" else 1] += 1
                continue
            out[f"{key}_err"].append(fig.value - true_rate)
            out[f"{key}_cov"].append(float(fig.ci95[0] <= true_rate <= fig.ci95[1]))
            out[f"{key}_width"].append(fig.ci95[1] - fig.ci95[0])
    return out


def _bias(errs: list[float]) -> str:
    if len(errs) < 2:
        return "—"
    m, sd = float(np.mean(errs)), float(np.std(errs, ddof=1))
    half = 1.96 * sd / math.sqrt(len(errs))
    return f"{m:+.4f} [{m - half:+.4f}, {m + half:+.4f}]"


def _cov(hits: list[float]) -> str:
    if not hits:
        return "—"
    k, n = int(sum(hits)), len(hits)
    lo, hi = wilson(k, n, confidence=0.95)
    return f"{k / n:.3f} [{lo:.3f}, {hi:.3f}]"


def _within_mc(errs: list[float]) -> bool:
    m, sd = float(np.mean(errs)), float(np.std(errs, ddof=1))
    return abs(m) <= 1.96 * sd / math.sqrt(len(errs))


SETTINGS = [
    Setting("accuracy varies with case size, 60 audited", 60, 0.75, 0.70),
    Setting("accuracy varies with case size, 200 audited", 200, 0.75, 0.70),
    Setting("same accuracy everywhere (control), 60 audited", 60, 0.97, 0.95),
    Setting("same accuracy everywhere (control), 200 audited", 200, 0.97, 0.95),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few runs; write nothing")
    parser.add_argument("--reps", type=int, default=1000, help="simulated runs per setting")
    args = parser.parse_args(argv)
    reps = 20 if args.quick else args.reps
    started = time.perf_counter()
    lines = [
        "# The corrected pass rate of `agreement-over-time`: bias and coverage",
        "",
        f"`python benchmarks/bench_audit_correction.py` — {reps} simulated score runs per "
        f"setting, seeded; Python {platform.python_version()}, numpy {np.__version__}, TIME "
        "on this machine.",
        "",
        "Each run: 400 cases, a quarter of them big (10-40 transcripts, the judge's sensitivity "
        "0.97 and specificity 0.95, the experts pass 70% on average) and the rest small (1-3 "
        "transcripts, sensitivity and specificity as in the table, the experts pass 50%). The "
        "audit is drawn by `draw_sample` (at most 2 transcripts a case, strata by the judge's "
        "verdict), so small cases are over-represented. *weighted* = the correction as "
        "`agreement-over-time` makes it now (the judge's audited errors weighted by 1 / "
        "inclusion probability); *unweighted* = every audited item once (before; and what an "
        "audit recorded without inclusion probabilities still gets). Truth: the run's own "
        "share of items the experts pass. Bias with its 95% Monte-Carlo interval; coverage of "
        "the 95% interval with its Wilson interval; n = runs with a corrected rate (the rest: "
        "undefined, with the reason).",
        "",
        "| setting | small cases: sens / spec | audited items | n | bias weighted "
        "| coverage weighted | median width weighted | bias unweighted | coverage unweighted "
        "| weighted bias within MC error |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, s in enumerate(SETTINGS):
        res = simulate(s, reps, seed=3000 + i)
        ok = "yes" if len(res["w_err"]) > 1 and _within_mc(res["w_err"]) else "**no**"
        lines.append(
            f"| {s.name} | {s.small_se} / {s.small_sp} | {s.audited} | {len(res['w_err'])} "
            f"| {_bias(res['w_err'])} | {_cov(res['w_cov'])} "
            f"| {float(np.median(res['w_width'])) if res['w_width'] else float('nan'):.3f} "
            f"| {_bias(res['u_err'])} "
            f"| {_cov(res['u_cov'])} | {ok} |"
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
