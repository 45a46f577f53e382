"""Every report calibrant produces, made by its real producer on real inputs: the shipped gold
set and rubric, planted (simulated) judges in place of a model, the checker on the gold
transcripts. The report models must describe each of them."""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from calibrant.calibration import Settings, calibration_report, simulated_judgments
from calibrant.calibration.noise import apply_run_to_run, run_to_run_section
from calibrant.calibration.robustness import combine_gate, robustness_section
from calibrant.calibration.stability import judge_stability
from calibrant.compare.trials import TrialFacts, compare_trials
from calibrant.contracts.reports import CalibrationReport
from calibrant.probes import ATTACKS, ProbeContext, ProbeSettings, collect_requests
from calibrant.probes.planted import planted_asker, planted_config
from calibrant.probes.run import probe_report
from calibrant.reports.judgments import judge_report
from calibrant.safety import check_transcript
from calibrant.scoring.calibration_choice import ChosenCalibration
from calibrant.scoring.summary import ScoreSummary
from calibrant.store import make_engine
from tests.compare.test_audit_compare_judges import _compare
from tests.conftest import ROOT, run_cli
from tests.reports.support import GOLD, RUBRIC

FAST = Settings(n_resamples=200)


@cache
def built_calibration(behaviour: str = "flip:no_claim_before_confirmed:0.2") -> dict[str, Any]:
    """The report as calibration_report builds it."""
    cfg, js = simulated_judgments(GOLD, RUBRIC, behaviour)
    return calibration_report(GOLD, RUBRIC, js, settings=FAST, judge=cfg, split=None).json_data()


@cache
def calibration() -> dict[str, Any]:
    """The report as `calibrate` records it (calibration.run): with its robustness and
    run-to-run sections folded into the gate (the robustness gate required), and its run id."""
    report = CalibrationReport.model_validate(copy.deepcopy(built_calibration()))
    cfg, _ = simulated_judgments(GOLD, RUBRIC, "flip:no_claim_before_confirmed:0.2")
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'store.db'}")
        try:
            report.robustness = robustness_section(
                engine,
                judge_hash=cfg.hash,
                rubric_hash=RUBRIC.content_hash,
                required=True,
                margin=None,
            )
            section = run_to_run_section(engine, judge=cfg, rubric=RUBRIC)
        finally:
            engine.dispose()
    apply_run_to_run(report, section)
    combine_gate(report.gate, report.robustness)
    report.run_id = "0" * 32
    return report.json_data()


def score(calibrated: bool = True) -> dict[str, Any]:
    cfg, js = simulated_judgments(GOLD, RUBRIC, "abstain:0.2")
    summary = ScoreSummary(RUBRIC, cfg)
    for n, (item, t) in enumerate(sorted(GOLD.transcripts.items())):
        summary.add(f"gold/{item}.json", t, check_transcript(t), js[item], cached=n % 3 == 0)
    chosen = ChosenCalibration(calibration(), "file report.json", file="/r.json")
    return summary.report(chosen if calibrated else None).json_data()


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
    return compare_trials(_trials("a", 8), _trials("b", 8)[:-1], seed=1).json_data()


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
    ).json_data()


def check() -> dict[str, Any]:
    """`check --json` on the gold transcripts, as the command writes it."""
    result = run_cli("check", "--json", "gold/transcripts")
    assert result.code in (0, 1), result.err  # 1: a transcript violates an invariant
    produced: dict[str, Any] = json.loads(result.out)
    return produced


def stability() -> dict[str, Any]:
    cfg, _ = simulated_judgments(GOLD, RUBRIC, "consensus")
    runs = [
        simulated_judgments(GOLD, RUBRIC, "flip:overall_clarity:0.2", seed=k)[1] for k in range(3)
    ]
    samples = {i: [run[i] for run in runs] for i in GOLD.item_ids}
    clusters = [GOLD.items[i].case for i in GOLD.item_ids]
    return judge_stability(
        GOLD.item_ids, samples, rubric=RUBRIC, judge=cfg, k=3, clusters=clusters, n_resamples=200
    ).model_dump(mode="json", exclude_unset=True)


def judge() -> dict[str, Any]:
    """The judge report, as a service job records it (with its run id)."""
    _, js = simulated_judgments(GOLD, RUBRIC, "consensus")
    rows = [
        (f"gold/{i}.json", check_transcript(t), [js[i]])
        for i, t in sorted(GOLD.transcripts.items())
    ]
    report = judge_report(rows, rubric=RUBRIC, from_cache=1, model_calls=len(rows) - 1)
    return {**report.json_data(), "run_id": "1" * 32}


@cache
def _audited() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """`calibrant audit` on a score run of the gold transcripts (a planted judge), its items
    labeled by two experts as the gold consensus; `agreement-over-time` on it; and `monitor`
    from the planted judge's calibration."""
    from calibrant.gold import CONSENSUS
    from calibrant.ops.audit import AuditOptions, agreement_over_time, draw_audit
    from calibrant.ops.catalog import add_rubric
    from calibrant.ops.monitor import MonitorOptions, monitor_report
    from calibrant.store import labeling as lab
    from calibrant.store.runs import Runs

    cfg, js = simulated_judgments(GOLD, RUBRIC, "flip:no_claim_before_confirmed:0.2")
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'store.db'}")
        try:
            add_rubric(engine, (ROOT / "rubrics" / "refund_communication.yaml").read_text(), "t")
            runs = Runs(engine)
            run_id = runs.start("score", judge=cfg, process=False)
            summary = ScoreSummary(RUBRIC, cfg)
            rows = [
                summary.add(
                    str(ROOT / "gold" / "transcripts" / f"{i}.json"),
                    t,
                    check_transcript(t),
                    js[i],
                    cached=False,
                )
                for i, t in sorted(GOLD.transcripts.items())
            ]
            runs.add_scores(run_id, [r.json_data() for r in rows], start=0)
            runs.finish(run_id, summary.report(None).json_data())
            audit = draw_audit(
                engine, AuditOptions(run_id, "audit-1", seed=3, count=40), by="t"
            ).report.json_data()
            for item in audit["items"]:
                for c in RUBRIC.criteria:
                    label = GOLD.labels_by(CONSENSUS, c.id).get(item["item_id"])
                    if label is not None:
                        for rater in ("maria", "jonas"):
                            lab.save_labels(
                                engine, rater, item["item_id"], [(c.id, label, None)], by_id=True
                            )
            over_time = agreement_over_time(engine, n_resamples=200).json_data()
            cal = runs.start("calibrate", judge=cfg, process=False)
            runs.finish(cal, built_calibration())
            monitored = monitor_report(engine, MonitorOptions(n_resamples=200)).json_data()
        finally:
            engine.dispose()
    return audit, over_time, monitored


def audit() -> dict[str, Any]:
    return _audited()[0]


def agreement_over_time() -> dict[str, Any]:
    return _audited()[1]


def monitor() -> dict[str, Any]:
    return _audited()[2]


def domains() -> dict[str, Any]:
    """`domains list --json`: the refund shop (and any other installed pack)."""
    from calibrant.ops.domains import list_domains

    return list_domains().model_dump(mode="json")


def trial_run() -> dict[str, Any]:
    """The trial report of `trials`, on the gold transcripts as trials of their cases (one
    of them twice, as a second trial)."""
    from calibrant.reports.trials import trial_report

    pairs = [(t, check_transcript(t)) for _, t in sorted(GOLD.transcripts.items())[:12]]
    again = pairs[0][0].model_copy(update={"trial": pairs[0][0].trial + 1})
    pairs.append((again, check_transcript(again)))
    return trial_report(pairs, seed=1).json_data()


def agreement() -> dict[str, Any]:
    """`agree --json` on the shipped gold's two experts, with the rubric and the manifest."""
    from calibrant.ops.agree import AgreeRequest
    from calibrant.ops.agree import agree as agree_op

    labels = [ROOT / "gold" / "labels" / f"{r}.jsonl" for r in ("rater_a", "rater_b")]
    rubric = ROOT / "rubrics" / "refund_communication.yaml"
    request = AgreeRequest(labels, None, rubric, ROOT / "gold" / "manifest.yaml", None, 0, 200)
    return agree_op(request).json_data()


PRODUCERS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    # name: (report kind, producer)
    "calibration": ("calibration", calibration),
    "calibration as built": ("calibration", built_calibration),
    "score": ("score", score),
    "comparison": ("comparison", comparison),
    "trials": ("trials", trials),
    "probe": ("probe", probe),
    "check": ("check", check),
    "stability": ("stability", stability),
    "judge": ("judge", judge),
    "domains": ("domains", domains),
    "audit": ("audit", audit),
    "agreement over time": ("agreement-over-time", agreement_over_time),
    "monitor": ("monitor", monitor),
    "trial run": ("trial-run", trial_run),
    "agreement": ("agreement", agreement),
}
