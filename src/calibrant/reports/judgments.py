"""Rendering judge output: per transcript, communication verdicts next to — never merged with —
the safety verdicts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from ..contracts import Judgment, Rubric, SafetyVerdict
from ..contracts.reports import JUDGE_SCHEMA_VERSION, JudgeReport, RubricRef
from ..contracts.reports.base import CalibratedJudge
from ..contracts.reports.check import JudgedTranscript, TranscriptSafety
from ..contracts.reports.score_parts import SafetySummary
from ..safety.outcomes import safety_summary
from .fit import fit

__all__ = ["judge_report", "render_judge_report"]


def transcript_entry(
    src: str, v: SafetyVerdict | SafetySummary, js: list[Judgment]
) -> JudgedTranscript:
    """One transcript of the report: its safety outcomes and its judgments, apart."""
    summary = v if isinstance(v, SafetySummary) else safety_summary(v)
    return JudgedTranscript(
        transcript_id=summary.transcript_id,
        source=src,
        safety=TranscriptSafety(
            violated=summary.violated,
            harness_error=summary.harness_error,
            results=summary.results,
        ),
        # every field of a judgment, the defaults too (its JSON is all of it)
        communication=[Judgment.model_validate(j.model_dump(mode="json")) for j in js],
    )


def judge_report(
    rows: Sequence[tuple[str, SafetyVerdict | SafetySummary, list[Judgment]]],
    *,
    rubric: Rubric,
    from_cache: int,
    model_calls: int,
) -> JudgeReport:
    """Per transcript, safety outcomes and communication judgments apart."""
    judgments = [j for _, _, js in rows for j in js]
    outcomes: dict[str, int] = {}
    for j in judgments:
        outcomes[j.outcome] = outcomes.get(j.outcome, 0) + 1
    first = judgments[0] if judgments else None
    return JudgeReport(
        schema_version=JUDGE_SCHEMA_VERSION,
        judge=None
        if first is None
        else CalibratedJudge.model_validate(
            {"hash": first.judge_hash, **first.judge.model_dump(mode="json")}
        ),
        rubric=RubricRef(id=rubric.rubric_id, version=rubric.version, hash=rubric.content_hash),
        judgments=len(judgments),
        from_cache=from_cache,
        model_calls=model_calls,
        outcomes=dict(sorted(outcomes.items())),
        transcripts=[transcript_entry(src, v, js) for src, v, js in rows],
    )


def render_judge_report(console: Console, report: JudgeReport, rubric: Rubric) -> None:
    """A table per transcript: safety summary, then one row per criterion."""
    for t in report.transcripts:
        safety = t.safety
        if safety.violated:
            s = "[bold red]violated:[/bold red] " + ", ".join(safety.violated)
        elif safety.harness_error:
            s = "[yellow]harness error:[/yellow] " + ", ".join(safety.harness_error)
        else:
            s = "[green]no violation[/green]"
        table = Table(title=f"{t.transcript_id}\nsafety (checker): {s}", title_justify="left")
        table.add_column("criterion (judge)", no_wrap=True)
        table.add_column("label")
        table.add_column("rationale")
        table.add_column("evidence")
        for j in t.communication:
            if j.outcome != "verdict":
                table.add_row(
                    f"sample {j.sample_index}", f"[yellow]{j.outcome}[/yellow]", j.error or "", ""
                )
                continue
            for c in j.criteria:
                bad = f" (invalid: {', '.join(c.invalid_evidence)})" if c.invalid_evidence else ""
                table.add_row(c.criterion, str(c.label), c.rationale, ", ".join(c.evidence) + bad)
        console.print(fit(console, table))
    o = report.outcomes
    console.print(
        f"{report.judgments} judgment(s): "
        + ", ".join(f"{k} {v}" for k, v in o.items())
        + f" — {report.from_cache} from cache, {report.model_calls} model call(s). "
        f"Judge {report.judge.hash[:19] if report.judge else '-'}, rubric "
        f"{rubric.rubric_id} {rubric.content_hash[:19]}"
    )


def report_json(report: dict[str, Any]) -> str:
    """Stable JSON (sorted keys, "transcripts" last): the header indented, then one transcript
    per line. Indenting every transcript too meant Python's slow pure-Python encoder (seconds
    per 10,000 transcripts)."""
    head = {k: v for k, v in report.items() if k != "transcripts"}
    text = json.dumps(head, indent=2, sort_keys=True, ensure_ascii=False)
    if "transcripts" not in report:
        return text
    rows = [json.dumps(t, sort_keys=True, ensure_ascii=False) for t in report["transcripts"]]
    body = "[]" if not rows else "[\n    " + ",\n    ".join(rows) + "\n  ]"
    return (
        f'{text[:-2]},\n  "transcripts": {body}\n}}' if head else f'{{\n  "transcripts": {body}\n}}'
    )
