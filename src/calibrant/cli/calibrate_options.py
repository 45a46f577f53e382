"""`calibrate`'s options: the gate's thresholds as one option group (the command receives a
`GateSettings`), and the command's other options, each named once here so the command's
signature is one line per option."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..agreement.gate_settings import GATE_DEFAULTS, GateSettings
from .option_group import option_group
from .verdicts_options import VERDICTS_HELP

__all__ = [
    "AttackMarginOpt",
    "CalFailOnGateOpt",
    "CalHtmlOpt",
    "CalJsonOpt",
    "CalMarkdownOpt",
    "CalOutOpt",
    "BootstrapResamplesOpt",
    "BootstrapSeedOpt",
    "CalVerboseOpt",
    "CalVerdictsOpt",
    "FromStoreOpt",
    "RequireRobustnessOpt",
    "gate_group",
]

MinLowerOpt = Annotated[
    float, typer.Option("--min-lower", help="Gate: the judge's CI lower bound must reach this.")
]
MinCoverageOpt = Annotated[
    float,
    typer.Option("--min-coverage", help="Gate: share of items with a usable judge label."),
]
MinCasesOpt = Annotated[
    int,
    typer.Option(
        "--min-cases",
        min=2,
        help="Gate: below this many cases with an item rated by the judge and an expert, "
        "UNDECIDED.",
    ),
]
MinExpertCasesOpt = Annotated[
    int,
    typer.Option(
        "--min-expert-cases",
        min=2,
        help="Gate: below this many cases rated by two experts, UNDECIDED.",
    ),
]
MinItemsOpt = Annotated[
    int,
    typer.Option(
        "--min-items",
        min=2,
        help="Gate: an extra floor in items (rated by the judge and an expert); the "
        "minimum that counts is --min-cases.",
    ),
]
MarginOpt = Annotated[
    float,
    typer.Option(
        "--margin",
        min=0.0,
        max=1.0,
        help="Gate: non-inferiority margin on kappa, judge side minus expert side.",
    ),
]
NoCeilingOpt = Annotated[
    bool,
    typer.Option("--no-ceiling", help="Gate on the bar alone, without comparing to the experts."),
]


def _gate(
    *,
    min_lower: float,
    min_coverage: float,
    min_cases: int,
    min_expert_cases: int,
    min_items: int,
    margin: float,
    no_ceiling: bool,
) -> GateSettings:
    return GateSettings(
        min_lower=min_lower,
        min_coverage=min_coverage,
        use_ceiling=not no_ceiling,
        min_items=min_items,
        min_cases=min_cases,
        min_expert_cases=min_expert_cases,
        margin=margin,
    )


gate_group = option_group(
    {
        "min_lower": (MinLowerOpt, GATE_DEFAULTS.min_lower),
        "min_coverage": (MinCoverageOpt, GATE_DEFAULTS.min_coverage),
        "min_cases": (MinCasesOpt, GATE_DEFAULTS.min_cases),
        "min_expert_cases": (MinExpertCasesOpt, GATE_DEFAULTS.min_expert_cases),
        "min_items": (MinItemsOpt, GATE_DEFAULTS.min_items),
        "margin": (MarginOpt, GATE_DEFAULTS.margin),
        "no_ceiling": (NoCeilingOpt, False),
    },
    _gate,
    into="gate",
)
"""The gate's thresholds, `--min-lower` to `--no-ceiling`, received as one `GateSettings`."""

FromStoreOpt = Annotated[
    str | None,
    typer.Option(
        "--from-store",
        help="Calibrate on a labeled workbench queue of the store instead of --gold: "
        "exported to a temporary gold folder as `calibrant gold export` writes it (its "
        "rubric unless --rubric or --judge is given).",
    ),
]
BootstrapSeedOpt = Annotated[int, typer.Option("--seed", help="Bootstrap seed.")]
BootstrapResamplesOpt = Annotated[
    int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")
]
CalJsonOpt = Annotated[bool, typer.Option("--json", help="Print the report as stable JSON.")]
CalMarkdownOpt = Annotated[
    Path | None, typer.Option("--markdown", help="Also write Markdown here.")
]
CalHtmlOpt = Annotated[
    Path | None,
    typer.Option("--html", help="Also write a self-contained HTML page with plots here."),
]
CalFailOnGateOpt = Annotated[
    bool, typer.Option("--fail-on-gate", help="Exit 1 unless every criterion's gate is PASS.")
]
RequireRobustnessOpt = Annotated[
    bool,
    typer.Option(
        "--require-robustness",
        help="Gate also on the latest `calibrant probe` run of this judge version: every "
        "attack family's success rate within --attack-margin of the clean false-positive "
        "rate (no probe run: UNDECIDED).",
    ),
]
AttackMarginOpt = Annotated[
    float | None,
    typer.Option(
        "--attack-margin", help="Margin for --require-robustness (default: the probe run's)."
    ),
]
CalOutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="Folder for report.html, report.json and report.md (default: "
        "reports/RUN_ID/ in the current folder).",
    ),
]
CalVerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Print the whole report here (every comparison, confusion matrices, "
        "disagreements, safety, calibration pairs), not only the gate and where the "
        "report is.",
    ),
]
CalVerdictsOpt = Annotated[
    Path | None, typer.Option("--verdicts", help=VERDICTS_HELP, show_default=False)
]
