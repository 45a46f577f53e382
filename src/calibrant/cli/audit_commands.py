"""After release: `calibrant audit` draws a sample of a score run into a blind workbench queue;
`calibrant agreement-over-time` measures the judge against the experts' labels of the audited
items per judge version and time window; `calibrant monitor` raises the drift alarm. The
operations are `calibrant.ops.audit`'s and `calibrant.ops.monitor`'s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from .app import app
from .monitor_options import (
    AlphaOpt,
    AnchorScoringsOpt,
    AnchorsOpt,
    DriftJudgeOpt,
    DriftVerdictsOpt,
    FailOnDriftOpt,
    MinAnchorCasesOpt,
    MonitorHtmlOpt,
    MonitorJsonOpt,
    MonitorQueueOpt,
    MonitorResamplesOpt,
    MonitorRubricOpt,
    MonitorSeedOpt,
    PerWindowOpt,
    ReferenceWindowsOpt,
    WindowOpt,
)
from .verdicts_options import VerdictsFormatOpt

AuditRunArg = Annotated[
    str, typer.Argument(help="The score run to audit: its id, a prefix, or latest.")
]
AuditQueueOpt = Annotated[
    str, typer.Option("--queue", help="The new workbench queue the sample goes to.")
]
RateOpt = Annotated[
    float | None, typer.Option("--rate", help="Share of the run's transcripts, in (0, 1].")
]
AuditCountOpt = Annotated[int | None, typer.Option("--count", help="Number of transcripts.")]
AuditSeedOpt = Annotated[int, typer.Option("--seed", help="Same seed, same sample.")]
PerCaseOpt = Annotated[
    int, typer.Option("--per-case", help="At most this many transcripts of one case.")
]
StratifyByOpt = Annotated[
    str | None,
    typer.Option(
        "--stratify-by",
        help="Criteria whose verdicts make the strata, comma-separated (default: the "
        "pass/fail criteria).",
    ),
]
AuditRubricOpt = Annotated[
    Path | None,
    typer.Option("--rubric", help="The run's rubric file, if the store does not hold it."),
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Draw and show the sample; write nothing.")
]
AuditJsonOpt = Annotated[bool, typer.Option("--json", help="Print the audit as JSON.")]


@app.command()
def audit(
    run: AuditRunArg,
    queue: AuditQueueOpt,
    rate: RateOpt = None,
    count: AuditCountOpt = None,
    seed: AuditSeedOpt = 0,
    per_case: PerCaseOpt = 2,
    stratify_by: StratifyByOpt = None,
    rubric: AuditRubricOpt = None,
    dry_run: DryRunOpt = False,
    as_json: AuditJsonOpt = False,
) -> None:
    """Draw a sample of a score run's transcripts into a blind workbench queue (stratified by
    the judge's verdict, at most --per-case per case), recording what the judge said of each
    and the probability it was drawn with."""
    from ..ops.audit import AuditOptions, draw_audit
    from ..reports.audit import audit_lines
    from ..store import make_engine

    text = None
    if rubric is not None:
        try:
            text = rubric.read_text(encoding="utf-8")
        except OSError as exc:
            from ..errors import ConfigError

            raise ConfigError(f"--rubric {rubric}: cannot read it ({exc.strerror})") from None
    engine = make_engine()
    try:
        result = draw_audit(
            engine,
            AuditOptions(
                score_run=run,
                queue=queue,
                seed=seed,
                rate=rate,
                count=count,
                per_case=per_case,
                stratify_by=None
                if stratify_by is None
                else tuple(x.strip() for x in stratify_by.split(",") if x.strip()),
                rubric_text=text,
                dry_run=dry_run,
            ),
            by="cli",
        )
    finally:
        engine.dispose()
    if as_json:
        data = {"run_id": result.run_id, **result.report.json_data()}
        typer.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    out = Console(highlight=False)
    for line in audit_lines(result.run_id, result.report, result.added, dry_run=dry_run):
        out.print(line)


@app.command("agreement-over-time")
def agreement_over_time(
    window: Annotated[
        str, typer.Option("--window", help="day, week or month (of the score runs' times).")
    ] = "week",
    judge: Annotated[
        str | None, typer.Option("--judge", help="One judge version (its hash or a prefix).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    resamples: Annotated[
        int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")
    ] = 2000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """The judge against the experts on audited items, per judge version and window: kappa
    with a case-clustered interval, sensitivity and specificity per label, the gate, and the
    pass rate corrected by the judge's errors on the window's audit."""
    from ..ops.audit import agreement_over_time as report_op
    from ..reports.audit import agreement_lines
    from ..store import make_engine

    engine = make_engine()
    try:
        report = report_op(engine, window=window, judge=judge, seed=seed, n_resamples=resamples)
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps(report.json_data(), indent=2, sort_keys=True))
        return
    out = Console(highlight=False)
    for line in agreement_lines(report):
        out.print(line)


@app.command()
def monitor(
    window: WindowOpt = "week",
    judge: DriftJudgeOpt = None,
    anchors: AnchorsOpt = None,
    per_window: PerWindowOpt = 20,
    anchor_scorings: AnchorScoringsOpt = 3,
    min_anchor_cases: MinAnchorCasesOpt = 10,
    reference_windows: ReferenceWindowsOpt = 4,
    alpha: AlphaOpt = 0.05,
    seed: MonitorSeedOpt = 0,
    resamples: MonitorResamplesOpt = 2000,
    fail_on_drift: FailOnDriftOpt = False,
    html: MonitorHtmlOpt = None,
    as_json: MonitorJsonOpt = False,
    verdicts: DriftVerdictsOpt = None,
    verdicts_format: VerdictsFormatOpt = "auto",
    rubric: MonitorRubricOpt = None,
    queue: MonitorQueueOpt = None,
) -> None:
    """Drift after release: replay a judge version's audit windows through anytime-valid rules
    (agreement below the gate, judged label shift, anchors moved) from its release calibration,
    and name the rule behind any alarm. With --verdicts, the judge is one that runs elsewhere
    (see docs/daily-loop.md)."""
    from ..ops.monitor import MonitorOptions
    from ..ops.monitor_run import MonitorRequest, run_monitor, write_monitor_page
    from ..reports.monitor_text import monitor_lines

    options = MonitorOptions(
        judge=judge,
        window=window,
        alpha=alpha,
        seed=seed,
        n_resamples=resamples,
        reference_windows=reference_windows,
        min_anchor_cases=min_anchor_cases,
    )
    request = MonitorRequest(
        options, anchors=anchors, per_window=per_window, anchor_scorings=anchor_scorings,
        verdicts=verdicts, verdicts_format=verdicts_format, rubric=rubric,
        queues=tuple(queue or ()),
    )  # fmt: skip
    report = run_monitor(request)
    if html is not None:
        write_monitor_page(report, html)
    if as_json:
        typer.echo(json.dumps(report.json_data(), indent=2, sort_keys=True))
    else:
        for line in monitor_lines(report):
            typer.echo(line)
    if fail_on_drift and report.alarm:
        raise typer.Exit(1)
