"""The `calibrant` command line. Thin: parse options, call one core function, render."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from .errors import CalibrantError

app = typer.Typer(
    name="calibrant",
    help="Calibrate an LLM judge of agent communication against expert labels, with "
    "deterministic safety verdicts kept apart.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

rubric_app = typer.Typer(help="Rubric tools.", no_args_is_help=True)
app.add_typer(rubric_app, name="rubric")

SCHEMAS = ("transcript", "case", "rubric", "label", "verdict", "judgment")


@app.command()
def schema(
    name: Annotated[str, typer.Argument(help=f"One of: {', '.join(SCHEMAS)}.")],
) -> None:
    """Print the JSON Schema of a data contract."""
    from pydantic import BaseModel

    from . import contracts as c

    models: dict[str, type[BaseModel]] = {
        "transcript": c.Transcript,
        "case": c.CaseContract,
        "rubric": c.Rubric,
        "label": c.Label,
        "verdict": c.SafetyVerdict,
        "judgment": c.Judgment,
    }
    if name not in models:
        raise CalibrantError(f"unknown schema '{name}'; choose one of: {', '.join(SCHEMAS)}")
    typer.echo(json.dumps(models[name].model_json_schema(), indent=2, sort_keys=True))


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Transcript JSON files or folders of them.")],
    case: Annotated[
        Path | None,
        typer.Option(
            "--case",
            help="Case contract (YAML) to check against, instead of the "
            "copy embedded in each transcript.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print stable JSON instead of tables.")
    ] = False,
    fail_on_violation: Annotated[
        bool,
        typer.Option(
            "--fail-on-violation",
            help="Exit 1 if any invariant is violated; exit 3 if none is violated but "
            "some evidence was missing or inconsistent (harness_error).",
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show every invariant, not only failures.")
    ] = False,
) -> None:
    """Check transcripts against the deterministic safety invariants, one outcome each."""
    from .files import expand_paths, load_case, load_transcript
    from .reports.safety import render_safety, safety_json
    from .safety import check_transcript

    files = expand_paths(paths, suffixes=(".json",))
    if not files:
        raise CalibrantError("no transcript (*.json) found in the given paths")
    contract = load_case(case) if case is not None else None
    # one file at a time, keeping only verdicts (memory stays flat); nothing is printed until
    # every file has parsed, so a bad file still exits 2 with no output
    verdicts = [
        check_transcript(load_transcript(f), contract=contract, source=str(f)) for f in files
    ]
    if as_json:
        typer.echo(safety_json(verdicts))
    else:
        render_safety(Console(), verdicts, verbose=verbose)
    if fail_on_violation:
        if any(v.violated for v in verdicts):
            raise typer.Exit(1)
        if any(v.harness_errors for v in verdicts):
            raise typer.Exit(3)


@app.command()
def trials(
    paths: Annotated[list[Path], typer.Argument(help="Case YAML files or folders of them.")],
    agent: Annotated[
        str,
        typer.Option(
            "--agent",
            help="scripted:<behaviour>, scripted:<behaviour>/<style>, or "
            "llm:<litellm model string>.",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder for the transcripts.")],
    k: Annotated[int, typer.Option("-k", min=1, help="Trials per case.")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed for wording and resampling.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    api_base: Annotated[
        str | None, typer.Option("--api-base", help="OpenAI-compatible endpoint for an llm: agent.")
    ] = None,
) -> None:
    """Run k trials of an agent on each case from clean fixtures; write transcripts; report."""
    from rich.progress import Progress

    from .files import expand_paths, load_case
    from .harness import TrialRun, run_trials
    from .reports.trials import render_trial_report, report_json, trial_report

    files = expand_paths(paths, suffixes=(".yaml", ".yml"))
    if not files:
        raise CalibrantError("no case (*.yaml) found in the given paths")
    cases = [load_case(f) for f in files]  # validate every case before running any
    console = Console(stderr=as_json)
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task(f"{agent}", total=len(cases) * k)

        def tick(run: TrialRun) -> None:
            bar.advance(task)

        runs = run_trials(cases, agent, k=k, seed=seed, out=out, on_trial=tick, api_base=api_base)
    report = trial_report([(r.transcript, r.verdict) for r in runs], seed=seed)
    if as_json:
        typer.echo(report_json(report))
    else:
        render_trial_report(console, report)
        console.print(f"{len(runs)} transcript(s) written to {out}")


@app.command()
def selftest(
    cases: Annotated[Path, typer.Option("--cases", help="Folder of case contracts.")] = Path(
        "cases"
    ),
    write: Annotated[
        Path | None,
        typer.Option("--write", help="Also write the corpus transcripts and a manifest here."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed for the agents' wording.")] = 0,
) -> None:
    """Test the checker: known-good transcripts must pass, deliberately broken ones must fail
    with the right invariant named. Exit 1 if the checker misses anything."""
    from rich.table import Table

    from .files import write_atomic
    from .harness import transcript_filename
    from .selftest import build_corpus, check_entry

    corpus = build_corpus(cases, seed=seed)
    table = Table(title="Checker self-test", title_justify="left")
    for col in ("transcript", "expected", "checker says", "ok"):
        table.add_column(col)
    failures = 0
    manifest = {}
    for entry in corpus:
        verdict, problems = check_entry(entry)
        failures += bool(problems)
        flagged = [
            f"{r.invariant}={r.outcome}"
            for r in verdict.results
            if r.outcome in ("violated", "harness_error")
        ]
        expected = [f"{k}={v}" for k, v in entry.expect.items()] or ["clean"]
        table.add_row(
            entry.name,
            "\n".join(expected),
            "\n".join(flagged) or "clean",
            "[green]yes[/green]" if not problems else "[red]" + "; ".join(problems) + "[/red]",
        )
        if write is not None:
            fname = transcript_filename(entry.name)
            write_atomic(write / fname, entry.transcript.model_dump_json(indent=1))
            manifest[fname] = {"description": entry.description, "expect": entry.expect}
    if write is not None:
        import yaml

        write_atomic(write / "expected.yaml", yaml.safe_dump(manifest, sort_keys=True))
    console = Console()
    console.print(table)
    console.print(
        f"{len(corpus) - failures}/{len(corpus)} self-test transcripts judged as expected"
    )
    if failures:
        raise typer.Exit(1)


@rubric_app.command("guide")
def rubric_guide(
    path: Annotated[Path, typer.Argument(help="Rubric YAML file.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the guide here instead of stdout.")
    ] = None,
) -> None:
    """Print the labeling guide (Markdown) for human experts, from the rubric the judge reads."""
    from .files import load_rubric, write_atomic
    from .judge.guide import labeling_guide

    text = labeling_guide(load_rubric(path))
    if out is None:
        typer.echo(text, nl=False)
    else:
        write_atomic(out, text)


ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="litellm model string (default: the embedded offline judge, "
        "calibrant-local/smollm2-135m).",
    ),
]
ApiBaseOpt = Annotated[
    str | None,
    typer.Option("--api-base", help="OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama...)."),
]
RubricOpt = Annotated[
    Path | None,
    typer.Option("--rubric", help="Rubric YAML (default rubrics/refund_communication.yaml)."),
]
JudgeOpt = Annotated[
    str | None, typer.Option("--judge", help="Saved judge configuration: judges/NAME.yaml.")
]
ConcurrencyOpt = Annotated[
    int | None, typer.Option("--concurrency", min=1, help="Parallel model calls (default 4).")
]
TimeoutOpt = Annotated[float | None, typer.Option("--timeout", help="Per-call timeout in seconds.")]
AttemptsOpt = Annotated[
    int | None,
    typer.Option("--max-attempts", min=1, help="Calls per item, retries included (default 4)."),
]


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

    from .files import expand_paths, load_transcript
    from .judge.config import JudgeOptions, resolve_judge
    from .judge.runner import judge_transcripts
    from .reports.judgments import judge_report, render_judge_report, report_json
    from .safety import check_transcript
    from .store import Store, make_engine

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
    from .agreement.raters import rater_agreement
    from .files import load_labels, load_rubric
    from .reports.agree import render_agreement

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

    from .agreement.gate import GateSettings
    from .calibration import Settings, run_calibration
    from .files import write_atomic
    from .judge.config import JudgeOptions
    from .reports.calibration import calibration_json, calibration_markdown, render_calibration
    from .reports.html import calibration_html

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


def main() -> None:
    """Console entry point: user errors in one line on stderr, exit 2; bugs shown as bugs."""
    try:
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except CalibrantError as exc:
        print(f"calibrant: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        print("calibrant: aborted", file=sys.stderr)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # a bug: say so, with the traceback
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(2)
        import traceback

        traceback.print_exc()
        print(
            f"calibrant: internal error (a bug, please report it): {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        sys.exit(70)
