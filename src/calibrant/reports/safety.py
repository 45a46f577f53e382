"""Rendering safety verdicts: one table per transcript, a per-invariant summary, stable JSON.

Large runs never hold their verdicts in memory: a `VerdictSpool` keeps them in a temporary file
with running totals, and the JSON document is written from it piece by piece (byte-identical to
`safety_json` of the same verdicts)."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..contracts import SafetyVerdict
from ..contracts.reports import CHECK_SCHEMA_VERSION, CheckReport
from .fit import fit

__all__ = [
    "render_safety",
    "render_safety_brief",
    "finding_line",
    "safety_json",
    "write_safety_json",
    "summary_doc",
    "VerdictSpool",
    "SafetyTotals",
    "OUTCOME_STYLE",
    "invariant_counts",
]

OUTCOME_STYLE = {
    "pass": "green",
    "violated": "bold red",
    "not_applicable": "dim",
    "harness_error": "bold yellow",
}


class SafetyTotals:
    """Running totals of safety verdicts: what the --json document says besides the verdicts."""

    def __init__(self) -> None:
        self.count = 0
        self.violated = 0
        self.harness_error = 0
        self.summary: dict[str, Counter[str]] = {}

    def add(self, v: SafetyVerdict) -> None:
        self.count += 1
        self.violated += bool(v.violated)
        self.harness_error += bool(v.harness_errors)
        for r in v.results:
            self.summary.setdefault(r.invariant, Counter())[r.outcome] += 1

    def doc(self) -> CheckReport:
        """The --json document without its verdicts (`json_data()`: its JSON)."""
        return CheckReport(
            schema_version=CHECK_SCHEMA_VERSION,
            transcripts=self.count,
            violated_transcripts=self.violated,
            harness_error_transcripts=self.harness_error,
            summary={k: dict(sorted(c.items())) for k, c in self.summary.items()},
        )


class VerdictSpool:
    """Verdicts in a temporary file (one JSON line each) with running totals: memory stays flat
    in the number of transcripts, and nothing reaches the output until every input has been read
    (a bad file still exits with nothing half-written)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.totals = SafetyTotals()

    def add(self, v: SafetyVerdict) -> None:
        self._file.write(v.model_dump_json())
        self._file.write("\n")
        self.totals.add(v)

    def __iter__(self) -> Iterator[SafetyVerdict]:
        self._file.flush()
        self._file.seek(0)
        for line in self._file:
            yield SafetyVerdict.model_validate_json(line)

    def documents(self) -> Iterator[dict[str, Any]]:
        """The verdicts as JSON data (what `model_dump(mode="json")` gives), without
        validating them again."""
        self._file.flush()
        self._file.seek(0)
        for line in self._file:
            yield json.loads(line)

    def close(self) -> None:
        self._file.close()


def summary_doc(verdicts: Iterable[SafetyVerdict]) -> CheckReport:
    """The --json document's totals for verdicts already in memory."""
    totals = SafetyTotals()
    for v in verdicts:
        totals.add(v)
    return totals.doc()


def safety_json(verdicts: Sequence[SafetyVerdict]) -> str:
    """Stable JSON: {"schema_version", "verdicts": [...], "summary": {...}} with sorted keys."""
    doc = {
        **summary_doc(verdicts).json_data(),
        "verdicts": [v.model_dump(mode="json") for v in verdicts],
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)


def _indented(value: Any, by: int) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return text.replace("\n", "\n" + " " * by)


def write_safety_json(
    out: TextIO, head: dict[str, Any], verdicts: Iterable[dict[str, Any]]
) -> None:
    """Write `safety_json`'s document ({**head, "verdicts": [...]}) one verdict at a time;
    `verdicts` are JSON data (`VerdictSpool.documents()`)."""
    keys = sorted([*head, "verdicts"])
    out.write("{\n")
    for n, key in enumerate(keys):
        out.write(f"  {json.dumps(key)}: ")
        if key == "verdicts":
            first = True
            for v in verdicts:
                out.write("[\n    " if first else ",\n    ")
                out.write(_indented(v, 4))
                first = False
            out.write("[]" if first else "\n  ]")
        else:
            out.write(_indented(head[key], 2))
        out.write(",\n" if n < len(keys) - 1 else "\n")
    out.write("}\n")


def invariant_counts(summary: dict[str, Counter[str]]) -> Table:
    """One row per invariant: transcripts that passed it, violated it, could not be checked
    (harness error) and to which it did not apply."""
    table = Table(title="Per invariant (transcripts)", title_justify="left")
    table.add_column("invariant")
    for col in ("passed", "failed", "harness error", "not applicable"):
        table.add_column(col, justify="right")
    for name in sorted(summary):
        c = summary[name]
        failed, herr = c["violated"], c["harness_error"]
        table.add_row(
            name,
            str(c["pass"]),
            f"[red]{failed}[/red]" if failed else "0",
            f"[yellow]{herr}[/yellow]" if herr else "0",
            str(c["not_applicable"]),
        )
    return table


BRIEF_FINDINGS = 10  # transcripts with a finding listed by `check` without --verbose


def finding_line(v: SafetyVerdict, width: int = 80) -> str:
    """A transcript with a finding in one line of at most `width` columns (when its id allows):
    its id, the invariants it violated, those it could not check; '+N' for the rest."""
    violated = [r.invariant for r in v.results if r.outcome == "violated"]
    errors = [r.invariant for r in v.results if r.outcome == "harness_error"]
    parts = [("violated", n) for n in violated] + [("harness_error", n) for n in errors]
    for shown in range(len(parts), 0, -1):
        words: list[str] = []
        last = ""
        for kind, name in parts[:shown]:
            words.append(f", {name}" if kind == last else f"; {kind} {name}")
            last = kind
        rest = len(parts) - shown
        line = f"{v.transcript_id}: " + "".join(words)[2:] + (f" +{rest}" if rest else "")
        if len(line) <= width or shown == 1:
            return line
    return f"{v.transcript_id}: harness_error"


def render_safety_brief(console: Console, verdicts: Iterable[SafetyVerdict]) -> int:
    """A line per transcript with a finding (the first BRIEF_FINDINGS of them), the counts per
    invariant and the summary line; clean transcripts only counted. Returns how many
    transcripts had a finding."""
    total = bad = herr = 0
    per_invariant: dict[str, Counter[str]] = {}
    for v in verdicts:
        total += 1
        for r in v.results:
            per_invariant.setdefault(r.invariant, Counter())[r.outcome] += 1
        bad += bool(v.violated)
        herr += bool(v.harness_errors and not v.violated)
        if v.violated or v.harness_errors:
            if bad + herr <= BRIEF_FINDINGS:
                style = "red" if v.violated else "yellow"
                line = escape(finding_line(v, console.width))
                console.print(f"[{style}]{line}[/{style}]", highlight=False, soft_wrap=True)
    if bad + herr > BRIEF_FINDINGS:
        console.print(
            f"and {bad + herr - BRIEF_FINDINGS} more with a finding (--verbose lists each)",
            highlight=False,
        )
    if per_invariant:
        console.print(fit(console, invariant_counts(per_invariant)))
    console.print(
        f"[bold]{total}[/bold] transcript(s): "
        f"[red]{bad} with violations[/red], [yellow]{herr} with harness errors only[/yellow], "
        f"[green]{total - bad - herr} clean[/green]"
    )
    return bad + herr


def render_safety(console: Console, verdicts: Iterable[SafetyVerdict], *, verbose: bool) -> None:
    """A table per transcript (violations and harness errors first), then the counts per
    invariant and one summary line."""
    total = bad = herr = 0
    per_invariant: dict[str, Counter[str]] = {}
    for v in verdicts:
        total += 1
        for r in v.results:
            per_invariant.setdefault(r.invariant, Counter())[r.outcome] += 1
        bad += bool(v.violated)
        herr += bool(v.harness_errors and not v.violated)
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
        table.add_column("invariant")
        table.add_column("outcome")
        table.add_column("why")
        table.add_column("evidence")
        for r in rows:
            style = OUTCOME_STYLE[r.outcome]
            table.add_row(
                r.invariant,
                f"[{style}]{r.outcome}[/{style}]",
                r.message,
                ", ".join(r.evidence[:6])
                + (f" and {len(r.evidence) - 6} more" if len(r.evidence) > 6 else ""),
            )
        console.print(fit(console, table))
    if per_invariant:
        console.print(fit(console, invariant_counts(per_invariant)))
    console.print(
        f"[bold]{total}[/bold] transcript(s): "
        f"[red]{bad} with violations[/red], [yellow]{herr} with harness errors only[/yellow], "
        f"[green]{total - bad - herr} clean[/green]"
    )
