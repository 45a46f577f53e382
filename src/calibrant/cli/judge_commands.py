"""Commands that put the judge to work on transcripts (`judge`), and the labeling guide for the
experts from the rubric it reads (`rubric guide`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    judge_options,
    loading_note,
    rubric_app,
)

if TYPE_CHECKING:
    from ..contracts import Judgment
    from ..judge.config import JudgeOptions
    from ..paths import FileList


@rubric_app.command("guide")
def rubric_guide(
    path: Annotated[Path, typer.Argument(help="Rubric YAML file.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the guide here instead of stdout.")
    ] = None,
) -> None:
    """Print the labeling guide (Markdown) for human experts, from the rubric the judge reads."""
    from ..files import load_rubric
    from ..judge.guide import labeling_guide
    from ..paths import check_output_path, write_atomic

    if out is not None:
        check_output_path(out, option="--out")
    text = labeling_guide(load_rubric(path))
    if out is None:
        typer.echo(text, nl=False)
    else:
        write_atomic(out, text)
        Console(stderr=True).print(f"wrote {out}", highlight=False)


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
    as_jsonl: Annotated[
        bool,
        typer.Option(
            "--jsonl",
            help="Print one JSON line per transcript as it is judged, then a summary line "
            "(memory flat in the number of transcripts).",
        ),
    ] = False,
) -> None:
    """Judge the communication of transcripts; show it beside (never merged with) the safety
    verdicts. Answers are cached: a second identical run makes no model call."""
    from ..judge.config import resolve_judge
    from ..ops.judge import JudgeHooks, JudgeOpOptions, transcript_files
    from ..ops.judge import judge as judge_op
    from ..reports.judgments import render_judge_report, report_json
    from ..store import Store, make_engine
    from .progress import track

    err = Console(stderr=True)

    def skipped(files: FileList) -> None:
        for s in files.skipped:
            err.print(f"skipped {s}", highlight=False, markup=False)

    opts = judge_options(
        model, api_base, rubric, judge_name, concurrency, timeout, max_attempts, datamark=datamark
    )
    if as_jsonl:
        files = transcript_files(paths)
        skipped(files)
        resolve_judge(opts)
        if as_json:
            raise CalibrantError("--json and --jsonl are alternatives: give one")
        none = _judge_streaming(files, Store(make_engine()), opts, samples)
        err.print(files.summary("transcript file"), highlight=False)  # the last line on stderr
        if none:
            raise typer.Exit(NO_VERDICT_EXIT)
        return
    note = loading_note(opts)
    found: list[FileList] = []

    def inputs(files: FileList) -> None:
        found.append(files)
        skipped(files)

    hooks = JudgeHooks(
        progress=lambda what, total: track(what, total=total, loading=note), on_inputs=inputs
    )
    options = JudgeOpOptions(
        paths=tuple(str(p) for p in paths), judge=resolve_judge(opts), samples=samples, record=False
    )
    result = judge_op(Store(make_engine()), options, hooks)
    if as_json:
        typer.echo(report_json(result.report))
    else:
        render_judge_report(Console(), result.report, options.judge[1])
    none = _no_verdict(result.judgments, err)
    err.print(found[0].summary("transcript file"), highlight=False)  # the last line on stderr
    if none:
        raise typer.Exit(NO_VERDICT_EXIT)


NO_VERDICT_EXIT = 3
"""`judge` exits 3 when no item got a verdict (every judgment failed): nothing was judged."""


def rerun_note(outcomes: Iterable[str]) -> str:
    """What a rerun does with these failed outcomes: it asks again for the calls that failed
    (provider errors, timeouts, rate limits), not for answers the model gave (unparseable,
    refusal: stored like verdicts)."""
    from ..contracts import FINAL_OUTCOMES

    kinds = set(outcomes) - {"verdict"}
    retried = sorted(kinds - FINAL_OUTCOMES)
    final = sorted(kinds & FINAL_OUTCOMES)
    said = [f"a rerun retries the {' and '.join(retried)} items"] if retried else []
    if final:
        said.append(f"{' and '.join(final)} answers are stored and not asked again")
    return "; ".join(said)


def _no_verdict(judgments: Sequence[Judgment], err: Console) -> bool:
    """True when judgments were asked for and none is a verdict, after saying so on stderr
    with each failure kind, its count and a sample message."""
    if not judgments or any(j.outcome == "verdict" for j in judgments):
        return False
    kinds: dict[str, list[Judgment]] = {}
    for j in judgments:
        kinds.setdefault(j.outcome, []).append(j)
    counted = ", ".join(f"{k} {len(js)}" for k, js in sorted(kinds.items()))
    sample = next((j.error for j in judgments if j.error), None)
    tail = f" (e.g. {' '.join(sample.split())[:200]})" if sample else ""
    err.print(
        f"calibrant: no transcript got a verdict from the judge: {counted}{tail}; "
        + rerun_note(kinds),
        highlight=False,
        markup=False,
    )
    return True


STREAM_CHUNK = 256  # files judged per round in --jsonl mode: memory is bounded by this


def _judge_streaming(files: Sequence[Path], store: Any, opts: JudgeOptions, samples: int) -> bool:
    """`judge --jsonl`: every file read and checked first, a round at a time (bad input stops
    the run before any model call, and each file's keys are remembered in the store), then judged
    a round at a time, each transcript printed as one JSON line when its round ends. True when
    no item got a verdict (said on stderr)."""
    from ..judge.batch import judge_files, read_sources
    from ..judge.config import resolve_judge
    from ..ops.judge import in_rubric_domain
    from ..reports.judgments import transcript_entry
    from .progress import track

    config, rub, policy, conc = resolve_judge(opts)
    paths = [Path(f) for f in files]
    chunks = [paths[i : i + STREAM_CHUNK] for i in range(0, len(paths), STREAM_CHUNK)]
    for chunk in chunks:
        in_rubric_domain(read_sources(chunk, store), rub)
    outcomes: dict[str, int] = {}
    failures: list[Judgment] = []  # kept only while no verdict has come
    from_cache = model_calls = judgments = 0
    with track(
        f"judgments by {config.model}", total=len(paths) * samples, loading=loading_note(opts)
    ) as bar:
        for chunk in chunks:
            run = judge_files(
                read_sources(chunk, store),
                rubric=rub,
                config=config,
                store=store,
                concurrency=conc,
                samples=samples,
                policy=policy,
                on_done=lambda j, cached: bar.advance(cached=cached),
            )
            from_cache += run.from_cache
            model_calls += run.model_calls
            for src, v, js in run.rows:
                for j in js:
                    outcomes[j.outcome] = outcomes.get(j.outcome, 0) + 1
                    judgments += 1
                    if not outcomes.get("verdict") and len(failures) < 100:
                        failures.append(j)
                typer.echo(json.dumps(transcript_entry(src, v, js), sort_keys=True))
    summary = {
        "schema_version": 1,
        "judge": {"hash": config.hash, **config.model_dump(mode="json")},
        "rubric": {"id": rub.rubric_id, "version": rub.version, "hash": rub.content_hash},
        "transcripts": len(paths),
        "judgments": judgments,
        "from_cache": from_cache,
        "model_calls": model_calls,
        "outcomes": dict(sorted(outcomes.items())),
    }
    typer.echo(json.dumps({"summary": summary}, sort_keys=True))
    return _no_verdict(failures if not outcomes.get("verdict") else [], Console(stderr=True))
