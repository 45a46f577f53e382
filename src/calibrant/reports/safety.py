"""Rendering safety verdicts: one table per transcript, a per-invariant summary, stable JSON."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from ..contracts import SafetyVerdict

__all__ = ["render_safety", "safety_json", "OUTCOME_STYLE"]

OUTCOME_STYLE = {
    "pass": "green",
    "violated": "bold red",
    "not_applicable": "dim",
    "harness_error": "bold yellow",
}


def safety_json(verdicts: Sequence[SafetyVerdict]) -> str:
    """Stable JSON: {"schema_version", "verdicts": [...], "summary": {...}} with sorted keys."""
    summary: dict[str, dict[str, int]] = {}
    for v in verdicts:
        for r in v.results:
            summary.setdefault(r.invariant, Counter())[r.outcome] += 1
    doc = {
        "schema_version": 1,
        "transcripts": len(verdicts),
        "violated_transcripts": sum(1 for v in verdicts if v.violated),
        "harness_error_transcripts": sum(1 for v in verdicts if v.harness_errors),
        "summary": {k: dict(sorted(c.items())) for k, c in summary.items()},
        "verdicts": [v.model_dump(mode="json") for v in verdicts],
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)


def render_safety(console: Console, verdicts: Sequence[SafetyVerdict], *, verbose: bool) -> None:
    """A table per transcript (violations and harness errors first), then one summary line."""
    for v in verdicts:
        rows = sorted(
            v.results,
            key=lambda r: ("violated", "harness_error", "pass", "not_applicable").index(r.outcome),
        )
        if not verbose:
            rows = [r for r in rows if r.outcome in ("violated", "harness_error")]
            if not rows:
                applied = sum(1 for r in v.results if r.outcome == "pass")
                console.print(
                    f"[green]clean[/green] {v.transcript_id}: {applied} invariant(s) "
                    f"pass, {len(v.results) - applied} not applicable"
                )
                continue
        title = f"{v.transcript_id}  (case {v.case_id}, trial {v.trial})"
        if v.source:
            title += f"\n[dim]{v.source}[/dim]"
        table = Table(title=title, title_justify="left", show_lines=False, expand=False)
        table.add_column("invariant", no_wrap=True)
        table.add_column("outcome", no_wrap=True)
        table.add_column("why")
        table.add_column("evidence", overflow="fold")
        for r in rows:
            style = OUTCOME_STYLE[r.outcome]
            table.add_row(
                r.invariant,
                f"[{style}]{r.outcome}[/{style}]",
                r.message,
                ", ".join(r.evidence[:6]) + (" …" if len(r.evidence) > 6 else ""),
            )
        console.print(table)
    bad = sum(1 for v in verdicts if v.violated)
    herr = sum(1 for v in verdicts if v.harness_errors and not v.violated)
    console.print(
        f"[bold]{len(verdicts)}[/bold] transcript(s): "
        f"[red]{bad} with violations[/red], [yellow]{herr} with harness errors only[/yellow], "
        f"[green]{len(verdicts) - bad - herr} clean[/green]"
    )
