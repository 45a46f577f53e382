"""After release: `calibrant audit` draws a sample of a score run into a blind workbench queue;
`calibrant agreement-over-time` measures the judge against the experts' labels of the audited
items per judge version and time window; `calibrant monitor` raises the drift alarm. The
operations are `calibrant.ops.audit`'s and `calibrant.ops.monitor`'s."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from .app import app
from .verdicts_options import VerdictsFormatOpt


@app.command()
def audit(
    run: Annotated[
        str, typer.Argument(help="The score run to audit: its id, a prefix, or latest.")
    ],
    queue: Annotated[
        str, typer.Option("--queue", help="The new workbench queue the sample goes to.")
    ],
    rate: Annotated[
        float | None, typer.Option("--rate", help="Share of the run's transcripts, in (0, 1].")
    ] = None,
    count: Annotated[int | None, typer.Option("--count", help="Number of transcripts.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same sample.")] = 0,
    per_case: Annotated[
        int, typer.Option("--per-case", help="At most this many transcripts of one case.")
    ] = 2,
    stratify_by: Annotated[
        str | None,
        typer.Option(
            "--stratify-by",
            help="Criteria whose verdicts make the strata, comma-separated (default: the "
            "pass/fail criteria).",
        ),
    ] = None,
    rubric: Annotated[
        Path | None,
        typer.Option("--rubric", help="The run's rubric file, if the store does not hold it."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Draw and show the sample; write nothing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the audit as JSON.")] = False,
) -> None:
    """Draw a sample of a score run's transcripts into a blind workbench queue (stratified by
    the judge's verdict, at most --per-case per case), recording what the judge said of each
    and the probability it was drawn with."""
    from ..ops.audit import AuditOptions, draw_audit
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
    r = result.report
    if as_json:
        typer.echo(json.dumps({"run_id": result.run_id, **r}, indent=2, sort_keys=True))
        return
    out = Console(highlight=False)
    what = "would draw" if dry_run else "drew"
    out.print(
        f"audit {result.run_id or '(dry run)'}: {what} {len(r['items'])} of "
        f"{r['population']} transcripts ({r['drawn_cases']} of {r['cases']} cases) of score run "
        f"{r['score_run']['id']} into queue '{r['queue']}' ({result.added} new items, seed "
        f"{r['seed']})"
    )
    for s in r["strata"]:
        out.print(f"  {s['stratum']}: {s['drawn']} of {s['population']} (kept {s['kept']})")


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
    from ..store import make_engine

    engine = make_engine()
    try:
        report = report_op(engine, window=window, judge=judge, seed=seed, n_resamples=resamples)
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
        return
    out = Console(highlight=False)
    if not report["windows"]:
        out.print("no audited items yet (`calibrant audit RUN --queue NAME --rate R`)")
    for w in report["windows"]:
        out.print(f"judge {w['judge_version'][:19]} ({w['judge_model']}) {w['start'][:10]}:")
        for c in w["criteria"]:
            k = c["kappa"]
            ci = k.get("ci")
            kappa = "undefined" if k.get("estimate") is None else f"{k['estimate']:.2f}"
            interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
            out.print(
                f"  {c['criterion']}: kappa {kappa}{interval}, n={c['n_items']} "
                f"({c['n_cases']} cases, {c['n_single_expert']} single-expert), gate "
                f"{c['gate_status']}"
            )
            rates = [
                f"{name} {_rate(c.get(key))}"
                for name, key in (("judged", "pass_rate_judged"), ("audited", "pass_rate_audited"))
                if c.get(key)
            ]
            corrected = (c.get("pass_rate_corrected") or {}).get("corrected")
            if corrected:
                rates.append(f"corrected {_rate(corrected)}")
            if rates:
                out.print("    pass rate " + ", ".join(rates))


def _rate(figure: dict[str, Any] | None) -> str:
    if not figure or figure.get("value") is None:
        return "undefined"
    ci = figure.get("ci95")
    return f"{figure['value']:.0%}" + (f" [{ci[0]:.0%}, {ci[1]:.0%}]" if ci else "")


@app.command()
def monitor(
    window: Annotated[
        str, typer.Option("--window", help="day, week or month (of the score runs' times).")
    ] = "week",
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="The judge: a saved judge's name (judges/NAME.yaml) or a judge version (its "
            "hash or a prefix). Default: the one judge version audited.",
        ),
    ] = None,
    anchors: Annotated[
        Path | None,
        typer.Option(
            "--anchors",
            help="The calibration's gold folder: re-score a draw of its cases with the judge "
            "for each window not yet anchored (needs --judge NAME), so the monitor can tell a "
            "changed judge from a changed product. With --verdicts: the file's rows on its "
            "items are the anchors, re-judged elsewhere.",
        ),
    ] = None,
    per_window: Annotated[
        int, typer.Option("--per-window", help="Anchor cases drawn per window.")
    ] = 20,
    anchor_scorings: Annotated[
        int,
        typer.Option(
            "--anchor-scorings",
            help="Times the judge scores the whole anchor set at release (the calibration's "
            "scoring and more): the anchors' release kappa carries its run-to-run variation.",
        ),
    ] = 3,
    min_anchor_cases: Annotated[
        int,
        typer.Option(
            "--min-anchor-cases",
            help="The smallest anchor set (cases) the judge-or-product rule runs on; below it "
            "the rule is undecided and a label shift stays shift_unexplained.",
        ),
    ] = 10,
    reference_windows: Annotated[
        int,
        typer.Option(
            "--reference-windows",
            help="The first windows of traffic the label-shift rule compares later ones with.",
        ),
    ] = 4,
    alpha: Annotated[
        float, typer.Option("--alpha", help="Each rule's false-alarm bound over its life.")
    ] = 0.05,
    seed: Annotated[int, typer.Option("--seed", help="Anchor draws and bootstrap seed.")] = 0,
    resamples: Annotated[
        int, typer.Option("--resamples", min=100, help="Bootstrap resamples (kappa CIs).")
    ] = 2000,
    fail_on_drift: Annotated[
        bool, typer.Option("--fail-on-drift", help="Exit 1 when an alarm is raised.")
    ] = False,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the page with the time-series plot.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    verdicts: Annotated[
        Path | None,
        typer.Option(
            "--verdicts",
            help="A judge that runs elsewhere: its recorded verdicts (as for `calibrate "
            "--verdicts`, each row with judged_at, the time it answered) take the place of the "
            "store's judgments; audited items are the file's items the workbench holds, "
            "anchors (with --anchors) the file's rows on the gold folder's items.",
            show_default=False,
        ),
    ] = None,
    verdicts_format: VerdictsFormatOpt = "auto",
    rubric: Annotated[
        Path | None,
        typer.Option("--rubric", help="With --verdicts: the rubric the verdicts are on."),
    ] = None,
    queue: Annotated[
        list[str] | None,
        typer.Option(
            "--queue",
            help="With --verdicts: audited items only from this workbench queue (repeatable; "
            "default any queue).",
        ),
    ] = None,
) -> None:
    """Drift after release: replay a judge version's audit windows through anytime-valid rules
    (agreement below the gate, judged label shift, anchors moved) from its release calibration,
    and name the rule behind any alarm. With --verdicts, the judge is one that runs elsewhere
    (see docs/daily-loop.md)."""
    from ..ops.monitor import MonitorOptions, monitor_report, record_anchors
    from ..store import make_engine

    options = MonitorOptions(
        judge=judge,
        window=window,
        alpha=alpha,
        seed=seed,
        n_resamples=resamples,
        reference_windows=reference_windows,
        min_anchor_cases=min_anchor_cases,
    )
    if verdicts is not None:
        report = _recorded_monitor(options, verdicts, verdicts_format, rubric, anchors, queue)
        _show_monitor(report, html=html, as_json=as_json, fail_on_drift=fail_on_drift)
        return
    if rubric is not None or queue:
        from ..errors import ConfigError

        raise ConfigError("monitor: --rubric and --queue go with --verdicts")
    version = judge
    resolved = None
    if judge is not None and _saved_judge(judge):
        from ..judge.config import JudgeOptions, resolve_judge

        resolved = resolve_judge(JudgeOptions(judge=judge))
        version = resolved[0].hash
    engine = make_engine()
    try:
        if anchors is not None:
            from ..errors import ConfigError

            if resolved is None:
                raise ConfigError(
                    "monitor: --anchors re-scores gold items with the judge: give --judge NAME "
                    "(a saved judge)"
                )
            config, judge_rubric, policy, concurrency = resolved
            record_anchors(
                engine,
                gold=anchors,
                config=config,
                rubric=judge_rubric,
                policy=policy,
                window=window,
                per_window=per_window,
                seed=seed,
                concurrency=concurrency,
                release_scorings=anchor_scorings,
            )
        report = monitor_report(engine, replace(options, judge=version))
    finally:
        engine.dispose()
    _show_monitor(report, html=html, as_json=as_json, fail_on_drift=fail_on_drift)


def _recorded_monitor(
    options: Any,
    verdicts: Path,
    fmt: str,
    rubric: Path | None,
    anchors: Path | None,
    queues: list[str] | None,
) -> dict[str, Any]:
    """`monitor --verdicts`: the file read and checked before the store opens."""
    from ..errors import ConfigError
    from ..ops.monitor_recorded import read_monitored, recorded_monitor_report
    from ..store import make_engine
    from .verdicts_options import check_format, load_rubric_for_verdicts

    if options.judge is not None:
        raise ConfigError(
            "monitor: --verdicts names its judge (the file's judge_version): leave out --judge"
        )
    check_format(fmt)
    judge = read_monitored(
        verdicts, rubric=load_rubric_for_verdicts(rubric), window=options.window, fmt=fmt
    )
    engine = make_engine()
    try:
        return recorded_monitor_report(
            engine, options, judge, anchors=anchors, queues=tuple(queues or ())
        )
    finally:
        engine.dispose()


def _show_monitor(
    report: dict[str, Any], *, html: Path | None, as_json: bool, fail_on_drift: bool
) -> None:
    if html is not None:
        from ..reports.monitor_html import monitor_page

        html.write_text(monitor_page(report), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
    else:
        _print_monitor(report)
    if fail_on_drift and report["alarm"]:
        raise typer.Exit(1)


def _saved_judge(name: str) -> bool:
    from ..judge.config import judges_dir

    return "/" not in name and (judges_dir() / f"{name}.yaml").is_file()


def _print_monitor(report: dict[str, Any]) -> None:
    """One line per fact, unwrapped, for a pipeline's log (and grep)."""
    out = typer.echo
    s = report["settings"]
    out(
        f"judge {report['judge_version'][:19]} ({report['judge_model']}), release calibration "
        f"{report['calibration_run'][:12]}; alarm at e-value >= {s['threshold']:g}"
    )
    v = report.get("verdicts")
    if v:
        out(
            f"recorded verdicts {v['file']} ({v['rows']} rows, {v['audited_items']} audited "
            f"items, {v['anchor_rows']} anchor rows)"
        )
    for w in report["windows"]:
        out(f"{report['window']} {w['name']}:")
        for c in w["criteria"]:
            k = "undefined" if c["kappa"] is None else f"{c['kappa']:.2f}"
            if c["kappa_ci"]:
                k += f" [{c['kappa_ci'][0]:.2f}, {c['kappa_ci'][1]:.2f}]"
            e = ", ".join(
                f"{r} {c[r]['e_value']:.3g}"
                for r in ("agreement", "shift", "anchors")
                if c[r] is not None
            )
            out(
                f"  {c['criterion']}: kappa {k} (n={c['n_items']}), e-values {e}: "
                f"{', '.join(c['verdicts'])}"
            )
    if not report["alarms"]:
        out("no drift alarm")
    for a in report["alarms"]:
        out(
            f"DRIFT {a['criterion']}: {a['verdict']} (rule {a['rule']}, since {a['fired_at']}, "
            f"e-value {a['e_value']:.3g})"
        )
    for name, reasons in (report.get("reasons") or {}).items():
        for r in reasons:
            out(f"why {name}: {r}")
    for w in report["warnings"]:
        out(f"warning: {w}")
