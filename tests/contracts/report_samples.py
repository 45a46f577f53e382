"""Every report calibrant produces, made by its real producer on real inputs: the shipped gold
set and rubric, planted (simulated) judges in place of a model, the checker on the gold
transcripts. The report models must describe each of them."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from calibrant.calibration import Settings, calibration_report, simulated_judgments
from calibrant.calibration.stability import judge_stability
from calibrant.compare.trials import TrialFacts, compare_trials
from calibrant.probes import ATTACKS, ProbeContext, ProbeSettings, collect_requests
from calibrant.probes.planted import planted_asker, planted_config
from calibrant.probes.run import probe_report
from calibrant.reports.judgments import judge_report
from calibrant.reports.safety import summary_doc
from calibrant.safety import check_transcript
from calibrant.scoring.calibration_choice import ChosenCalibration
from calibrant.scoring.summary import ScoreSummary
from tests.compare.test_audit_compare_judges import _compare
from tests.reports.support import GOLD, RUBRIC

FAST = Settings(n_resamples=200)


@cache
def calibration(behaviour: str = "flip:no_claim_before_confirmed:0.2") -> dict[str, Any]:
    cfg, js = simulated_judgments(GOLD, RUBRIC, behaviour)
    return calibration_report(GOLD, RUBRIC, js, settings=FAST, judge=cfg, split=None)


def score(calibrated: bool = True) -> dict[str, Any]:
    cfg, js = simulated_judgments(GOLD, RUBRIC, "abstain:0.2")
    summary = ScoreSummary(RUBRIC, cfg)
    for n, (item, t) in enumerate(sorted(GOLD.transcripts.items())):
        summary.add(f"gold/{item}.json", t, check_transcript(t), js[item], cached=n % 3 == 0)
    chosen = ChosenCalibration(calibration(), "file report.json", file="/r.json")
    return summary.report(chosen if calibrated else None)


def comparison() -> dict[str, Any]:
    return _compare(GOLD, "consensus", "flip:overall_clarity:0.3")


def _trials(side: str, cases: int) -> list[TrialFacts]:
    return [
        TrialFacts(
            case=f"case{c}",
            trial=t,
            case_hash=f"h{c}",
            schedule="[]",
            success=not (side == "b" and (c + t) % 2 == 0),
            violated=side == "b" and (c + t) % 4 == 0,
            permission_violation=False,
            duplicate_write=False,
            unresolved=False,
            latency_ms=100.0 + 10 * c + t,
            tool_calls=4.0,
            cost_usd=0.01,
            transcript_id=f"{side}{c}-{t}",
        )
        for c in range(cases)
        for t in range(1, 4)
    ]


def trials() -> dict[str, Any]:
    return compare_trials(_trials("a", 8), _trials("b", 8)[:-1], seed=1)


def probe() -> dict[str, Any]:
    from calibrant.gold import load_gold
    from tests.conftest import ROOT

    gold = load_gold(ROOT / "gold", split="calibration")
    s = ProbeSettings(
        probes=("injection", "verbosity", "order", "central"), families=tuple(ATTACKS)
    )
    ctx = ProbeContext(gold=gold, rubric=RUBRIC, settings=s)
    answers, outcomes = planted_asker("clean", ctx)(collect_requests(ctx), None)
    return probe_report(
        ctx, answers, outcomes, judge=planted_config("clean", RUBRIC), split="calibration"
    )


def check() -> dict[str, Any]:
    verdicts = [check_transcript(t) for _, t in sorted(GOLD.transcripts.items())]
    return {**summary_doc(verdicts), "verdicts": [v.model_dump(mode="json") for v in verdicts]}


def stability() -> dict[str, Any]:
    cfg, _ = simulated_judgments(GOLD, RUBRIC, "consensus")
    runs = [
        simulated_judgments(GOLD, RUBRIC, "flip:overall_clarity:0.2", seed=k)[1] for k in range(3)
    ]
    samples = {i: [run[i] for run in runs] for i in GOLD.item_ids}
    clusters = [GOLD.items[i].case for i in GOLD.item_ids]
    return judge_stability(
        GOLD.item_ids, samples, rubric=RUBRIC, judge=cfg, k=3, clusters=clusters, n_resamples=200
    )


def judge() -> dict[str, Any]:
    _, js = simulated_judgments(GOLD, RUBRIC, "consensus")
    rows = [
        (f"gold/{i}.json", check_transcript(t), [js[i]])
        for i, t in sorted(GOLD.transcripts.items())
    ]
    return judge_report(rows, rubric=RUBRIC, from_cache=1, model_calls=len(rows) - 1)


PRODUCERS: dict[str, Callable[[], dict[str, Any]]] = {
    "calibration": calibration,
    "score": score,
    "comparison": comparison,
    "trials": trials,
    "probe": probe,
    "check": check,
    "stability": stability,
    "judge": judge,
}
