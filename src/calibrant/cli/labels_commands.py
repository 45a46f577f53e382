"""Commands on the experts' labels: their agreement among themselves (`agree`), and the judge's
agreement with them on the gold set, with the release gate (`calibrate`)."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ..agreement.gate_settings import GateSettings
from .app import (
    SplitOpt,
    app,
    gold_split,
    loading_note,
)
from .calibrate_options import (
    AttackMarginOpt,
    BootstrapResamplesOpt,
    BootstrapSeedOpt,
    CalFailOnGateOpt,
    CalHtmlOpt,
    CalJsonOpt,
    CalMarkdownOpt,
    CalOutOpt,
    CalVerboseOpt,
    CalVerdictsOpt,
    FromStoreOpt,
    RequireRobustnessOpt,
    gate_group,
)
from .from_store import GoldOrStoreOpt
from .judge_group import JUDGE_GROUP, judge_group
from .option_group import GROUP
from .verdicts_options import VerdictsFormatOpt

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions


LevelOpt = Annotated[
    str | None,
    typer.Option(
        "--level",
        help="nominal or ordinal, for every criterion (default: from --rubric, else nominal).",
    ),
]
AgreeRubricOpt = Annotated[
    Path | None,
    typer.Option("--rubric", help="Rubric giving each criterion's scale and level."),
]
ManifestOpt = Annotated[
    Path | None, typer.Option("--manifest", help="Gold manifest: bootstrap clustered by case.")
]
OrderOpt = Annotated[
    str | None,
    typer.Option(
        "--order",
        help="The labels from lowest to highest, comma-separated (e.g. poor,fair,good): "
        "every criterion is ordinal on that scale.",
    ),
]


@app.command()
def agree(
    labels: Annotated[list[Path], typer.Argument(help="Label files (JSONL or CSV), any raters.")],
    level: LevelOpt = None,
    rubric: AgreeRubricOpt = None,
    manifest: ManifestOpt = None,
    order: OrderOpt = None,
    seed: BootstrapSeedOpt = 0,
    resamples: BootstrapResamplesOpt = 2000,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Agreement among raters only (no judge): Cohen's and weighted kappa per pair with CIs,
    Fleiss' kappa and Krippendorff's alpha per criterion."""
    from ..ops.agree import AgreeRequest
    from ..ops.agree import agree as agree_op
    from ..reports.agree import render_agreement

    def warn(warning: str) -> None:
        Console(stderr=True).print(
            f"warning: {warning}", style="yellow", highlight=False, markup=False
        )

    request = AgreeRequest(labels, level, rubric, manifest, order, seed, resamples)
    report = agree_op(request, warn)
    if as_json:
        typer.echo(json.dumps(report.json_data(), indent=2, sort_keys=True, ensure_ascii=False))
    else:
        render_agreement(Console(), report)


@app.command()
@gate_group
@judge_group()
def calibrate(
    gold: GoldOrStoreOpt = None,
    from_store: FromStoreOpt = None,
    split: SplitOpt = "calibration",
    judge: JudgeOptions = JUDGE_GROUP,
    gate: GateSettings = GROUP,
    seed: BootstrapSeedOpt = 0,
    resamples: BootstrapResamplesOpt = 2000,
    as_json: CalJsonOpt = False,
    markdown: CalMarkdownOpt = None,
    html: CalHtmlOpt = None,
    fail_on_gate: CalFailOnGateOpt = False,
    require_robustness: RequireRobustnessOpt = False,
    attack_margin: AttackMarginOpt = None,
    out: CalOutOpt = None,
    verdicts: CalVerdictsOpt = None,
    verdicts_format: VerdictsFormatOpt = "auto",
    verbose: CalVerboseOpt = False,
) -> None:
    """The main job: judge the gold transcripts (cached) and report, per criterion, agreement
    with the experts, the experts' own agreement, and the release gate; safety apart. With
    --verdicts, the judge is one that runs elsewhere: its recorded verdicts are measured, no
    model is called. Prints the gate, warnings, where the report is, the run id and what to
    run next (the detail with --verbose). Exit 1 with --fail-on-gate unless the gate passes;
    exit 3 if no item got a verdict: then no gate and no report, one line with the cause."""
    from ..calibration import Settings
    from ..ops.calibrate import CalibrateRequest, calibrate_options, check_request, write_outputs
    from ..ops.calibrate import calibrate as ops_calibrate
    from ..ops.common import Hooks
    from ..reports.calibrate_run import nothing_measured, render_calibrate_run
    from ..reports.calibration import calibration_json
    from ..store import Store
    from .progress import track

    settings = Settings(seed=seed, n_resamples=resamples, gate=gate)
    request = CalibrateRequest(
        gold, from_store, gold_split(split), judge, settings,
        require_robustness=require_robustness, attack_margin=attack_margin, verdicts=verdicts,
        verdicts_format=verdicts_format, markdown=markdown, html=html, out=out,
    )  # fmt: skip
    recorded = check_request(request)  # a bad request writes nothing, opens no store
    with Store.open() as store, ExitStack() as stack:
        options = calibrate_options(store, request, stack, recorded)
        note = loading_note(options.judge or judge) if recorded is None else None
        hooks = Hooks(progress=lambda what, total: track(what, total=total, loading=note))
        result = ops_calibrate(store, options, hooks)
    report = result.data  # the writers and the renderer read the JSON data
    if not result.report.judge_outcomes.get("verdict"):  # nothing measured is not a verdict
        if as_json:  # what a script reads does not change; the exit code says it
            typer.echo(calibration_json(report))
        Console(stderr=True).print(
            nothing_measured(report), highlight=False, markup=False, soft_wrap=True
        )
        raise typer.Exit(3)
    folder, written = write_outputs(report, request)  # all or none, then the report folder
    if as_json:
        typer.echo(calibration_json(report))
    render_calibrate_run(Console(), report, folder, written, as_json=as_json, verbose=verbose)
    if fail_on_gate and result.report.gate.judge != "PASS":
        raise typer.Exit(1)
