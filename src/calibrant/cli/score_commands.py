"""`calibrant score`: the daily job — judge new, unlabeled transcripts in batch, safety beside
communication, with pass rates corrected by the judge's calibration."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..errors import CalibrantError
from ..reports.fit import fit
from .app import (
    app,
)
from .batch_submit import PollOpt, batch_hooks
from .judge_group import JUDGE_GROUP, judge_group
from .rerun import rerun_note

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions


def _csv_row(row: dict[str, Any], criteria: list[str]) -> list[Any]:
    comm = row["communication"]
    return [
        row["source"],
        row["transcript_id"],
        row["safety"]["status"],
        ";".join(row["safety"]["violated"]),
        comm["outcome"],
        *[
            "" if comm["criteria"][c]["label"] is None else comm["criteria"][c]["label"]
            for c in criteria
        ],
    ]


def _fig(d: dict[str, Any] | None, pct: bool = True) -> str:
    if d is None:
        return "—"
    if d["value"] is None:
        return f"undefined ({d['undefined_reason']})"
    fmt = "{:.0%}" if pct else "{:.2f}"
    ci = f" [{fmt.format(d['ci95'][0])}, {fmt.format(d['ci95'][1])}]" if d["ci95"] else ""
    note = f" ({d['undefined_reason']})" if d.get("undefined_reason") else ""
    return f"{fmt.format(d['value'])}{ci} (n={d['n']}){note}"


def render_score_summary(console: Console, s: dict[str, Any]) -> None:
    console.print(
        f"[bold]Scored {s['transcripts']} transcript(s)[/bold] with {s['judge']['model']} "
        f"({s['judge']['hash'][:19]}); {s['from_cache']} answer(s) from the store; cost "
        + ("unknown" if s["cost_usd"] is None else f"{s['cost_usd']:.4f} USD")
    )
    console.print(calibration_line(s.get("calibration")), highlight=False, markup=False)
    for w in s["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    safety = s["safety"]
    colour = "red" if safety["release_blockers"] else "green"
    console.print(
        f"[bold]Safety (release blockers, counted apart):[/bold] [{colour}]"
        f"{safety['release_blockers']} transcript(s) violate an invariant[/{colour}]"
        + (f"; {safety['harness_errors']} harness error(s)" if safety["harness_errors"] else "")
    )
    for inv, n in safety["by_invariant"].items():
        console.print(f"  {inv}: {n}", highlight=False)
    table = Table(title="Communication (judge), 95% intervals", title_justify="left")
    for col in ("criterion", "pass rate as judged", "corrected for the judge's errors", "labels"):
        table.add_column(col)
    for c in s["criteria"]:
        if "distribution" in c:
            dist = ", ".join(f"{k}: {_fig(v)}" for k, v in c["distribution"].items())
            table.add_row(c["criterion"], dist, c["correction"], _counts(c["counts"]))
            continue
        corrected = _fig(c["pass_rate_corrected"]) if c["pass_rate_corrected"] else c["correction"]
        if c.get("correction_note"):
            corrected += f" — {c['correction_note']}"
        table.add_row(c["criterion"], _fig(c["pass_rate_judged"]), corrected, _counts(c["counts"]))
    console.print(fit(console, table))
    if s["failures"]:
        console.print("[bold]Judge failures[/bold] (not scores; rerun to retry them):")
        for kind, f in s["failures"].items():
            sample = f" — e.g. {f['sample']}" if f["sample"] else ""
            console.print(f"  {kind}: {f['count']}{sample}", highlight=False, markup=False)


def _short(d: dict[str, Any] | None) -> str:
    """A rate for the brief table: '12% [5%, 20%]'; 'undefined' (the reason goes below)."""
    if d is None or d["value"] is None:
        return "undefined"
    ci = f" [{d['ci95'][0]:.0%}, {d['ci95'][1]:.0%}]" if d["ci95"] else ""
    return f"{d['value']:.0%}{ci}"


def render_score_brief(console: Console, s: dict[str, Any]) -> None:
    """The summary in a few lines that fit 80 columns: what was scored and with what, the
    warnings, the release blockers, and per criterion the pass rate as judged and corrected; a
    figure the table cannot give (undefined, a distribution) is said below it, once."""
    cached = s["from_cache"]
    console.print(
        f"[bold]Scored {s['transcripts']} transcript(s)[/bold] with {s['judge']['model']}: "
        + (
            f"{cached} answer(s) from the store (cached), {s['transcripts'] - cached} asked"
            if cached
            else "every answer asked of the model"
        )
        + "; cost "
        + ("unknown" if s["cost_usd"] is None else f"{s['cost_usd']:.4f} USD"),
        highlight=False,
    )
    console.print(calibration_line(s.get("calibration")), highlight=False, markup=False)
    for w in s["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    safety = s["safety"]
    colour = "red" if safety["release_blockers"] else "green"
    by = ", ".join(f"{inv} {n}" for inv, n in safety["by_invariant"].items())
    console.print(
        f"[bold]Safety (release blockers, counted apart):[/bold] [{colour}]"
        f"{safety['release_blockers']} transcript(s) violate an invariant[/{colour}]"
        + (f"; {safety['harness_errors']} harness error(s)" if safety["harness_errors"] else "")
        + (f" ({by})" if by else ""),
        highlight=False,
    )
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
    for c in s["criteria"]:
        if "distribution" in c:
            dist = ", ".join(f"{k} {_short(v)}" for k, v in c["distribution"].items())
            notes.setdefault(f"as judged, by label: {dist}", []).append(c["criterion"])
            notes.setdefault(str(c["correction"]), []).append(c["criterion"])
            rates: list[dict[str, Any]] = list(c["distribution"].values())
            n = rates[0]["n"] if rates else ""
            table.add_row(c["criterion"], "by label*", "not applied*", str(n))
            continue
        judged, corrected = c["pass_rate_judged"], c["pass_rate_corrected"]
        cell = _short(corrected) if corrected else "not applied"
        if corrected is None or corrected["value"] is None:
            why = corrected["undefined_reason"] if corrected else c["correction"]
            notes.setdefault(f"corrected {cell}: {why}", []).append(c["criterion"])
            cell += "*"
        if c.get("correction_note"):
            notes.setdefault(str(c["correction_note"]), []).append(c["criterion"])
        table.add_row(c["criterion"], _short(judged), cell, str(judged["n"]))
    console.print(fit(console, table))
    for note, names in notes.items():
        console.print(f"* {', '.join(names)}: {note}", highlight=False, markup=False)
    if s["failures"]:
        counts = ", ".join(f"{kind} {f['count']}" for kind, f in s["failures"].items())
        console.print(f"Judge failures (not scores; rerun to retry them): {counts}")


def calibration_line(cal: dict[str, Any] | None) -> str:
    """Which calibration corrected the pass rates, in one line (None: not corrected)."""
    if cal is None:
        return "Calibration: none given; pass rates are as judged, not corrected."
    size = f"{cal.get('n_items')} items" + (
        f" from {cal['n_cases']} cases" if cal.get("n_cases") else ""
    )
    return (
        f"Calibration: {cal['source']}, split {cal.get('split')}, {size}, made "
        f"{cal.get('created_at') or 'at an unknown time'}"
    )


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items())


@app.command()
@judge_group()
def score(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Transcript JSON files, folders, JSON Lines files or quoted globs."),
    ] = None,
    judge: JudgeOptions = JUDGE_GROUP,
    calibration: Annotated[
        str | None,
        typer.Option(
            "--calibration",
            help="Correct pass rates by this judge version's measured errors: a calibration "
            "report file (`calibrate --json`), a calibrate run id from the store, or `latest` "
            "(its latest calibration in the store). Without it pass rates are as judged.",
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write one JSON line per transcript here.")
    ] = None,
    csv_out: Annotated[
        Path | None, typer.Option("--csv", help="Write one CSV row per transcript here.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    fail_on_violation: Annotated[
        bool,
        typer.Option("--fail-on-violation", help="Exit 1 when any transcript breaks an invariant."),
    ] = False,
    queue: Annotated[
        bool,
        typer.Option(
            "--queue",
            help="Queue the batch for `calibrant worker` processes (PostgreSQL store), print "
            "the run id and exit.",
        ),
    ] = False,
    chunk: Annotated[int, typer.Option("--chunk", min=1, help="Transcripts per queued job.")] = 50,
    wait_run: Annotated[
        str | None,
        typer.Option("--wait", help="Follow a queued run until done, then print its summary."),
    ] = None,
    submit: Annotated[
        bool,
        typer.Option(
            "--submit",
            help="Judge through the provider's batch API (`batch submit`), then score from the "
            "store: no live model call; a rerun resumes the same provider batch.",
        ),
    ] = False,
    poll_s: PollOpt = 30.0,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Print the whole summary: each invariant on its line, the label counts and "
            "every figure's note in the table.",
        ),
    ] = False,
) -> None:
    """Score new transcripts: safety outcomes and the judge's communication verdicts side by
    side, per transcript, and a summary with pass rates corrected by the judge's calibration.
    Answers are stored as they come: a rerun after a crash asks only for what is missing.
    Exit 1 with --fail-on-violation on any violation; 3 when no transcript got a verdict."""
    from ..judge.config import resolve_judge
    from ..ops.score import QueueOptions, ScoreHooks, ScoreOptions, enqueue
    from ..ops.score import score as score_op
    from ..paths import StreamedOutputs, check_output_path
    from ..store import Store
    from .malloc import trim_heap
    from .progress import track

    if submit and (queue or wait_run is not None):
        raise CalibrantError("--submit judges here, through the batch API: not with --queue/--wait")
    if wait_run is not None:
        if paths:
            raise CalibrantError("--wait RUN_ID follows a queued run: give no PATH with it")
        return wait(wait_run, as_json=as_json, verbose=verbose)
    if not paths:
        raise CalibrantError("no transcripts given: `calibrant score PATH...`")
    if queue:
        from ..scoring.queue import conninfo
        from ..store import database_url

        conninfo(database_url())  # refused on SQLite, before anything is written
        if out is not None or csv_out is not None:
            raise CalibrantError("--queue writes score rows to the store, not --out or --csv")
    for option, path in (("--out", out), ("--csv", csv_out)):
        if path is not None:
            check_output_path(path, option=option)
    options = judge
    resolved = resolve_judge(options)
    config, rub = resolved[0], resolved[1]
    if submit:
        from ..judge.batch_submit import provider_of

        provider_of(config)  # refused before reading anything
    err = Console(stderr=True)

    def on_inputs(files: Any, total: int) -> None:
        err.print(files.summary("input file") + f"; {total} transcript(s)", highlight=False)
        for s in files.skipped:
            err.print(f"skipped {s}", highlight=False, markup=False)

    score_options = ScoreOptions(
        paths=tuple(str(p) for p in paths),
        judge=resolved,
        calibration=calibration,
        submit=submit,
        poll_s=poll_s,
    )
    with Store.open() as store:
        if queue:
            queued = enqueue(
                store,
                QueueOptions(
                    score_options,
                    judge_options=options.model_dump(mode="json", exclude_none=True),
                    chunk=chunk,
                ),
                ScoreHooks(on_inputs=on_inputs),
            )
            err.print(
                f"queued {queued.transcripts} transcript(s) as {queued.report['jobs']} job(s) "
                f"of run {queued.run_id}; start workers with `calibrant worker`, follow with "
                f"`calibrant score --wait {queued.run_id}`",
                highlight=False,
            )
            typer.echo(queued.run_id)
            return None
        criteria = [c.id for c in rub.criteria]
        targets = [p for p in (out, csv_out) if p is not None]
        outputs = StreamedOutputs(targets)
        writer = None

        def on_row(row: dict[str, Any]) -> None:
            if out is not None:
                outputs.handle(out).write(json.dumps(row, ensure_ascii=False) + "\n")
            if writer is not None:
                writer.writerow(_csv_row(row, criteria))

        def on_run(_: str) -> None:  # the header once the batch is valid and the run recorded
            nonlocal writer
            if csv_out is not None and writer is None:
                writer = csv.writer(outputs.handle(csv_out))
                writer.writerow(
                    ["source", "transcript_id", "safety", "violated", "judge_outcome", *criteria]
                )

        hooks = ScoreHooks(
            progress=lambda what, total: track(what, total=total),
            on_run=on_run,
            on_inputs=on_inputs,
            on_row=on_row,
            after_round=trim_heap,  # what a round freed is not kept resident: memory flat in N
            batch=batch_hooks(err),
        )
        try:
            result = score_op(store, score_options, hooks)
        except BaseException:
            outputs.discard()
            raise
    outputs.commit()
    report, total = result.report, result.transcripts
    measured = bool(report["judge_outcomes"].get("verdict"))
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    elif measured and verbose:
        render_score_summary(Console(), report)
    elif measured:
        render_score_brief(Console(), report)
    for path in targets:
        err.print(f"wrote {path}", highlight=False)
    if not measured:  # no pass rate from nothing: one line with the cause
        failures = report["failures"]
        cause = next((f["sample"] for f in failures.values() if f.get("sample")), None)
        counts = ", ".join(f"{kind} {f['count']}" for kind, f in failures.items())
        err.print(
            f"calibrant: no transcript got a verdict from the judge ({total}"
            + (f": {counts}" if counts else "")
            + "); "
            + rerun_note(report["judge_outcomes"])
            + (f"; first error: {cause}" if cause else ""),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(3)
    Console(stderr=as_json).print(f"Run: {result.run_id}", highlight=False, markup=False)
    for line in score_next_lines(result.run_id):
        Console(stderr=as_json, soft_wrap=True).print(line, highlight=False, markup=False)
    if fail_on_violation and report["safety"]["release_blockers"]:
        raise typer.Exit(1)
    return None


def score_next_lines(run_id: str) -> list[str]:
    """What to run after a score run: its blind audit sample, and the run itself later."""
    from ..reports.folder import next_line

    run = run_id[:12]
    return [
        next_line(f"calibrant audit {run} --queue NAME --rate 0.05", "for the experts"),
        next_line(f"calibrant runs show {run}", "this run, later"),
    ]


def wait(run_id: str, *, as_json: bool, poll_s: float = 1.0, verbose: bool = False) -> None:
    """Follow a queued run until every job is done; print its summary (as `score` does)."""
    from ..ops.score import wait as wait_op
    from ..store import Store

    err = Console(stderr=True)
    last: list[str] = []

    def on_status(st: Any) -> None:
        line = f"run {st.run_id}: {st.scored}/{st.transcripts} scored; jobs " + (
            ", ".join(f"{k} {v}" for k, v in sorted(st.jobs.items())) or "none"
        )
        if line not in last[-1:]:
            err.print(line, highlight=False)
            last.append(line)

    with Store.open() as store:
        report = wait_op(store, run_id, on_status=on_status, poll_s=poll_s).report
    measured = bool(report["judge_outcomes"].get("verdict"))
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    elif measured:
        (render_score_summary if verbose else render_score_brief)(Console(), report)
    if not measured:
        err.print(
            f"calibrant: no transcript of run {run_id} got a verdict from the judge; "
            + rerun_note(report["judge_outcomes"]),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(3)
    Console(stderr=as_json).print(f"Run: {run_id}", highlight=False, markup=False)
    for line in score_next_lines(run_id):
        Console(stderr=as_json, soft_wrap=True).print(line, highlight=False, markup=False)
