"""Commands that measure saved judge versions on the gold set: two versions against each other
(`compare`), and one configuration's samples against one another (`stability`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..reports.folder import print_run
from .app import (
    DomainOpt,
    GoldOpt,
    SplitOpt,
    app,
    gold_split,
    judge_options,
)
from .judge_group import JUDGE_GROUP, judge_group

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions


def _resolve(name: str) -> tuple[Any, Any, Any, int]:
    from ..judge.config import resolve_judge

    return resolve_judge(judge_options(judge_name=name))


RECORDED_SUFFIXES = (".csv", ".jsonl", ".json", ".eval")


def _is_file(name: str) -> bool:
    """A judge given as a file of recorded verdicts, not a saved judge's name."""
    return Path(name).suffix.lower() in RECORDED_SUFFIXES


def _judges(
    a: str, b: str, rubric: Path | None, gold: Path, domain: str | None = None
) -> tuple[Any, Any]:
    """Each side resolved (a saved judge) or read and checked (a verdicts file, on the rubric of
    the saved judge beside it, else --rubric), before the store opens."""
    from ..calibration.recorded import load_recorded
    from ..ops.compare import verdicts_rubric
    from .verdicts_options import load_rubric_for_verdicts

    live = {n: _resolve(n) for n in (a, b) if not _is_file(n)}
    given = None if rubric is None else (lambda: load_rubric_for_verdicts(rubric))
    rub = verdicts_rubric(list(live.values()), given, option="--rubric")
    rub = rub or load_rubric_for_verdicts(None, domain)  # two files, no --rubric: the pack's
    return tuple(  # type: ignore[return-value]
        live[n] if n in live else load_recorded(Path(n), rubric=rub, gold=gold) for n in (a, b)
    )


JudgeAArg = Annotated[
    str,
    typer.Argument(
        help="Judge A, the baseline: a saved judge (judges/A.yaml) or a file of its recorded "
        "verdicts (.csv, .jsonl, Inspect .eval/.json, promptfoo .json)."
    ),
]
JudgeBArg = Annotated[str, typer.Argument(help="Judge B, the candidate: the same kinds.")]
ResamplesOpt = Annotated[int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")]
CompareMinCasesOpt = Annotated[
    int | None,
    typer.Option("--min-cases", min=2, help="No B better/worse on fewer cases [default: 6]."),
]
FailIfWorseOpt = Annotated[
    bool, typer.Option("--fail-if-worse", help="Exit 1 when B is worse on any criterion.")
]
CompareRubricOpt = Annotated[
    Path | None,
    typer.Option(
        "--rubric",
        help="The rubric of two verdicts files (default: the installed pack's rubric).",
    ),
]


@app.command("compare")
def compare_command(
    judge_a: JudgeAArg,
    judge_b: JudgeBArg,
    gold: GoldOpt = None,
    split: SplitOpt = "calibration",
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    resamples: ResamplesOpt = 2000,
    min_cases: CompareMinCasesOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
    fail_if_worse: FailIfWorseOpt = False,
    rubric: CompareRubricOpt = None,
    domain: DomainOpt = None,
) -> None:
    """Compare two judge versions on the same gold items: per criterion kappa of A and B, a
    paired interval of the difference over whole cases, an exact McNemar test, the flipped
    items (regressions first) and a decision taken over all criteria at once (Holm). A judge
    that runs elsewhere is given as the file of its recorded verdicts. Exit 3 when a judge got
    no verdict on any gold item: then no decision, one line with the cause."""
    from ..domains import default_gold
    from ..ops.common import Hooks
    from ..ops.compare import CompareOptions, compare, side_name
    from ..reports.compare_judges import render_judge_comparison, unmeasured_line
    from ..store import Store
    from .progress import track

    gold_split(split)  # a bad --split is refused before anything is read
    gold = gold or default_gold(domain)
    side_a, side_b = _judges(judge_a, judge_b, rubric, gold, domain)
    options = CompareOptions(
        name_a=side_name(judge_a, side_a),
        name_b=side_name(judge_b, side_b),
        judge_a=side_a,
        judge_b=side_b,
        gold=gold,
        split=split,
        seed=seed,
        resamples=resamples,
        min_cases=min_cases,
    )
    with Store.open() as store:
        hooks = Hooks(progress=lambda what, total: track(what, total=total))
        result = compare(store, options, hooks)
    report = result.typed()
    if as_json:  # what a script reads is the same whether or not anything was measured
        typer.echo(json.dumps(result.data, indent=2, sort_keys=True, ensure_ascii=False))
    if result.unmeasured:  # nothing measured is not a verdict: no decision from nothing
        line = unmeasured_line(report, *result.unmeasured[0])
        Console(stderr=True).print(line, highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(3)
    if not as_json:
        render_judge_comparison(Console(), report, judge_a, judge_b)
    print_run(result.run_id, as_json=as_json)
    if fail_if_worse and result.report.overall == "B worse":
        raise typer.Exit(1)


@app.command("stability")
@judge_group("model", "api_base", "rubric", "domain", "judge_name", "concurrency")
def stability_command(
    samples: Annotated[
        int, typer.Option("--samples", "-k", min=2, help="Samples per item (k >= 2).")
    ] = 5,
    temperature: Annotated[
        float | None,
        typer.Option(
            "--temperature", min=0.0, help="Sample at this temperature (default: the judge's)."
        ),
    ] = None,
    gold: GoldOpt = None,
    split: SplitOpt = "calibration",
    judge: JudgeOptions = JUDGE_GROUP,
    min_self_agreement: Annotated[
        float,
        typer.Option("--min-self-agreement", min=0.0, max=1.0, help="Flag below this lower bound."),
    ] = 0.8,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Judge stability: sample one judge configuration k times on the gold items and measure
    how much its samples agree with one another, per criterion, with a 95% interval."""
    from ..domains import default_gold
    from ..ops.common import Hooks
    from ..ops.stability import StabilityOptions, stability
    from ..store import Store
    from .progress import track

    gold_split(split)
    options = StabilityOptions(
        gold=gold or default_gold(judge.domain),
        judge=judge.model_copy(update={"temperature": temperature}),
        split=split,
        samples=samples,
        seed=seed,
        min_self_agreement=min_self_agreement,
    )
    with Store.open() as store:
        hooks = Hooks(progress=lambda what, total: track(what, total=total))
        result = stability(store, options, hooks)
    if as_json:
        typer.echo(json.dumps(result.data, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        from ..reports.stability import render_stability

        render_stability(Console(), result.typed())
    print_run(result.run_id, as_json=as_json)
