"""Commands that put the judge to work on transcripts (`judge`), and the labeling guide for the
experts from the rubric it reads (`rubric guide`)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..errors import CalibrantError
from .app import (
    DomainOpt,
    GoldOpt,
    JudgeOpt,
    RubricOpt,
    SplitOpt,
    app,
    gold_split,
    judge_options,
    judges_app,
    loading_note,
    rubric_app,
)
from .judge_group import JUDGE_GROUP, judge_group
from .rerun import rerun_note

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


@judges_app.command("fit-prior")
def judges_fit_prior(
    out: Annotated[str, typer.Option("--out", help="The saved judge to write: judges/NAME.yaml.")],
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Transcript files or folders (default: the gold split's)."),
    ] = None,
    gold_dir: GoldOpt = None,
    split: SplitOpt = "calibration",
    judge_name: JudgeOpt = None,
    rubric: RubricOpt = None,
    domain: DomainOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Replace judges/NAME.yaml.")] = False,
) -> None:
    """Fit the embedded judge's label prior on transcripts (a gold split's by default; nobody's
    labels are read) and save a judge that picks each label rebalanced by it
    (`label_scoring: fitted`)."""
    from ..ops.common import Hooks
    from ..ops.fit_prior import FitPriorRequest, fit_prior
    from .progress import duration, track

    request = FitPriorRequest(
        out, judge_options(rubric=rubric, judge_name=judge_name, domain=domain),
        paths=tuple(paths or ()), gold=gold_dir, split=gold_split(split), force=force,
    )  # fmt: skip
    loading = "loading the embedded model"
    hooks = Hooks(progress=lambda what, total: track(what, total=total, loading=loading))
    fitted = fit_prior(request, hooks)
    prior = fitted.prior
    Console(stderr=True).print(
        f"wrote {fitted.target}: label prior fitted on {prior.items} items from {prior.cases} "
        f"cases in {duration(fitted.seconds)}",
        highlight=False,
    )
    for criterion, labels in prior.labels.items():
        shares = ", ".join(f"{k} {math.exp(v):.2f}" for k, v in labels.items())
        typer.echo(f"{criterion}: {shares}")


DatamarkOpt = Annotated[
    bool | None,
    typer.Option("--datamark/--no-datamark", help="Datamark the untrusted text (spotlighting)."),
]
JudgeJsonlOpt = Annotated[
    bool,
    typer.Option(
        "--jsonl",
        help="Print one JSON line per transcript as it is judged, then a summary line "
        "(memory flat in the number of transcripts).",
    ),
]


@app.command()
@judge_group(into="given")
def judge(
    paths: Annotated[list[Path], typer.Argument(help="Transcript JSON files or folders.")],
    given: JudgeOptions = JUDGE_GROUP,
    samples: Annotated[int, typer.Option("--samples", min=1, help="Judgments per transcript.")] = 1,
    datamark: DatamarkOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
    as_jsonl: JudgeJsonlOpt = False,
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
    opts = given.model_copy(update={"datamark": datamark})
    if as_jsonl and as_json:
        raise CalibrantError("--json and --jsonl are alternatives: give one")
    note = loading_note(opts)
    found: list[FileList] = []

    def inputs(files: FileList) -> None:
        found.append(files)
        for s in files.skipped:
            err.print(f"skipped {s}", highlight=False, markup=False)

    def line(entry: dict[str, Any]) -> None:
        typer.echo(json.dumps(entry, sort_keys=True))

    hooks = JudgeStreamHooks(
        progress=lambda what, total: track(what, total=total, loading=note),
        on_inputs=inputs,
        on_transcript=lambda entry: line(entry.json_data()),
    )
    options = JudgeOpOptions(
        paths=tuple(str(p) for p in paths), judge=resolve_judge(opts), samples=samples, record=False
    )
    with Store.open() as store:
        if as_jsonl:
            streamed = judge_stream(store, options, hooks)
        else:
            result = judge_op(store, options, hooks)
    if as_jsonl:
        line({"summary": streamed.summary().json_data()})
    elif as_json:
        typer.echo(report_json(result.data))
    else:
        render_judge_report(Console(), result.typed(), options.judge[1])
    none = _no_verdict(list(streamed.failures) if as_jsonl else result.judgments, err)
    err.print(found[0].summary("transcript file"), highlight=False)  # the last line on stderr
    if none:
        raise typer.Exit(NO_VERDICT_EXIT)


NO_VERDICT_EXIT = 3
"""`judge` exits 3 when no item got a verdict (every judgment failed): nothing was judged."""


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
