"""What a scoring batch found: one row per transcript (safety outcomes beside communication
verdicts, never merged) and a summary built as the rows go by, so memory stays flat.

Per criterion the summary gives the pass rate as judged and, when a calibration of the same judge
version is at hand, corrected by the judge's measured error rates (see `correction`). Safety
violations are counted apart, as release blockers; judge failures by kind, with a sample."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ..agreement.intervals import Figure, proportion
from ..calibration.explain import embedded_judge_warning
from ..contracts import JudgeConfig, Judgment, Rubric, SafetyVerdict, Transcript
from ..contracts.reports import SCORE_SCHEMA_VERSION, ScoreCriterion, ScoreReport
from ..contracts.reports.base import Figure as ReportFigure
from ..contracts.reports.base import ModelRef, RubricRef
from ..contracts.reports.score import FailureKind, ScoreSafety
from ..contracts.reports.score_parts import (
    RowCommunication,
    RowCriterion,
    RowSafety,
    ScoredTranscript,
)

if TYPE_CHECKING:
    from .calibration_choice import ChosenCalibration
    from .correction import ErrorCounts

__all__ = ["ScoreSummary", "error_counts", "error_counts_by_case"]

ABSTAIN = frozenset({"insufficient_evidence", "cant_tell"})


def error_counts(criterion_report: dict[str, Any]) -> ErrorCounts | None:
    """The judge's errors on a binary criterion, from a calibration report's confusion table
    (consensus rows, judge columns); None when the table has no pass/fail cells."""
    from .correction import ErrorCounts  # a calibration's resampling, only when one is given

    conf = criterion_report.get("confusion") or {}
    rows, cols, counts = conf.get("rows_consensus"), conf.get("columns_judge"), conf.get("counts")
    if not rows or not cols or counts is None:
        return None
    if not {"pass", "fail"} <= set(rows) or not {"pass", "fail"} <= set(cols):
        return None

    def cell(r: str, c: str) -> int:
        return int(counts[rows.index(r)][cols.index(c)])

    return ErrorCounts(
        true_pass=cell("pass", "pass"),
        false_fail=cell("pass", "fail"),
        true_fail=cell("fail", "fail"),
        false_pass=cell("fail", "pass"),
    )


def error_counts_by_case(criterion_report: dict[str, Any]) -> list[ErrorCounts] | None:
    """The judge's errors on a binary criterion in each calibration case (`pass_fail_by_case`,
    recorded since calibration reports carry it); None when the report does not have them."""
    from .correction import ErrorCounts

    rows = criterion_report.get("pass_fail_by_case")
    if rows is None:
        return None
    return [
        ErrorCounts(
            true_pass=int(r["true_pass"]),
            false_fail=int(r["false_fail"]),
            true_fail=int(r["true_fail"]),
            false_pass=int(r["false_pass"]),
        )
        for r in rows
    ]


class ScoreSummary:
    """Accumulates rows; `report()` gives the summary (its model: `json_data()` is the JSON)."""

    def __init__(self, rubric: Rubric, config: JudgeConfig) -> None:
        self.rubric = rubric
        self.config = config
        self.transcripts = 0
        self.labels: dict[str, Counter[str]] = {c.id: Counter() for c in rubric.criteria}
        self.outcomes: Counter[str] = Counter()
        self.failure_sample: dict[str, str] = {}
        self.safety_status: Counter[str] = Counter()
        self.violations: Counter[str] = Counter()
        self.cost_usd = 0.0
        self.cost_known = True
        self.from_cache = 0

    def add(
        self,
        source: str,
        transcript: Transcript,
        verdict: SafetyVerdict,
        judgment: Judgment,
        *,
        cached: bool,
    ) -> ScoredTranscript:
        """Count one scored transcript and return its output row."""
        return self.add_known(
            source,
            transcript.transcript_id,
            [r.invariant for r in verdict.violated],
            [r.invariant for r in verdict.harness_errors],
            judgment,
            cached=cached,
        )

    def add_known(
        self,
        source: str,
        transcript_id: str,
        violated_invariants: list[str],
        harness_errors: list[str],
        judgment: Judgment,
        *,
        cached: bool,
    ) -> ScoredTranscript:
        """`add` from what the store remembers of a transcript (its id and safety summary),
        without the transcript itself."""
        self.transcripts += 1
        self.from_cache += cached
        violated = sorted(set(violated_invariants))
        errors = sorted(set(harness_errors))
        status = "violated" if violated else "harness_error" if errors else "pass"
        self.safety_status[status] += 1
        self.violations.update(violated)
        self.outcomes[judgment.outcome] += 1
        if judgment.outcome != "verdict" and judgment.error:
            self.failure_sample.setdefault(judgment.outcome, judgment.error)
        if not cached:
            if judgment.cost_usd is None:
                self.cost_known = self.cost_known and judgment.outcome != "verdict"
            else:
                self.cost_usd += judgment.cost_usd
        criteria: dict[str, RowCriterion] = {}
        for c in self.rubric.criteria:
            label = judgment.label(c.id) if judgment.outcome == "verdict" else None
            key = "failed" if label is None else "abstained" if label in ABSTAIN else str(label)
            self.labels[c.id][key] += 1
            cj = next((x for x in judgment.criteria if x.criterion == c.id), None)
            criteria[c.id] = RowCriterion(
                label=label,
                rationale=cj.rationale if cj else None,
                evidence=list(cj.evidence) if cj else [],
            )
        return ScoredTranscript(
            source=source,
            transcript_id=transcript_id,
            transcript_hash=judgment.transcript_hash,
            safety=RowSafety(status=status, violated=violated, harness_errors=errors),
            communication=RowCommunication(
                judge_hash=judgment.judge_hash,
                outcome=judgment.outcome,
                error=judgment.error,
                criteria=criteria,
            ),
        )

    def _criterion(
        self, cid: str, binary: bool, calibration: dict[str, Any] | None
    ) -> ScoreCriterion:
        counts = dict(sorted(self.labels[cid].items()))
        if not binary:
            levels = {k: v for k, v in counts.items() if k not in ("failed", "abstained")}
            total = sum(levels.values())
            return ScoreCriterion(
                criterion=cid,
                counts=counts,
                distribution={k: _figure(proportion(v, total)) for k, v in levels.items()},
                correction="not applied: the correction is defined for pass/fail criteria",
            )
        passed, failed = counts.get("pass", 0), counts.get("fail", 0)
        judged = _figure(proportion(passed, passed + failed))

        def not_applied(why: str) -> ScoreCriterion:
            return ScoreCriterion(
                criterion=cid,
                counts=counts,
                pass_rate_judged=judged,
                pass_rate_corrected=None,
                correction=f"not applied: {why}",
            )

        if calibration is None:
            return not_applied("no calibration given")
        crit = next((c for c in calibration.get("criteria", []) if c["criterion"] == cid), None)
        if crit is None or error_counts(crit) is None:
            return not_applied("the calibration has no pass/fail table for it")
        by_case = error_counts_by_case(crit)
        if by_case is None:
            return not_applied(
                "this calibration (calibrant "
                f"{calibration.get('calibrant_version', 'unknown')}) does not record the judge's "
                "errors per case, and the correction resamples the calibration's cases; "
                "calibrate this judge version again"
            )
        from .correction import corrected_pass_rate

        r = corrected_pass_rate(passed, passed + failed, by_case)
        return ScoreCriterion(
            criterion=cid,
            counts=counts,
            pass_rate_judged=judged,
            pass_rate_corrected=_figure(r.corrected),
            correction_note=r.note,
            judge_sensitivity=_figure(r.sensitivity),
            judge_specificity=_figure(r.specificity),
            calibration_gate=(crit.get("gate") or {}).get("status"),
            correction="Rogan-Gladen, the calibration resampled by case",
        )

    def report(
        self,
        chosen: ChosenCalibration | None,
        *,
        available: str | None = None,
        run_id: str | None = None,
    ) -> ScoreReport:
        """The summary; `chosen` corrects the pass rates (None: as judged), `available` names
        the latest calibrate run of this judge version in the store when none was chosen,
        `run_id` the run it is the report of (recorded in the store)."""
        warnings = list(embedded_judge_warning(self.config.model))
        calibration = None if chosen is None else chosen.report
        if calibration is None:
            warnings.append(
                "no calibration given: pass rates are as judged, not corrected for the judge's "
                "errors; "
                + (
                    f"the store holds calibrate run {available} of this judge version: "
                    '`--calibration latest` (service: calibration_run "latest") uses it'
                    if available
                    else "no calibration of this judge version is in the store (run `calibrant "
                    "calibrate` with this judge first)"
                )
            )
        else:
            bad = [
                c["criterion"]
                for c in calibration.get("criteria", [])
                if (c.get("gate") or {}).get("status") != "PASS"
            ]
            if bad:
                warnings.append(
                    "the judge did not pass its calibration gate on "
                    + ", ".join(bad)
                    + ": read those criteria's figures as indicative only"
                )
        n = self.transcripts
        report = ScoreReport(
            schema_version=SCORE_SCHEMA_VERSION,
            transcripts=n,
            judge=ModelRef(model=self.config.model, hash=self.config.hash),
            rubric=RubricRef(id=self.rubric.rubric_id, hash=self.rubric.content_hash),
            calibration=None if chosen is None else chosen.describe(),
            warnings=warnings,
            safety=ScoreSafety(
                release_blockers=self.safety_status.get("violated", 0),
                transcripts_violating=_figure(proportion(self.safety_status.get("violated", 0), n)),
                harness_errors=self.safety_status.get("harness_error", 0),
                by_invariant=dict(sorted(self.violations.items())),
            ),
            judge_outcomes=dict(sorted(self.outcomes.items())),
            failures={
                k: FailureKind(count=v, sample=self.failure_sample.get(k))
                for k, v in sorted(self.outcomes.items())
                if k != "verdict"
            },
            from_cache=self.from_cache,
            cost_usd=round(self.cost_usd, 6) if self.cost_known else None,
            criteria=[
                self._criterion(c.id, c.scale.kind == "binary", calibration)
                for c in self.rubric.criteria
            ],
        )
        if run_id is not None:
            report.run_id = run_id
        return report


def _figure(f: Figure) -> ReportFigure:
    """An interval figure as a report's part (the keys `Figure.as_figure` sets, no other)."""
    return f.as_figure()
