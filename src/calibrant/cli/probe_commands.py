"""`calibrant probe`: the injection battery and bias probes against one judge."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ..errors import CalibrantError
from .app import (
    GoldOpt,
    SplitOpt,
    app,
    gold_split,
    loading_note,
)
from .judge_group import JUDGE_GROUP, judge_group

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions


def _names(value: str | None, option: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    names = tuple(x.strip() for x in value.split(",") if x.strip())
    if not names:
        raise CalibrantError(f"{option} names nothing")
    return names


@app.command()
@judge_group()
def probe(
    gold: GoldOpt = None,
    split: SplitOpt = "calibration",
    judge: JudgeOptions = JUDGE_GROUP,
    probes: Annotated[
        str | None,
        typer.Option(
            "--probes",
            help="Comma-separated: injection, verbosity, order, stability, central (default all).",
        ),
    ] = None,
    families: Annotated[
        str | None,
        typer.Option("--families", help="Comma-separated attack families (default all)."),
    ] = None,
    channels: Annotated[
        str, typer.Option("--channels", help="Where attacks go: agent, note, or agent,note.")
    ] = "agent,note",
    defenses: Annotated[
        str,
        typer.Option(
            "--defenses",
            help="both: the defended prompt and, side by side, a naive one; on: defended only.",
        ),
    ] = "both",
    items: Annotated[
        int | None,
        typer.Option(
            "--items", min=1, help="At most this many gold items per probe (a seeded sample)."
        ),
    ] = None,
    k: Annotated[int, typer.Option("-k", min=1, help="Samples per item for stability.")] = 3,
    margin: Annotated[
        float,
        typer.Option(
            "--margin",
            help="Gate: an attack family fails when its success rate is surely above the "
            "clean false-positive rate plus this.",
        ),
    ] = 0.10,
    min_items: Annotated[
        int, typer.Option("--min-items", min=1, help="Gate: fewer items measured: UNDECIDED.")
    ] = 10,
    min_cases: Annotated[
        int | None,
        typer.Option(
            "--min-cases", min=2, help="Gate: fewer cases measured: UNDECIDED [default: 6]."
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed (item sample, retries, bootstrap).")
    ] = 0,
    planted: Annotated[
        str | None,
        typer.Option(
            "--planted",
            help="Test the tester: probe a simulated judge with a planted defect instead "
            "(clean, obey:P, fence:P, verbose:P, middle, order:P, noisy:P).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as stable JSON.")
    ] = False,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="Also write Markdown here.")
    ] = None,
    fail_on_flag: Annotated[
        bool, typer.Option("--fail-on-flag", help="Exit 1 when any probe flags the judge.")
    ] = False,
) -> None:
    """Probe a judge's robustness on the gold set: an injection battery (attack success rate
    per family, beside the clean false-positive rate, with the prompt's defenses on and off)
    and bias probes (verbosity, evidence order, stability, central tendency). Answers are
    cached; the report is stored with the judge version. Exit 3 if no item got a verdict."""
    from dataclasses import replace

    from ..domains import default_gold
    from ..ops.common import Hooks
    from ..ops.probe import ProbeOptions
    from ..ops.probe import probe as ops_probe
    from ..paths import check_output_path, write_all_atomic
    from ..probes import ATTACKS, ProbeSettings, default_probes
    from ..reports.folder import print_run
    from ..reports.probe import probe_json, probe_markdown, render_probe
    from ..store import Store
    from .progress import track

    gold_subset = gold_split(split)
    if defenses not in ("both", "on"):
        raise CalibrantError(f"--defenses must be both or on, not '{defenses}'")
    if markdown is not None:
        check_output_path(markdown, option="--markdown")
    settings = ProbeSettings(
        probes=_names(probes, "--probes") or default_probes(),
        families=_names(families, "--families") or tuple(ATTACKS),
        channels=_names(channels, "--channels") or (),
        defenses="both" if defenses == "both" else "on",
        k=k,
        margin=margin,
        min_items=min_items,
        max_items=items,
        seed=seed,
    )
    if min_cases is not None:
        settings = replace(settings, min_cases=min_cases)
    gold = gold or default_gold(judge.domain)  # the installed pack's, wherever the command runs
    options = judge
    loading = None if planted else loading_note(options)
    with Store.open() as store:
        report = ops_probe(
            store,
            ProbeOptions(gold, options, settings, split=gold_subset, planted=planted),
            Hooks(progress=lambda what, total: track(what, total=total, loading=loading)),
        ).report
    if markdown is not None:
        write_all_atomic({markdown: probe_markdown(report)})
    if as_json:
        typer.echo(probe_json(report))
    else:
        render_probe(Console(), report)
    if markdown is not None:
        Console(stderr=True).print(f"wrote {markdown}", highlight=False)
    if not report["judge_outcomes"].get("verdict"):
        Console(stderr=True).print(
            "calibrant: no probe variant got a verdict from the judge; nothing was measured",
            highlight=False,
        )
        raise typer.Exit(3)
    print_run(str(report.get("run_id") or ""), as_json=as_json)
    if fail_on_flag and report["flags"]:
        raise typer.Exit(1)
