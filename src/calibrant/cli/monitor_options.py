"""`monitor`'s options, each named once here so the command's signature is one line per
option."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "AlphaOpt",
    "AnchorScoringsOpt",
    "AnchorsOpt",
    "DriftJudgeOpt",
    "DriftVerdictsOpt",
    "FailOnDriftOpt",
    "MinAnchorCasesOpt",
    "MonitorHtmlOpt",
    "MonitorJsonOpt",
    "MonitorQueueOpt",
    "MonitorResamplesOpt",
    "MonitorRubricOpt",
    "MonitorSeedOpt",
    "PerWindowOpt",
    "ReferenceWindowsOpt",
    "WindowOpt",
]

WindowOpt = Annotated[
    str, typer.Option("--window", help="day, week or month (of the score runs' times).")
]
DriftJudgeOpt = Annotated[
    str | None,
    typer.Option(
        "--judge",
        help="The judge: a saved judge's name (judges/NAME.yaml) or a judge version (its "
        "hash or a prefix). Default: the one judge version audited.",
    ),
]
AnchorsOpt = Annotated[
    Path | None,
    typer.Option(
        "--anchors",
        help="The calibration's gold folder: re-score a draw of its cases with the judge "
        "for each window not yet anchored (needs --judge NAME), so the monitor can tell a "
        "changed judge from a changed product. With --verdicts: the file's rows on its "
        "items are the anchors, re-judged elsewhere.",
    ),
]
PerWindowOpt = Annotated[int, typer.Option("--per-window", help="Anchor cases drawn per window.")]
AnchorScoringsOpt = Annotated[
    int,
    typer.Option(
        "--anchor-scorings",
        help="Times the judge scores the whole anchor set at release (the calibration's "
        "scoring and more): the anchors' release kappa carries its run-to-run variation.",
    ),
]
MinAnchorCasesOpt = Annotated[
    int,
    typer.Option(
        "--min-anchor-cases",
        help="The smallest anchor set (cases) the judge-or-product rule runs on; below it "
        "the rule is undecided and a label shift stays shift_unexplained.",
    ),
]
ReferenceWindowsOpt = Annotated[
    int,
    typer.Option(
        "--reference-windows",
        help="The first windows of traffic the label-shift rule compares later ones with.",
    ),
]
AlphaOpt = Annotated[
    float, typer.Option("--alpha", help="Each rule's false-alarm bound over its life.")
]
MonitorSeedOpt = Annotated[int, typer.Option("--seed", help="Anchor draws and bootstrap seed.")]
MonitorResamplesOpt = Annotated[
    int, typer.Option("--resamples", min=100, help="Bootstrap resamples (kappa CIs).")
]
FailOnDriftOpt = Annotated[
    bool, typer.Option("--fail-on-drift", help="Exit 1 when an alarm is raised.")
]
MonitorHtmlOpt = Annotated[
    Path | None, typer.Option("--html", help="Write the page with the time-series plot.")
]
MonitorJsonOpt = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]
DriftVerdictsOpt = Annotated[
    Path | None,
    typer.Option(
        "--verdicts",
        help="A judge that runs elsewhere: its recorded verdicts (as for `calibrate "
        "--verdicts`, each row with judged_at, the time it answered) take the place of the "
        "store's judgments; audited items are the file's items the workbench holds, "
        "anchors (with --anchors) the file's rows on the gold folder's items.",
        show_default=False,
    ),
]
MonitorRubricOpt = Annotated[
    Path | None,
    typer.Option("--rubric", help="With --verdicts: the rubric the verdicts are on."),
]
MonitorQueueOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--queue",
        help="With --verdicts: audited items only from this workbench queue (repeatable; "
        "default any queue).",
    ),
]
