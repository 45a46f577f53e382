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
    from ..ops.judge import JudgeOpOptions, JudgeStreamHooks, judge_stream
    from ..ops.judge import judge as judge_op
    from ..reports.judgments import render_judge_report, report_json
    from ..store import Store
    from .progress import track

    err = Console(stderr=True)

    def skipped(files: FileList) -> None:
        for s in files.skipped:
            err.print(f"skipped {s}", highlight=False, markup=False)

    opts = judge_options(
        model, api_base, rubric, judge_name, concurrency, timeout, max_attempts, datamark=datamark
    )
    if as_jsonl and as_json:
        raise CalibrantError("--json and --jsonl are alternatives: give one")
    note = loading_note(opts)
    found: list[FileList] = []

    def inputs(files: FileList) -> None:
        found.append(files)
        skipped(files)

    def line(entry: dict[str, Any]) -> None:
        typer.echo(json.dumps(entry, sort_keys=True))

    hooks = JudgeStreamHooks(
        progress=lambda what, total: track(what, total=total, loading=note),
        on_inputs=inputs,
        on_transcript=line,
    )
    options = JudgeOpOptions(
        paths=tuple(str(p) for p in paths), judge=resolve_judge(opts), samples=samples, record=False
    )
    if as_jsonl:
        with Store.open() as store:
            streamed = judge_stream(store, options, hooks)
        line({"summary": streamed.summary()})
        none = _no_verdict(list(streamed.failures), err)
        err.print(found[0].summary("transcript file"), highlight=False)  # the last line on stderr
        if none:
            raise typer.Exit(NO_VERDICT_EXIT)
        return
    with Store.open() as store:
        result = judge_op(store, options, hooks)
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
