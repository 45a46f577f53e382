"""Commands around the judge and the experts: rubric guide, judge, agree, calibrate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..errors import CalibrantError
from .app import (
    ApiBaseOpt,
    AttemptsOpt,
    ConcurrencyOpt,
    JudgeOpt,
    ModelOpt,
    RubricOpt,
    TimeoutOpt,
    app,
    rubric_app,
)


@rubric_app.command("guide")
def rubric_guide(
    path: Annotated[Path, typer.Argument(help="Rubric YAML file.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the guide here instead of stdout.")
    ] = None,
) -> None:
    """Print the labeling guide (Markdown) for human experts, from the rubric the judge reads."""
    from ..files import load_rubric, write_atomic
    from ..judge.guide import labeling_guide

    text = labeling_guide(load_rubric(path))
    if out is None:
        typer.echo(text, nl=False)
    else:
        write_atomic(out, text)


@app.command()
def judge(
    paths: Annotated[list[Path], typer.Argument(help="Transcript JSON files or folders.")],
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    rubric: RubricOpt = None,
    judge_name: JudgeOpt = None,
    concurrency: ConcurrencyOpt = None,
    timeout: TimeoutOpt = None,
    max_attempts: AttemptsOpt = None,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Judgments per transcript.")] = 1,
    datamark: Annotated[
        bool | None,
        typer.Option(
            "--datamark/--no-datamark", help="Datamark the untrusted text (spotlighting)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Judge the communication of transcripts; show it beside (never merged with) the safety
    verdicts. Answers are cached: a second identical run makes no model call."""
    from rich.progress import Progress

    from ..files import expand_paths, load_transcript
    from ..judge.config import JudgeOptions, resolve_judge
    from ..judge.runner import judge_transcripts
    from ..reports.judgments import judge_report, render_judge_report, report_json
    from ..safety import check_transcript
    from ..store import Store, make_engine

    files = expand_paths(paths, suffixes=(".json",))
    if not files:
        raise CalibrantError("no transcript (*.json) found in the given paths")
    transcripts = [load_transcript(f) for f in files]
    config, rub, policy, conc = resolve_judge(
        JudgeOptions(
            model=model,
            api_base=api_base,
            rubric=rubric,
            judge=judge_name,
            concurrency=concurrency,
            timeout_s=timeout,
            max_attempts=max_attempts,
            datamark=datamark,
        )
    )
    store = Store(make_engine())
    console = Console(stderr=as_json)
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task(f"judging with {config.model}", total=len(transcripts) * samples)
        run = judge_transcripts(
            transcripts,
            rubric=rub,
            config=config,
            store=store,
            concurrency=conc,
            samples=samples,
            policy=policy,
            on_done=lambda j, cached: bar.advance(task),
        )
    rows = [
        (str(f), check_transcript(t, source=str(f)), run.judgments[i * samples : (i + 1) * samples])
        for i, (f, t) in enumerate(zip(files, transcripts, strict=True))
    ]
    report = judge_report(rows, rubric=rub, from_cache=run.from_cache, model_calls=run.model_calls)
    if as_json:
        typer.echo(report_json(report))
    else:
        render_judge_report(console, report, rub)


@app.command()
def agree(
    labels: Annotated[list[Path], typer.Argument(help="Label files (JSONL or CSV), any raters.")],
    level: Annotated[
        str | None,
        typer.Option(
            "--level",
            help="nominal or ordinal, for every criterion (default: from --rubric, else nominal).",
        ),
    ] = None,
    rubric: Annotated[
        Path | None,
        typer.Option("--rubric", help="Rubric giving each criterion's scale and level."),
    ] = None,
    manifest: Annotated[
        Path | None, typer.Option("--manifest", help="Gold manifest: bootstrap clustered by case.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    resamples: Annotated[
        int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")
    ] = 2000,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Agreement among raters only (no judge): Cohen's and weighted kappa per pair with CIs,
    Fleiss' kappa and Krippendorff's alpha per criterion."""
    from ..agreement.raters import rater_agreement
    from ..files import load_labels, load_rubric
    from ..reports.agree import render_agreement

    if level not in (None, "nominal", "ordinal"):
        raise CalibrantError(f"--level must be nominal or ordinal, not '{level}'")
    rows = [x for f in labels for x in load_labels(f)]
    clusters = None
    if manifest is not None:
        import yaml

        clusters = {k: v["case"] for k, v in (yaml.safe_load(manifest.read_text()) or {}).items()}
    try:
        report = rater_agreement(
            rows,
            level="ordinal" if level == "ordinal" else "nominal" if level else None,
            rubric=load_rubric(rubric) if rubric else None,
            seed=seed,
            n_resamples=resamples,
            clusters=clusters,
        )
    except ValueError as exc:
        raise CalibrantError(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        render_agreement(Console(), report)


@app.command()
def calibrate(
    gold: Annotated[Path, typer.Option("--gold", help="Gold set folder.")] = Path("gold"),
    split: Annotated[
        str, typer.Option("--split", help="calibration, heldout or all.")
    ] = "calibration",
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    rubric: RubricOpt = None,
    judge_name: JudgeOpt = None,
    concurrency: ConcurrencyOpt = None,
    timeout: TimeoutOpt = None,
    max_attempts: AttemptsOpt = None,
    min_lower: Annotated[
        float, typer.Option("--min-lower", help="Gate: the judge's CI lower bound must reach this.")
    ] = 0.6,
    min_coverage: Annotated[
        float,
        typer.Option("--min-coverage", help="Gate: share of items with a usable judge label."),
    ] = 0.8,
    no_ceiling: Annotated[
        bool, typer.Option("--no-ceiling", help="Gate without comparing to the experts' agreement.")
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    resamples: Annotated[
        int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")
    ] = 2000,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as stable JSON.")
    ] = False,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="Also write Markdown here.")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Also write a self-contained HTML page with plots here."),
    ] = None,
    fail_on_gate: Annotated[
        bool, typer.Option("--fail-on-gate", help="Exit 1 unless every criterion's gate is PASS.")
    ] = False,
) -> None:
    """The main job: judge the gold transcripts (cached) and report, per criterion, agreement
    with the experts, the experts' own agreement, and the release gate; safety apart."""
    from rich.progress import Progress

    from ..agreement.gate import GateSettings
    from ..calibration import Settings, run_calibration
    from ..files import write_atomic
    from ..judge.config import JudgeOptions
    from ..reports.calibration import calibration_json, calibration_markdown, render_calibration
    from ..reports.html import calibration_html

    if split not in ("calibration", "heldout", "all"):
        raise CalibrantError(f"--split must be calibration, heldout or all, not '{split}'")
    settings = Settings(
        seed=seed,
        n_resamples=resamples,
        gate=GateSettings(
            min_lower=min_lower, min_coverage=min_coverage, use_ceiling=not no_ceiling
        ),
    )
    options = JudgeOptions(
        model=model,
        api_base=api_base,
        rubric=rubric,
        judge=judge_name,
        concurrency=concurrency,
        timeout_s=timeout,
        max_attempts=max_attempts,
    )
    console = Console(stderr=as_json)
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("judging gold transcripts", total=None)
        report = run_calibration(
            gold,
            split=None if split == "all" else split,
            options=options,
            settings=settings,
            on_start=lambda n: bar.update(task, total=n),
            on_done=lambda j, cached: bar.advance(task),
        )
    if markdown is not None:
        write_atomic(markdown, calibration_markdown(report))
    if html is not None:
        write_atomic(html, calibration_html(report))
    if as_json:
        typer.echo(calibration_json(report))
    else:
        render_calibration(console, report)
    if fail_on_gate and report["gate"]["judge"] != "PASS":
        raise typer.Exit(1)
