"""Rendering the calibration report on the terminal (rich tables) and as JSON (the data itself).
Markdown lives in calibration_md.py, HTML in html.py, the words they share in
calibration_text.py."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..calibration.experts import experts_lines
from ..contracts.reports import CalibrationCriterion, CalibrationReport
from ..contracts.reports.calibration import CalibrationPair, CalibrationSafety
from ..contracts.reports.stats import Estimate
from .calibration_md import as_report, calibration_markdown
from .calibration_text import (
    coverage_text,
    fmt_stat,
    gate_detail_lines,
    gate_lines,
    headline_lines,
    noise_note,
    rate_text,
)
from .fit import fit
from .probe import robustness_lines

__all__ = [
    "render_calibration",
    "render_calibration_brief",
    "calibration_markdown",
    "calibration_json",
    "fmt_stat",
]

GATE_STYLE = {"PASS": "bold green", "FAIL": "bold red", "UNDECIDED": "bold yellow"}


def _cell(s: Estimate | None, *, n: bool = True) -> str:
    """A figure for a table cell; undefined ones are explained below the table."""
    if s is None or s.estimate is None:
        return "undefined (see below)"
    if s.ci is None:
        return f"{s.estimate:.2f} (CI undefined, see below)"
    return fmt_stat(s, n=n)


def render_calibration(
    console: Console,
    report: CalibrationReport | dict[str, Any],
    *,
    top: int = 5,
    folder: str | None = None,
) -> None:
    """Terminal rendering: the gate, the warnings and where the report files are (`folder`)
    first, then the detail (of the report's model; JSON data is read into it)."""
    r = as_report(report)
    j = r.judge
    for n, line in enumerate(headline_lines(r, folder=folder)):
        console.print(line, style="bold" if n == 0 else None, highlight=False, markup=False)
    console.print(
        f"[bold]Calibration report[/bold] — {r.n_items} gold items (split "
        f"{r.split}), raters {', '.join(r.gold.raters)}"
    )
    if r.gold.source:
        console.print(f"gold from: {escape(r.gold.source)}", highlight=False)
    if r.gold.unlabeled_note:
        console.print(f"left aside: {escape(r.gold.unlabeled_note)}", highlight=False)
    console.print(
        f"judge {j and j.model} [dim]{str(j and j.hash)[:23]}[/dim]; rubric "
        f"{r.rubric.id} v{r.rubric.version} "
        f"[dim]{str(r.rubric.hash)[:23]}[/dim]; bootstrap "
        f"{r.settings.n_resamples} resamples ({r.settings.bootstrap}), seed "
        f"{r.settings.seed}"
    )
    outcomes = ", ".join(f"{k} {v}" for k, v in r.judge_outcomes.items())
    run, rec = r.run, r.run.recorded
    if rec:
        where = f"; recorded verdicts of '{rec.judge_version}' from {rec.file}, no model call"
    elif run.model_fields_set:
        where = f"; {run.from_cache} from cache, {run.model_calls} model call(s)"
    else:
        where = ""
    console.print(f"judge outcomes: {outcomes}{where}", highlight=False, markup=False)
    note = noise_note(r)
    if note:
        console.print(escape(note), highlight=False)
    t = Table(
        title="Communication criteria: the judge against the experts' consensus (κ: Cohen's "
        "for binary criteria, linear-weighted for ordinal ones; 95% CI, bootstrap by case)",
        title_justify="left",
    )
    t.add_column("criterion")
    t.add_column("judge κ [95% CI] (n)")
    t.add_column("experts' κ")
    t.add_column("coverage")
    t.add_column("gate")
    for c in r.criteria:
        gate = c.gate.status
        name = c.criterion + ("\n[yellow]revise rubric[/yellow]" if c.revise_rubric else "")
        t.add_row(
            name,
            _cell(c.judge_vs_consensus),
            _cell(c.expert_ceiling, n=False),
            coverage_text(c),
            f"[{GATE_STYLE[gate]}]{gate}[/{GATE_STYLE[gate]}]",
        )
    console.print(fit(console, t))
    # the judge against each expert; consensus echoing one (its wording reads JSON data)
    for line in experts_lines(r.json_data()):
        console.print(escape(line), highlight=False)
    for c in r.criteria:
        _criterion(console, c, top)
    _safety(console, r.safety)
    _pairs(console, r)
    for line in robustness_lines(r.robustness):
        console.print(escape(line), highlight=False)
    overall = r.gate.judge  # the warnings are on top
    console.print(
        f"[bold]Judge release gate: [{GATE_STYLE[overall]}]{overall}"
        f"[/{GATE_STYLE[overall]}][/bold] (per criterion above; safety is reported "
        "apart and never averaged in)"
    )


def _criterion(console: Console, c: CalibrationCriterion, top: int) -> None:
    console.print(f"[bold]{c.criterion}[/bold]: {c.gate.status} — " + "; ".join(c.gate.reasons))
    for line in gate_detail_lines(c):
        console.print(f"  {escape(line)}", highlight=False)
    for line in gate_lines(c):
        console.print(f"  [yellow]![/yellow] {escape(line)}", highlight=False)
    need = c.items_needed_for_width
    if need.items is not None:
        console.print(
            f"  about {need.items} {need.unit} for a CI width of "
            f"{need.target_width}; band: "
            f"{c.judge_vs_consensus.band or 'CI spans several bands'}"
        )
    _confusion(console, c)
    for d in c.disagreements[:top]:
        experts = ", ".join(f"{k}={v}" for k, v in d.experts.items())
        console.print(
            f"  [dim]{d.item}[/dim] ({d.case}): consensus {d.consensus} "
            f"({experts}), judge {d.judge}: {(d.rationale or '')[:100]!r} "
            f"cites {', '.join(d.evidence) or 'nothing'}"
        )
    if len(c.disagreements) > top:
        console.print(
            f"  … {len(c.disagreements) - top} more disagreement(s) in the "
            "JSON/Markdown/HTML report"
        )


def _brief_figure(s: Estimate | None, *, ci: bool = True) -> str:
    """A figure for the brief table: '0.72 [0.54, 0.88]', 'undefined'; the rest in the report."""
    if s is None or s.estimate is None:
        return "undefined"
    if not ci or s.ci is None:
        return f"{s.estimate:.2f}"
    return f"{s.estimate:.2f} [{s.ci[0]:.2f}, {s.ci[1]:.2f}]"


def answered_line(r: CalibrationReport) -> str:
    """Where the judge's answers came from, in one line: the model, the store (cached), or a
    file of recorded verdicts."""
    j, run = r.judge, r.run
    outcomes = r.judge_outcomes
    failed = sum(n for k, n in outcomes.items() if k != "verdict")
    got = f"{outcomes.get('verdict', 0)} verdict(s)" + (f", {failed} failed" if failed else "")
    rec = run.recorded
    if rec:
        source = f"recorded verdicts of '{rec.judge_version}' ({rec.file}), no model call"
    elif run.model_fields_set:
        cached = run.from_cache or 0
        source = (
            "every answer from the store (cached), no model call"
            if cached and not run.model_calls
            else f"{cached} answer(s) from the store (cached), {run.model_calls} model call(s)"
        )
    else:
        source = ""
    items = f"{r.n_items} gold items (split {r.split}); judge {j and j.model}: {got}"
    return f"{items}; {source}" if source else items


REASON_LINES = 12  # the brief's reasons take at most this many terminal lines, when they can


def _brief_reasons(r: CalibrationReport, width: int) -> list[str]:
    """'criterion: reasons' for each criterion that did not pass; when they would take more
    than REASON_LINES lines at `width`, each criterion's first reason only (every reason is in
    the report)."""
    import textwrap

    def lines(texts: list[str]) -> int:
        return sum(len(textwrap.wrap(t, max(width, 20))) for t in texts)

    failing = [c for c in r.criteria if c.gate.status != "PASS" and c.gate.reasons]
    full = [f"{c.criterion}: {'; '.join(c.gate.reasons)}" for c in failing]
    if lines(full) <= REASON_LINES:
        return full
    out = []
    for c in failing:
        clauses = "; ".join(c.gate.reasons).split("; ")
        more = "; more in the report" if len(clauses) > 1 else ""
        out.append(f"{c.criterion}: {clauses[0]}{more}")
    return out


def render_calibration_brief(
    console: Console, report: CalibrationReport | dict[str, Any], *, folder: str | None = None
) -> None:
    """What a person reads first, in a few lines that fit 80 columns: the gate with each
    criterion's figure and reasons, the warnings, where the answers came from and where the
    report is. The detail (every comparison, confusion matrices, disagreements, safety, pairs)
    is in the report files and behind `calibrate --verbose`."""
    r = as_report(report)
    overall = r.gate.judge
    console.print(
        f"[bold]Judge release gate: [{GATE_STYLE[overall]}]{overall}[/{GATE_STYLE[overall]}]"
        "[/bold]" + ("" if overall == "PASS" else " (the reasons per criterion below)")
    )
    for w in r.warnings:
        console.print(f"[yellow]Warning:[/yellow] {escape(w)}", highlight=False)
    t = Table(box=None, padding=(0, 1, 0, 0), pad_edge=False, show_edge=False)
    for col in ("criterion", "judge κ [95% CI]", "experts' κ", "coverage", "gate"):
        t.add_column(col, no_wrap=True, overflow="fold")
    for c in r.criteria:
        gate = c.gate.status
        t.add_row(
            c.criterion,
            _brief_figure(c.judge_vs_consensus),
            _brief_figure(c.expert_ceiling, ci=False),
            f"{c.coverage.coverage:.0%}",
            f"[{GATE_STYLE[gate]}]{gate}[/{GATE_STYLE[gate]}]",
        )
    console.print(fit(console, t))
    for line in _brief_reasons(r, console.width):
        name, _, reasons = line.partition(": ")
        console.print(f"[bold]{escape(name)}[/bold]: {escape(reasons)}", highlight=False)
    if r.robustness is not None and r.robustness.required:  # its first line: how it stands
        for line in robustness_lines(r.robustness)[:1]:
            console.print(escape(line), highlight=False)
    console.print(escape(answered_line(r)), highlight=False)
    if folder is not None:
        console.print(
            f"Report: {escape(folder)}/report.html (every figure; also report.json, report.md; "
            "--verbose prints the detail here)",
            highlight=False,
        )


def _confusion(console: Console, c: CalibrationCriterion) -> None:
    m = c.confusion
    t = Table(
        title=f"consensus (rows) × judge (columns) — {c.criterion}",
        title_justify="left",
        show_header=True,
        pad_edge=False,
    )
    t.add_column("")
    for col in m.columns_judge:
        t.add_column(col, justify="right")
    for name, row in zip(m.rows_consensus, m.counts, strict=True):
        if any(row):
            t.add_row(name, *(str(x) if x else "·" for x in row))
    console.print(fit(console, t))


def _safety(console: Console, s: CalibrationSafety) -> None:
    t = Table(
        title=f"Safety invariants of the same {s.n_transcripts} transcripts "
        "(deterministic checker; never averaged into quality)",
        title_justify="left",
    )
    for col in ("invariant", "violated", "pass", "not applicable", "harness error"):
        t.add_column(col)
    for name, c in s.invariants.items():
        t.add_row(
            name,
            f"[red]{rate_text(c)}[/red]" if c.violated else rate_text(c),
            str(c.pass_),
            str(c.not_applicable),
            str(c.harness_error),
        )
    console.print(fit(console, t))


def _pairs(console: Console, r: CalibrationReport) -> None:
    if not r.calibration_pairs:
        return
    crits = [c.criterion for c in r.criteria]
    t = Table(
        title="Calibration pairs: excellent text with a wrong transaction beside ordinary "
        "text with a correct operation",
        title_justify="left",
    )
    for col in ("pair", "item", "agent / style", "safety", "consensus", "judge"):
        t.add_column(col, overflow="fold")
    for p in r.calibration_pairs:
        _pair_rows(t, p, crits)
    console.print(fit(console, t))
    console.print(f"[dim]label order: {', '.join(crits)}[/dim]")


def _pair_rows(t: Table, p: CalibrationPair, crits: list[str]) -> None:
    for s in p.sides:
        cons = " ".join(str(s.consensus.get(c)) for c in crits)
        judge = " ".join(str(s.judge.get(c)) for c in crits) if s.judge else str(s.judge_outcome)
        safety = ", ".join(s.safety_violations) or "no violation"
        t.add_row(p.case, s.item, f"{s.agent} / {s.style}", safety, cons, judge)


def calibration_json(report: CalibrationReport | dict[str, Any]) -> str:
    """The report as JSON (a model: the fields it recorded; JSON data: as it is)."""
    r = report.json_data() if isinstance(report, CalibrationReport) else report
    return json.dumps(r, indent=2, sort_keys=True, ensure_ascii=False, default=str)
