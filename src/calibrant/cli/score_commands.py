"""`calibrant score`: the daily job — judge new, unlabeled transcripts in batch, safety beside
communication, with pass rates corrected by the judge's calibration."""

from __future__ import annotations

import json
from functools import partial
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from .app import (
    app,
)
from .batch_submit import PollOpt, batch_hooks
from .judge_group import JUDGE_GROUP, judge_group
from .rerun import rerun_note
from .score_options import (
    CalibrationOpt,
    ChunkOpt,
    CsvOutOpt,
    FailOnViolationOpt,
    QueueOpt,
    RowsOutOpt,
    ScoreJsonOpt,
    ScorePathsArg,
    ScoreVerboseOpt,
    SubmitOpt,
    WaitOpt,
)

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions
    from ..ops.score import ScoreHooks, ScoreOptions
    from ..store import Store


@app.command()
@judge_group()
def score(
    paths: ScorePathsArg = None,
    judge: JudgeOptions = JUDGE_GROUP,
    calibration: CalibrationOpt = None,
    out: RowsOutOpt = None,
    csv_out: CsvOutOpt = None,
    as_json: ScoreJsonOpt = False,
    fail_on_violation: FailOnViolationOpt = False,
    queue: QueueOpt = False,
    chunk: ChunkOpt = 50,
    wait_run: WaitOpt = None,
    submit: SubmitOpt = False,
    poll_s: PollOpt = 30.0,
    verbose: ScoreVerboseOpt = False,
) -> None:
    """Score new transcripts: safety outcomes and the judge's communication verdicts side by
    side, per transcript, and a summary with pass rates corrected by the judge's calibration.
    Answers are stored as they come: a rerun after a crash asks only for what is missing.
    Exit 1 with --fail-on-violation on any violation; 3 when no transcript got a verdict."""
    from ..ops.score import ScoreHooks
    from ..ops.score_request import ScoreRequest, check_score_request, score_to_files
    from ..reports.score import no_verdict_line, print_score_run, render_inputs, render_score_run
    from ..store import Store
    from .malloc import trim_heap
    from .progress import track

    request = ScoreRequest(
        tuple(paths or ()), judge, calibration, out=out, csv_out=csv_out, queue=queue,
        chunk=chunk, submit=submit, poll_s=poll_s, wait=wait_run,
    )  # fmt: skip
    options = check_score_request(request)
    if options is None:  # --wait RUN_ID
        return wait(str(wait_run), as_json=as_json, verbose=verbose)
    err = Console(stderr=True)
    hooks = ScoreHooks(
        progress=lambda what, total: track(what, total=total),
        on_inputs=partial(render_inputs, err),
        after_round=trim_heap,  # what a round freed is not kept resident: memory flat in N
        batch=batch_hooks(err),
    )
    with Store.open() as store:
        if queue:
            return queue_run(store, options, judge, chunk, hooks)
        result, written = score_to_files(store, options, hooks, out=out, csv_out=csv_out)
    report = result.typed()
    if as_json:
        typer.echo(json.dumps(result.data, indent=2, sort_keys=True, ensure_ascii=False))
    if not render_score_run(Console(), report, written=written, as_json=as_json, verbose=verbose):
        rerun = rerun_note(report.judge_outcomes)  # no pass rate from nothing: the cause
        line = no_verdict_line(report, result.transcripts, rerun)
        err.print(line, highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(3)
    print_score_run(result.run_id, as_json=as_json)
    if fail_on_violation and report.safety.release_blockers:
        raise typer.Exit(1)
    return None


def queue_run(
    store: Store, options: ScoreOptions, judge: JudgeOptions, chunk: int, hooks: ScoreHooks
) -> None:
    """`score --queue`: the batch queued for workers; says so on stderr, the run id on stdout."""
    from ..ops.score import QueueOptions, ScoreHooks, enqueue
    from ..reports.score import queued_line

    given = judge.model_dump(mode="json", exclude_none=True)
    queued = enqueue(
        store, QueueOptions(options, given, chunk), ScoreHooks(on_inputs=hooks.on_inputs)
    )
    Console(stderr=True).print(queued_line(queued), highlight=False)
    typer.echo(queued.run_id)


def wait(run_id: str, *, as_json: bool, poll_s: float = 1.0, verbose: bool = False) -> None:
    """Follow a queued run until every job is done; print its summary (as `score` does)."""
    from ..ops.score import wait as wait_op
    from ..reports.score import print_score_run, render_score_run
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
        result = wait_op(store, run_id, on_status=on_status, poll_s=poll_s)
    if as_json:
        typer.echo(json.dumps(result.data, indent=2, sort_keys=True, ensure_ascii=False))
    report = result.typed()
    if not render_score_run(Console(), report, as_json=as_json, verbose=verbose):
        err.print(
            f"calibrant: no transcript of run {run_id} got a verdict from the judge; "
            + rerun_note(report.judge_outcomes),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(3)
    print_score_run(run_id, as_json=as_json)
