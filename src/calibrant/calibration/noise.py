"""The judge's run-to-run noise in the calibration report and its gate.

The gate's case bootstrap resamples each case together with the judge's one answer per item, so
the interval of ``D`` already carries the variance of drawing those answers once (the draws are
independent across items). What one calibration run cannot show is how much the answers
themselves change from run to run: a judge whose single answers are partly chance is not the
judge the gate measured, whatever one draw scored. So the report names the latest
``calibrant stability`` run of the same judge version (same configuration hash, hence the same
temperature) and rubric, per criterion: its self-agreement with its interval and flag; a
criterion flagged UNSTABLE there cannot PASS (UNDECIDED, with the reason). Without such a run
the report says plainly that run-to-run noise was not measured.
"""

from __future__ import annotations

from sqlalchemy import Engine

from ..contracts import JudgeConfig, Rubric
from ..contracts.reports import CalibrationReport
from ..contracts.reports.calibration_parts import (
    RunToRunCriterion,
    RunToRunSection,
    StabilityRunRef,
)
from ..store.runs import Runs
from .build import overall_gate

__all__ = ["apply_run_to_run", "run_to_run_section"]


def run_to_run_section(engine: Engine, *, judge: JudgeConfig, rubric: Rubric) -> RunToRunSection:
    """What the report says about the judge's run-to-run noise (the report's `run_to_run`:
    `model_dump(mode="json", exclude_unset=True)`)."""
    t = judge.temperature
    found = Runs(engine).latest("stability", judge_hash=judge.hash, rubric_hash=rubric.content_hash)
    if found is None:
        where = (
            f"the judge samples at temperature {t:g}"
            if t
            else "temperature 0 (answers still vary with the provider's nondeterminism)"
        )
        return RunToRunSection(
            measured=False,
            temperature=t,
            stability_run=None,
            criteria={},
            note=f"Run-to-run noise was not measured: {where}, and the store holds no "
            "`calibrant stability` run of this judge version on this rubric (run it with the "
            "same judge options).",
        )
    info, report = found
    criteria = {
        c["criterion"]: RunToRunCriterion(
            self_agreement=c["self_agreement"],
            items_with_differing_samples=c["items_with_differing_samples"],
            flag=c["flag"],
        )
        for c in report.get("criteria", [])
    }
    return RunToRunSection(
        measured=True,
        temperature=t,
        stability_run=StabilityRunRef(
            id=info.id,
            finished_at=info.finished_at.isoformat() if info.finished_at else None,
            samples=report.get("samples"),
            items=report.get("items"),
            min_self_agreement=report.get("min_self_agreement"),
        ),
        criteria=criteria,
        note=f"Run-to-run noise from stability run {info.id[:12]} "
        f"({report.get('samples')} samples of {report.get('items')} items at temperature {t:g}); "
        "a criterion flagged UNSTABLE there cannot PASS.",
    )


def _line(name: str, section: RunToRunSection) -> str:
    if not section.measured:
        return section.note
    got = section.criteria.get(name)
    if got is None:
        return f"run-to-run noise: the stability run has no figure for {name}"
    s = got.self_agreement
    value = "undefined" if s.estimate is None else f"{s.estimate:.2f}"
    interval = f" [{s.ci[0]:.2f}, {s.ci[1]:.2f}]" if s.ci else ""
    return f"run-to-run self-agreement {value}{interval} (n={s.n}): {got.flag}"


def apply_run_to_run(report: CalibrationReport, section: RunToRunSection) -> None:
    """Write `section` as the report's `run_to_run` and note the noise under each criterion's
    gate (``gate.run_to_run``); an UNSTABLE criterion that would PASS is UNDECIDED instead. The
    judge's overall gate is decided again."""
    report.run_to_run = section
    for c in report.criteria:
        line = _line(c.criterion, section)
        gate = c.gate
        gate.run_to_run = line
        got = section.criteria.get(c.criterion) if section.measured else None
        if got is not None and got.flag == "UNSTABLE" and gate.status == "PASS":
            gate.status = "UNDECIDED"
            gate.reasons.append(
                f"{line}: the judge's answers change from run to run, so one calibration run "
                "does not measure the judge it ships as"
            )
        report.gate.criteria[c.criterion] = gate.status
    report.gate.judge = overall_gate(report.gate.criteria)
