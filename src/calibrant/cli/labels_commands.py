"""Commands on the experts' labels: their agreement among themselves (`agree`), and the judge's
agreement with them on the gold set, with the release gate (`calibrate`)."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..agreement.gate_settings import GATE_DEFAULTS
from ..errors import CalibrantError
from .app import (
    SplitOpt,
    app,
    gold_split,
    loading_note,
)
from .from_store import GoldOrStoreOpt
from .judge_group import JUDGE_GROUP, judge_group
from .verdicts_options import VERDICTS_HELP, VerdictsFormatOpt

if TYPE_CHECKING:
    from ..judge.config import JudgeOptions


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
    order: Annotated[
        str | None,
        typer.Option(
            "--order",
            help="The labels from lowest to highest, comma-separated (e.g. poor,fair,good): "
            "every criterion is ordinal on that scale.",
        ),
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
    from ..files import load_rubric, read_labels
    from ..gold import read_manifest
    from ..labels import check_agree_labels, parse_order, unique_labels
    from ..reports.agree import render_agreement

    if level not in (None, "nominal", "ordinal"):
        raise CalibrantError(f"--level must be nominal or ordinal, not '{level}'")
    if order is not None and level == "nominal":
        raise CalibrantError("--order gives an ordinal scale; it cannot go with --level nominal")
    located = [x for f in labels for x in read_labels(f)]
    unique_labels(located)  # a label given twice would silently change the figures
    scale = parse_order(order) if order is not None else None
    rub = load_rubric(rubric) if rubric else None
    for warning in check_agree_labels(located, rubric=rub, order=scale, level=level):
        Console(stderr=True).print(
            f"warning: {warning}", style="yellow", highlight=False, markup=False
        )
    rows = [x.label for x in located]
    clusters = None
    if manifest is not None:
        clusters = {k: v.case for k, v in read_manifest(manifest).items()}
        for x in located:
            if x.label.item not in clusters:
                raise x.error(f"item '{x.label.item}' is not in {manifest}", field="item")
    try:
        report = rater_agreement(
            rows,
            level="ordinal" if level == "ordinal" else "nominal" if level else None,
            rubric=rub,
            seed=seed,
            n_resamples=resamples,
            clusters=clusters,
            order=scale,
        )
    except ValueError as exc:
        raise CalibrantError(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        render_agreement(Console(), report)


@app.command()
@judge_group()
def calibrate(
    gold: GoldOrStoreOpt = None,
    from_store: Annotated[
        str | None,
        typer.Option(
            "--from-store",
            help="Calibrate on a labeled workbench queue of the store instead of --gold: "
            "exported to a temporary gold folder as `calibrant gold export` writes it (its "
            "rubric unless --rubric or --judge is given).",
        ),
    ] = None,
    split: SplitOpt = "calibration",
    judge: JudgeOptions = JUDGE_GROUP,
    min_lower: Annotated[
        float, typer.Option("--min-lower", help="Gate: the judge's CI lower bound must reach this.")
    ] = GATE_DEFAULTS.min_lower,
    min_coverage: Annotated[
        float,
        typer.Option("--min-coverage", help="Gate: share of items with a usable judge label."),
    ] = GATE_DEFAULTS.min_coverage,
    min_cases: Annotated[
        int,
        typer.Option(
            "--min-cases",
            min=2,
            help="Gate: below this many cases with an item rated by the judge and an expert, "
            "UNDECIDED.",
        ),
    ] = GATE_DEFAULTS.min_cases,
    min_expert_cases: Annotated[
        int,
        typer.Option(
            "--min-expert-cases",
            min=2,
            help="Gate: below this many cases rated by two experts, UNDECIDED.",
        ),
    ] = GATE_DEFAULTS.min_expert_cases,
    min_items: Annotated[
        int,
        typer.Option(
            "--min-items",
            min=2,
            help="Gate: an extra floor in items (rated by the judge and an expert); the "
            "minimum that counts is --min-cases.",
        ),
    ] = GATE_DEFAULTS.min_items,
    margin: Annotated[
        float,
        typer.Option(
            "--margin",
            min=0.0,
            max=1.0,
            help="Gate: non-inferiority margin on kappa, judge side minus expert side.",
        ),
    ] = GATE_DEFAULTS.margin,
    no_ceiling: Annotated[
        bool,
        typer.Option(
            "--no-ceiling", help="Gate on the bar alone, without comparing to the experts."
        ),
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
    require_robustness: Annotated[
        bool,
        typer.Option(
            "--require-robustness",
            help="Gate also on the latest `calibrant probe` run of this judge version: every "
            "attack family's success rate within --attack-margin of the clean false-positive "
            "rate (no probe run: UNDECIDED).",
        ),
    ] = False,
    attack_margin: Annotated[
        float | None,
        typer.Option(
            "--attack-margin", help="Margin for --require-robustness (default: the probe run's)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder for report.html, report.json and report.md (default: "
            "reports/RUN_ID/ in the current folder).",
        ),
    ] = None,
    verdicts: Annotated[
        Path | None, typer.Option("--verdicts", help=VERDICTS_HELP, show_default=False)
    ] = None,
    verdicts_format: VerdictsFormatOpt = "auto",
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Print the whole report here (every comparison, confusion matrices, "
            "disagreements, safety, calibration pairs), not only the gate and where the "
            "report is.",
        ),
    ] = False,
) -> None:
    """The main job: judge the gold transcripts (cached) and report, per criterion, agreement
    with the experts, the experts' own agreement, and the release gate; safety apart. With
    --verdicts, the judge is one that runs elsewhere: its recorded verdicts are measured, no
    model is called. Prints the gate, warnings, where the report is, the run id and what to
    run next (the detail with --verbose). Exit 1 with --fail-on-gate unless the gate passes;
    exit 3 if no item got a verdict: then no gate and no report, one line with the cause."""
    from ..agreement.gate import GateSettings
    from ..calibration import Settings
    from ..domains import default_gold
    from ..ops.calibrate import CalibrateOptions
    from ..ops.calibrate import calibrate as ops_calibrate
    from ..ops.common import Hooks
    from ..ops.gold_export import queue_gold
    from ..paths import check_output_path, write_all_atomic
    from ..reports.calibration import (
        calibration_json,
        calibration_markdown,
        render_calibration,
        render_calibration_brief,
    )
    from ..reports.folder import check_report_folder, print_next, write_calibration_folder
    from ..reports.html import calibration_html
    from ..store import Store
    from .progress import track
    from .verdicts_options import check_format, load_rubric_for_verdicts

    if gold is not None and from_store is not None:
        raise CalibrantError("--gold and --from-store are two sources of gold: give one")
    if from_store is None:
        gold = gold or default_gold(judge.domain)  # the installed pack's, wherever the command runs
    gold_subset = gold_split(split)
    if attack_margin is not None and not 0 <= attack_margin <= 1:
        raise CalibrantError(f"--attack-margin must be between 0 and 1, not {attack_margin}")
    for option, path in (("--markdown", markdown), ("--html", html)):
        if path is not None:
            check_output_path(path, option=option)
    check_report_folder(out)  # report folder (reports/<run-id>/ or --out), checked before work
    settings = Settings(
        seed=seed,
        n_resamples=resamples,
        gate=GateSettings(
            min_lower=min_lower,
            min_coverage=min_coverage,
            use_ceiling=not no_ceiling,
            min_items=min_items,
            min_cases=min_cases,
            min_expert_cases=min_expert_cases,
            margin=margin,
        ),
    )
    recorded, note = None, None
    if verdicts is not None:
        named = (("--model", judge.model), ("--api-base", judge.api_base), ("--judge", judge.judge))
        given = [n for n, v in named if v]
        if given:
            raise CalibrantError(
                f"--verdicts measures a judge that runs elsewhere: {', '.join(given)} names a "
                "judge calibrant would call; give one or the other"
            )
        if from_store is not None:
            raise CalibrantError(
                "--verdicts reads its items from a gold folder: export the queue with "
                "`calibrant gold export` and give it as --gold"
            )
        from ..calibration.recorded import load_recorded

        check_format(verdicts_format)
        recorded = load_recorded(  # checked before the store opens: a bad file writes nothing
            verdicts,
            rubric=load_rubric_for_verdicts(judge.rubric, judge.domain),
            gold=gold or default_gold(judge.domain),
            fmt=verdicts_format,
        )
    with Store.open() as store, ExitStack() as stack:
        source = None
        if from_store is not None:
            exported = queue_gold(store.engine, from_store, stack, option="--from-store")
            gold, source = exported.folder, exported.source
            if judge.rubric is None and judge.judge is None:
                judge = judge.model_copy(update={"rubric": exported.rubric})
        options = judge
        if recorded is None:
            note = loading_note(options)
        report = ops_calibrate(
            store,
            CalibrateOptions(
                gold or default_gold(judge.domain),
                split=gold_subset,
                judge=options,
                settings=settings,
                require_robustness=require_robustness,
                attack_margin=attack_margin,
                source=source,
                recorded=recorded,
            ),
            Hooks(progress=lambda what, total: track(what, total=total, loading=note)),
        ).report
    err = Console(stderr=True)
    if not report["judge_outcomes"].get("verdict"):  # nothing measured is not a verdict
        if as_json:  # what a script reads does not change; the exit code says it
            typer.echo(calibration_json(report))
        err.print(nothing_measured(report), highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(3)
    outputs = {}
    if markdown is not None:
        outputs[markdown] = calibration_markdown(report)
    if html is not None:
        outputs[html] = calibration_html(report)
    write_all_atomic(outputs)  # all reports or none
    folder = write_calibration_folder(report, out)  # the report folder: html, json, md
    if as_json:
        typer.echo(calibration_json(report))
    elif verbose:
        render_calibration(Console(), report, folder=str(folder))
    else:
        render_calibration_brief(Console(), report, folder=str(folder))
    for path in outputs:
        err.print(f"wrote {path}", highlight=False, soft_wrap=True)
    if as_json:
        err.print(f"wrote {folder}", highlight=False, soft_wrap=True)
    failures = report["run"].get("failures", {})
    for kind, f in failures.items():  # in brief, one line each (the report has them whole)
        line = f"judge {kind}: {f['count']} item(s)"
        if f.get("sample"):
            sample = str(f["sample"])
            room = 80 - len(line) - len(" — e.g. ")
            if not verbose and len(sample) > room:
                sample = sample[: max(room - 3, 20)] + "..."
            line += f" — e.g. {sample}"
        err.print(line, highlight=False, markup=False, soft_wrap=True)
    Console(stderr=as_json).print(f"Run: {report['run_id']}", highlight=False, markup=False)
    print_next(report, folder, as_json=as_json)  # the "Next:" lines, last
    if fail_on_gate and report["gate"]["judge"] != "PASS":
        raise typer.Exit(1)


def nothing_measured(report: dict[str, Any]) -> str:
    """The one line `calibrate` prints when no gold item got a verdict: how many items, how
    they failed, and the first failure's message (the cause)."""
    failures = (report.get("run") or {}).get("failures") or {}
    counts = ", ".join(f"{kind} {f['count']}" for kind, f in failures.items())
    cause = next((f["sample"] for f in failures.values() if f.get("sample")), None)
    return (
        f"calibrant: no gold item got a verdict from the judge ({report['n_items']} items"
        + (f": {counts}" if counts else "")
        + "); nothing was measured, so no gate and no report"
        + (f"; first error: {cause}" if cause else "")
    )
