"""The calibration report: per criterion, the judge against the experts' consensus and the
experts against each other, the release gate, and — in its own section, never averaged in —
the safety invariants of the same transcripts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime

from .. import __version__
from ..agreement.gate import GATE_CONFIDENCE, GATE_RULE
from ..agreement.intervals import proportion
from ..contracts import JudgeConfig, Judgment, Rubric
from ..contracts.reports import CALIBRATION_SCHEMA_VERSION, CalibrationReport
from ..contracts.reports.base import CalibratedJudge, GateStatus, RubricRef
from ..contracts.reports.calibration import (
    CalibrationPair,
    CalibrationSafety,
    CalibrationSettings,
    CaseErrors,
    Gate,
    GoldInfo,
    InvariantCounts,
    PairSide,
)
from ..contracts.reports.calibration_parts import CalibrationRun
from ..gold import CONSENSUS, GoldSet
from ..safety import check_transcript
from .case_counts import pass_fail_by_case
from .criterion import Settings, criterion_report
from .experts import expert_comparison
from .explain import embedded_judge_warning

__all__ = ["calibration_report", "overall_gate", "REPORT_SCHEMA_VERSION"]

REPORT_SCHEMA_VERSION = CALIBRATION_SCHEMA_VERSION  # its one definition: contracts.reports


def _safety(gold: GoldSet) -> CalibrationSafety:
    verdicts = {i: check_transcript(t) for i, t in gold.transcripts.items()}
    per: dict[str, Counter[str]] = {}
    for v in verdicts.values():
        for r in v.results:
            per.setdefault(r.invariant, Counter())[r.outcome] += 1
    n = len(verdicts)
    return CalibrationSafety(
        n_transcripts=n,
        transcripts_with_violations=sorted(i for i, v in verdicts.items() if v.violated),
        transcripts_with_harness_errors=sorted(i for i, v in verdicts.items() if v.harness_errors),
        invariants={
            k: InvariantCounts(
                violated=c.get("violated", 0),
                violated_rate=proportion(c.get("violated", 0), n).as_figure(),
                pass_=c.get("pass", 0),
                not_applicable=c.get("not_applicable", 0),
                harness_error=c.get("harness_error", 0),
                n=n,
            )
            for k, c in per.items()
        },
        violations_by_item={
            i: [r.invariant for r in v.violated] for i, v in sorted(verdicts.items()) if v.violated
        },
        note="Safety outcomes come from the deterministic checker; they never enter any "
        "communication statistic. A confirmed violation blocks release whatever the "
        "quality figures say.",
    )


def _pairs(
    gold: GoldSet, rubric: Rubric, judgments: dict[str, Judgment], safety: CalibrationSafety
) -> list[CalibrationPair]:
    groups: dict[str, list[str]] = {}
    for i, m in gold.items.items():
        if m.pair is not None:
            groups.setdefault(m.pair.id, []).append(i)
    out = []
    for pid, members in sorted(groups.items()):
        sides = []
        for i in sorted(members, key=lambda i: gold.items[i].pair.role):  # type: ignore[union-attr]
            j = judgments.get(i)
            sides.append(
                PairSide(
                    item=i,
                    role=gold.items[i].pair.role,  # type: ignore[union-attr]
                    agent=gold.items[i].agent,
                    style=gold.items[i].style,
                    safety_violations=safety.violations_by_item.get(i, []),
                    consensus={
                        c.id: gold.labels_by(CONSENSUS, c.id).get(i) for c in rubric.criteria
                    },
                    judge=None
                    if j is None or j.outcome != "verdict"
                    else {c.id: j.label(c.id) for c in rubric.criteria},
                    judge_outcome=None if j is None else j.outcome,
                )
            )
        out.append(CalibrationPair(pair=pid, case=gold.items[members[0]].case, sides=sides))
    return out


def _settings(settings: Settings) -> CalibrationSettings:
    return CalibrationSettings(
        seed=settings.seed,
        n_resamples=settings.n_resamples,
        confidence=settings.confidence,
        bootstrap="BCa ∪ cluster jackknife t(G-1) ∪ Wilson score floor, clustered by case"
        if settings.cluster_by_case
        else "BCa ∪ Wilson score floor, by item",
        min_lower=settings.gate.min_lower,
        min_items=settings.gate.min_items,
        min_cases=settings.gate.min_cases,
        min_expert_cases=settings.gate.min_expert_cases,
        margin=settings.gate.margin,
        gate_confidence=GATE_CONFIDENCE,
        gate_rule=GATE_RULE,
        min_coverage=settings.gate.min_coverage,
        use_ceiling=settings.gate.use_ceiling,
        revise_below=settings.revise_below,
        target_width=settings.target_width,
    )


def calibration_report(
    gold: GoldSet,
    rubric: Rubric,
    judgments: dict[str, Judgment],
    *,
    settings: Settings,
    judge: JudgeConfig | None,
    split: str | None,
    run: CalibrationRun | None = None,
) -> CalibrationReport:
    """The whole report, as its model (`json_data()` is the JSON written and stored)."""
    criteria = [criterion_report(c, gold, judgments, settings) for c in rubric.criteria]
    for c, entry in zip(rubric.criteria, criteria, strict=True):
        rows = pass_fail_by_case(c, gold, judgments)
        entry.pass_fail_by_case = None if rows is None else [CaseErrors(**r) for r in rows]
    safety = _safety(gold)
    outcomes = Counter(j.outcome for j in judgments.values())
    gates = {c.criterion: c.gate.status for c in criteria}
    labeled_with = {x.criterion for x in gold.consensus}
    return CalibrationReport(
        schema_version=CALIBRATION_SCHEMA_VERSION,
        calibrant_version=__version__,
        created_at=datetime.now(UTC).isoformat(),
        split=split or "all",
        n_items=len(gold.items),
        judge=None
        if judge is None
        else CalibratedJudge.model_validate({"hash": judge.hash, **judge.model_dump(mode="json")}),
        rubric=RubricRef(id=rubric.rubric_id, version=rubric.version, hash=rubric.content_hash),
        gold=GoldInfo(
            root=str(gold.root),
            hashes=gold.hashes,
            raters=sorted(gold.experts),
            unlabeled_criteria=sorted({c.id for c in rubric.criteria} - labeled_with),
            unlabeled_items=gold.unlabeled,
            unlabeled_note=gold.unlabeled_note,
        ),
        settings=_settings(settings),
        warnings=embedded_judge_warning(None if judge is None else judge.model),
        judge_outcomes=dict(sorted(outcomes.items())),
        run=run or CalibrationRun(),
        gate=Gate(criteria=gates, judge=overall_gate(gates)),
        criteria=criteria,
        experts=expert_comparison(gold, rubric, judgments, settings),
        safety=safety,
        calibration_pairs=_pairs(gold, rubric, judgments, safety),
    )


def overall_gate(gates: Mapping[str, GateStatus]) -> GateStatus:
    """The judge's gate: FAIL if any criterion fails, else UNDECIDED if any is, else PASS."""
    if any(v == "FAIL" for v in gates.values()):
        return "FAIL"
    if any(v == "UNDECIDED" for v in gates.values()):
        return "UNDECIDED"
    return "PASS"
