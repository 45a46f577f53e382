"""Rendering a score run's summary on the terminal: brief (a few lines that fit 80 columns) or
whole (`--verbose`), and the lines around it: the inputs read, the files written, the run id and
the "Next:" lines, or the one line said when no transcript got a verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ..contracts.reports import ScoreReport
from ..contracts.reports.base import Figure
from ..contracts.reports.score import CalibrationUsed
from .fit import fit
from .folder import next_line

__all__ = [
    "calibration_line",
    "no_verdict_line",
    "queued_line",
    "print_score_run",
    "render_inputs",
    "render_score_brief",
    "render_score_run",
    "render_score_summary",
    "score_next_lines",
]


def _fig(d: Figure | None, pct: bool = True) -> str:
    if d is None:
        return "—"
    if d.value is None:
        return f"undefined ({d.undefined_reason})"
    fmt = "{:.0%}" if pct else "{:.2f}"
    ci = f" [{fmt.format(d.ci95[0])}, {fmt.format(d.ci95[1])}]" if d.ci95 else ""
    note = f" ({d.undefined_reason})" if d.undefined_reason else ""
    return f"{fmt.format(d.value)}{ci} (n={d.n}){note}"


def render_score_summary(console: Console, s: ScoreReport) -> None:
    """The whole summary (`score --verbose`): each invariant on its line, the label counts and
    every figure's note in the table."""
    console.print(
        f"[bold]Scored {s.transcripts} transcript(s)[/bold] with {s.judge.model} "
        f"({s.judge.hash[:19]}); {s.from_cache} answer(s) from the store; cost "
        + ("unknown" if s.cost_usd is None else f"{s.cost_usd:.4f} USD")
    )
    console.print(calibration_line(s.calibration), highlight=False, markup=False)
    for w in s.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    safety = s.safety
    colour = "red" if safety.release_blockers else "green"
    console.print(
        f"[bold]Safety (release blockers, counted apart):[/bold] [{colour}]"
        f"{safety.release_blockers} transcript(s) violate an invariant[/{colour}]"
        + (f"; {safety.harness_errors} harness error(s)" if safety.harness_errors else "")
    )
    for inv, n in safety.by_invariant.items():
        console.print(f"  {inv}: {n}", highlight=False)
    table = Table(title="Communication (judge), 95% intervals", title_justify="left")
    for col in ("criterion", "pass rate as judged", "corrected for the judge's errors", "labels"):
        table.add_column(col)
    for c in s.criteria:
        if c.distribution is not None:
            dist = ", ".join(f"{k}: {_fig(v)}" for k, v in c.distribution.items())
            table.add_row(c.criterion, dist, c.correction, _counts(c.counts))
            continue
        corrected = _fig(c.pass_rate_corrected) if c.pass_rate_corrected else c.correction
        if c.correction_note:
            corrected += f" — {c.correction_note}"
        table.add_row(c.criterion, _fig(c.pass_rate_judged), corrected, _counts(c.counts))
    console.print(fit(console, table))
    if s.failures:
        console.print("[bold]Judge failures[/bold] (not scores; rerun to retry them):")
        for kind, f in s.failures.items():
            sample = f" — e.g. {f.sample}" if f.sample else ""
            console.print(f"  {kind}: {f.count}{sample}", highlight=False, markup=False)


def _short(d: Figure | None) -> str:
    """A rate for the brief table: '12% [5%, 20%]'; 'undefined' (the reason goes below)."""
    if d is None or d.value is None:
        return "undefined"
    ci = f" [{d.ci95[0]:.0%}, {d.ci95[1]:.0%}]" if d.ci95 else ""
    return f"{d.value:.0%}{ci}"


def render_score_brief(console: Console, s: ScoreReport) -> None:
    """The summary in a few lines that fit 80 columns: what was scored and with what, the
    warnings, the release blockers, and per criterion the pass rate as judged and corrected; a
    figure the table cannot give (undefined, a distribution) is said below it, once."""
    cached = s.from_cache
    console.print(
        f"[bold]Scored {s.transcripts} transcript(s)[/bold] with {s.judge.model}: "
        + (
            f"{cached} answer(s) from the store (cached), {s.transcripts - cached} asked"
            if cached
            else "every answer asked of the model"
        )
        + "; cost "
        + ("unknown" if s.cost_usd is None else f"{s.cost_usd:.4f} USD"),
        highlight=False,
    )
    console.print(calibration_line(s.calibration), highlight=False, markup=False)
    for w in s.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    safety = s.safety
    colour = "red" if safety.release_blockers else "green"
    by = ", ".join(f"{inv} {n}" for inv, n in safety.by_invariant.items())
    console.print(
        f"[bold]Safety (release blockers, counted apart):[/bold] [{colour}]"
        f"{safety.release_blockers} transcript(s) violate an invariant[/{colour}]"
        + (f"; {safety.harness_errors} harness error(s)" if safety.harness_errors else "")
        + (f" ({by})" if by else ""),
        highlight=False,
    )
    table, notes = _brief_table(s)
    console.print(fit(console, table))
    for note, names in notes.items():
        console.print(f"* {', '.join(names)}: {note}", highlight=False, markup=False)
    if s.failures:
        counts = ", ".join(f"{kind} {f.count}" for kind, f in s.failures.items())
        console.print(f"Judge failures (not scores; rerun to retry them): {counts}")


def _brief_table(s: ScoreReport) -> tuple[Table, dict[str, list[str]]]:
    """The brief table, and the notes said below it once (note: the criteria it is about)."""
    table = Table(
        title="Communication (judge): pass rate, 95% interval",
        title_justify="left",
        box=None,
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    for col in ("criterion", "as judged", "corrected", "n"):
        table.add_column(col, no_wrap=True)
    notes: dict[str, list[str]] = {}
    for c in s.criteria:
        if c.distribution is not None:
            dist = ", ".join(f"{k} {_short(v)}" for k, v in c.distribution.items())
            notes.setdefault(f"as judged, by label: {dist}", []).append(c.criterion)
            notes.setdefault(str(c.correction), []).append(c.criterion)
            rates = list(c.distribution.values())
            n = rates[0].n if rates else ""
            table.add_row(c.criterion, "by label*", "not applied*", str(n))
            continue
        judged, corrected = c.pass_rate_judged, c.pass_rate_corrected
        cell = _short(corrected) if corrected else "not applied"
        if corrected is None or corrected.value is None:
            why = corrected.undefined_reason if corrected else c.correction
            notes.setdefault(f"corrected {cell}: {why}", []).append(c.criterion)
            cell += "*"
        if c.correction_note:
            notes.setdefault(str(c.correction_note), []).append(c.criterion)
        n_judged = "" if judged is None else str(judged.n)
        table.add_row(c.criterion, _short(judged), cell, n_judged)
    return table, notes


def calibration_line(cal: CalibrationUsed | None) -> str:
    """Which calibration corrected the pass rates, in one line (None: not corrected)."""
    if cal is None:
        return "Calibration: none given; pass rates are as judged, not corrected."
    size = f"{cal.n_items} items" + (f" from {cal.n_cases} cases" if cal.n_cases else "")
    return (
        f"Calibration: {cal.source}, split {cal.split}, {size}, made "
        f"{cal.created_at or 'at an unknown time'}"
    )


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items())


def score_next_lines(run_id: str) -> list[str]:
    """What to run after a score run: its blind audit sample, and the run itself later."""
    run = run_id[:12]
    return [
        next_line(f"calibrant audit {run} --queue NAME --rate 0.05", "for the experts"),
        next_line(f"calibrant runs show {run}", "this run, later"),
    ]


def render_inputs(err: Console, files: Any, total: int) -> None:
    """The input files read (and skipped), and how many transcripts they hold."""
    err.print(files.summary("input file") + f"; {total} transcript(s)", highlight=False)
    for s in files.skipped:
        err.print(f"skipped {s}", highlight=False, markup=False)


def queued_line(queued: Any) -> str:
    """What `score --queue` says of the run it queued (a `ScoreResult` of `ops.score.enqueue`)."""
    return (
        f"queued {queued.transcripts} transcript(s) as {queued.jobs} job(s) "
        f"of run {queued.run_id}; start workers with `calibrant worker`, follow with "
        f"`calibrant score --wait {queued.run_id}`"
    )


def no_verdict_line(report: ScoreReport, total: int, rerun: str) -> str:
    """The one line said when none of `total` transcripts got a verdict: the failures counted,
    what a rerun does (`rerun`), and the first error (the cause)."""
    failures = report.failures
    cause = next((f.sample for f in failures.values() if f.sample), None)
    counts = ", ".join(f"{kind} {f.count}" for kind, f in failures.items())
    return (
        f"calibrant: no transcript got a verdict from the judge ({total}"
        + (f": {counts}" if counts else "")
        + "); "
        + rerun
        + (f"; first error: {cause}" if cause else "")
    )


def print_score_run(run_id: str, *, as_json: bool = False) -> None:
    """The run id and the "Next:" lines, last (on stderr under `as_json`: stdout stays JSON)."""
    Console(stderr=as_json).print(f"Run: {run_id}", highlight=False, markup=False)
    for line in score_next_lines(run_id):
        Console(stderr=as_json, soft_wrap=True).print(line, highlight=False, markup=False)


def render_score_run(
    console: Console,
    report: ScoreReport,
    *,
    written: list[Path] | None = None,
    as_json: bool = False,
    verbose: bool = False,
) -> bool:
    """A score run's summary on `console`, brief or whole (`verbose`; nothing under `as_json`,
    where the caller printed the JSON, nor when nothing was measured), then the files
    `written` on stderr. Whether anything was measured (a transcript got a verdict)."""
    measured = bool(report.judge_outcomes.get("verdict"))
    if measured and not as_json:
        (render_score_summary if verbose else render_score_brief)(console, report)
    for path in written or []:
        Console(stderr=True).print(f"wrote {path}", highlight=False)
    return measured
