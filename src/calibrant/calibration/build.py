"""The calibration report: per criterion, the judge against the experts' consensus and the
experts against each other, the release gate, and — in its own section, never averaged in —
the safety invariants of the same transcripts."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

from .. import __version__
from ..agreement.gate import GATE_CONFIDENCE, GATE_RULE
from ..agreement.intervals import proportion
from ..contracts import JudgeConfig, Judgment, Rubric
from ..contracts.reports import CALIBRATION_SCHEMA_VERSION, checked
from ..gold import CONSENSUS, GoldSet
from ..safety import check_transcript
from .case_counts import KEY, pass_fail_by_case
from .criterion import Settings, criterion_report
from .experts import expert_comparison
from .explain import embedded_judge_warning

__all__ = ["calibration_report", "overall_gate", "REPORT_SCHEMA_VERSION"]

REPORT_SCHEMA_VERSION = CALIBRATION_SCHEMA_VERSION  # its one definition: contracts.reports


def _safety(gold: GoldSet) -> dict[str, Any]:
    verdicts = {i: check_transcript(t) for i, t in gold.transcripts.items()}
    per: dict[str, Counter[str]] = {}
    for v in verdicts.values():
        for r in v.results:
            per.setdefault(r.invariant, Counter())[r.outcome] += 1
    return {
        "n_transcripts": len(verdicts),
        "transcripts_with_violations": sorted(i for i, v in verdicts.items() if v.violated),
        "transcripts_with_harness_errors": sorted(
            i for i, v in verdicts.items() if v.harness_errors
        ),
        "invariants": {
            k: {
                "violated": c.get("violated", 0),
                "violated_rate": proportion(c.get("violated", 0), len(verdicts))
                .as_figure()
                .json_data(),
                "pass": c.get("pass", 0),
                "not_applicable": c.get("not_applicable", 0),
                "harness_error": c.get("harness_error", 0),
                "n": len(verdicts),
            }
            for k, c in per.items()
        },
        "violations_by_item": {
            i: [r.invariant for r in v.violated] for i, v in sorted(verdicts.items()) if v.violated
        },
        "note": "Safety outcomes come from the deterministic checker; they never enter any "
        "communication statistic. A confirmed violation blocks release whatever the "
        "quality figures say.",
    }


def _pairs(
    gold: GoldSet, rubric: Rubric, judgments: dict[str, Judgment], safety: dict[str, Any]
) -> list[dict[str, Any]]:
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
                {
                    "item": i,
                    "role": gold.items[i].pair.role,  # type: ignore[union-attr]
                    "agent": gold.items[i].agent,
                    "style": gold.items[i].style,
                    "safety_violations": safety["violations_by_item"].get(i, []),
                    "consensus": {
                        c.id: gold.labels_by(CONSENSUS, c.id).get(i) for c in rubric.criteria
                    },
                    "judge": None
                    if j is None or j.outcome != "verdict"
                    else {c.id: j.label(c.id) for c in rubric.criteria},
                    "judge_outcome": None if j is None else j.outcome,
                }
            )
        out.append({"pair": pid, "case": gold.items[members[0]].case, "sides": sides})
    return out


def calibration_report(
    gold: GoldSet,
    rubric: Rubric,
    judgments: dict[str, Judgment],
    *,
    settings: Settings,
    judge: JudgeConfig | None,
    split: str | None,
    run: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole report as plain JSON data (stable keys)."""
    criteria = [criterion_report(c, gold, judgments, settings) for c in rubric.criteria]
    for c, entry in zip(rubric.criteria, criteria, strict=True):
        entry[KEY] = pass_fail_by_case(c, gold, judgments)
    safety = _safety(gold)
    outcomes = Counter(j.outcome for j in judgments.values())
    gates = {c["criterion"]: c["gate"]["status"] for c in criteria}
    labeled_with = {x.criterion for x in gold.consensus}
    report = {
        "schema_version": CALIBRATION_SCHEMA_VERSION,
        "calibrant_version": __version__,
        "created_at": datetime.now(UTC).isoformat(),
        "split": split or "all",
        "n_items": len(gold.items),
        "judge": None if judge is None else {"hash": judge.hash, **judge.model_dump(mode="json")},
        "rubric": {"id": rubric.rubric_id, "version": rubric.version, "hash": rubric.content_hash},
        "gold": {
            "root": str(gold.root),
            "hashes": gold.hashes,
            "raters": sorted(gold.experts),
            "unlabeled_criteria": sorted({c.id for c in rubric.criteria} - labeled_with),
            "unlabeled_items": gold.unlabeled,
            "unlabeled_note": gold.unlabeled_note,
        },
        "settings": {
            "seed": settings.seed,
            "n_resamples": settings.n_resamples,
            "confidence": settings.confidence,
            "bootstrap": "BCa ∪ cluster jackknife t(G-1) ∪ Wilson score floor, clustered by case"
            if settings.cluster_by_case
            else "BCa ∪ Wilson score floor, by item",
            "min_lower": settings.gate.min_lower,
            "min_items": settings.gate.min_items,
            "min_cases": settings.gate.min_cases,
            "min_expert_cases": settings.gate.min_expert_cases,
            "margin": settings.gate.margin,
            "gate_confidence": GATE_CONFIDENCE,
            "gate_rule": GATE_RULE,
            "min_coverage": settings.gate.min_coverage,
            "use_ceiling": settings.gate.use_ceiling,
            "revise_below": settings.revise_below,
            "target_width": settings.target_width,
        },
        "warnings": embedded_judge_warning(None if judge is None else judge.model),
        "judge_outcomes": dict(sorted(outcomes.items())),
        "run": run or {},
        "gate": {"criteria": gates, "judge": overall_gate(gates)},
        "criteria": criteria,
        "experts": expert_comparison(gold, rubric, judgments, settings).model_dump(
            mode="json", exclude_unset=True
        ),
        "safety": safety,
        "calibration_pairs": _pairs(gold, rubric, judgments, safety),
    }
    return checked("calibration", report)


def overall_gate(gates: dict[str, str]) -> str:
    """The judge's gate: FAIL if any criterion fails, else UNDECIDED if any is, else PASS."""
    if any(v == "FAIL" for v in gates.values()):
        return "FAIL"
    if any(v == "UNDECIDED" for v in gates.values()):
        return "UNDECIDED"
    return "PASS"
