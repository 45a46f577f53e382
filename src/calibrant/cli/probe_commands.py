"""`calibrant probe`: the injection battery and bias probes against one judge."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.console import Console

from .app import (
    GoldOpt,
    SplitOpt,
    app,
    gold_split,
    loading_note,
)
from .judge_group import JUDGE_GROUP, judge_group
from .option_group import GROUP
from .probe_options import FailOnFlagOpt, PlantedOpt, ProbeJsonOpt, ProbeMarkdownOpt, probe_group

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions
    from ..probes import ProbeSettings


@app.command()
@judge_group()
@probe_group
def probe(
    gold: GoldOpt = None,
    split: SplitOpt = "calibration",
    judge: JudgeOptions = JUDGE_GROUP,
    settings: ProbeSettings = GROUP,
    planted: PlantedOpt = None,
    as_json: ProbeJsonOpt = False,
    markdown: ProbeMarkdownOpt = None,
    fail_on_flag: FailOnFlagOpt = False,
) -> None:
    """Probe a judge's robustness on the gold set: an injection battery (attack success rate
    per family, beside the clean false-positive rate, with the prompt's defenses on and off)
    and bias probes (verbosity, evidence order, stability, central tendency). Answers are
    cached; the report is stored with the judge version. Exit 3 if no item got a verdict."""
    from ..domains import default_gold
    from ..ops.common import Hooks
    from ..ops.probe import ProbeOptions
    from ..ops.probe import probe as ops_probe
    from ..paths import check_output_path, write_all_atomic
    from ..reports.folder import print_run
    from ..reports.probe import probe_json, probe_markdown, render_probe
    from ..store import Store
    from .progress import track

    gold_subset = gold_split(split)
    if markdown is not None:
        check_output_path(markdown, option="--markdown")
    gold = gold or default_gold(judge.domain)  # the installed pack's, wherever the command runs
    loading = None if planted else loading_note(judge)
    with Store.open() as store:
        result = ops_probe(
            store,
            ProbeOptions(gold, judge, settings, split=gold_subset, planted=planted),
            Hooks(progress=lambda what, total: track(what, total=total, loading=loading)),
        )
    report = result.typed()  # the writers and the renderer read the model
    if markdown is not None:
        write_all_atomic({markdown: probe_markdown(report)})
    if as_json:
        typer.echo(probe_json(report))
    else:
        render_probe(Console(), report)
    if markdown is not None:
        Console(stderr=True).print(f"wrote {markdown}", highlight=False)
    if not result.report.judge_outcomes.get("verdict"):
        Console(stderr=True).print(
            "calibrant: no probe variant got a verdict from the judge; nothing was measured",
            highlight=False,
        )
        raise typer.Exit(3)
    print_run(result.report.run_id or "", as_json=as_json)
    if fail_on_flag and result.report.flags:
        raise typer.Exit(1)
