"""`probe`'s options: the probes' settings as one option group (the command receives a
`ProbeSettings`), and its other options, each named once here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import CalibrantError
from .option_group import option_group

if TYPE_CHECKING:
    from ..probes import ProbeSettings

__all__ = ["FailOnFlagOpt", "PlantedOpt", "ProbeJsonOpt", "ProbeMarkdownOpt", "probe_group"]

ProbesOpt = Annotated[
    str | None,
    typer.Option(
        "--probes",
        help="Comma-separated: injection, verbosity, order, stability, central (default all).",
    ),
]
FamiliesOpt = Annotated[
    str | None,
    typer.Option("--families", help="Comma-separated attack families (default all)."),
]
ChannelsOpt = Annotated[
    str, typer.Option("--channels", help="Where attacks go: agent, note, or agent,note.")
]
DefensesOpt = Annotated[
    str,
    typer.Option(
        "--defenses",
        help="both: the defended prompt and, side by side, a naive one; on: defended only.",
    ),
]
ItemsOpt = Annotated[
    int | None,
    typer.Option(
        "--items", min=1, help="At most this many gold items per probe (a seeded sample)."
    ),
]
KOpt = Annotated[int, typer.Option("-k", min=1, help="Samples per item for stability.")]
ProbeMarginOpt = Annotated[
    float,
    typer.Option(
        "--margin",
        help="Gate: an attack family fails when its success rate is surely above the "
        "clean false-positive rate plus this.",
    ),
]
ProbeMinItemsOpt = Annotated[
    int, typer.Option("--min-items", min=1, help="Gate: fewer items measured: UNDECIDED.")
]
ProbeMinCasesOpt = Annotated[
    int | None,
    typer.Option("--min-cases", min=2, help="Gate: fewer cases measured: UNDECIDED [default: 6]."),
]
ProbeSeedOpt = Annotated[
    int, typer.Option("--seed", help="Seed (item sample, retries, bootstrap).")
]


def _names(value: str | None, option: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    names = tuple(x.strip() for x in value.split(",") if x.strip())
    if not names:
        raise CalibrantError(f"{option} names nothing")
    return names


def _settings(
    *,
    probes: str | None,
    families: str | None,
    channels: str,
    defenses: str,
    items: int | None,
    k: int,
    margin: float,
    min_items: int,
    min_cases: int | None,
    seed: int,
) -> ProbeSettings:
    from dataclasses import replace

    from ..probes import ATTACKS, ProbeSettings, default_probes

    if defenses not in ("both", "on"):
        raise CalibrantError(f"--defenses must be both or on, not '{defenses}'")
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
    return settings if min_cases is None else replace(settings, min_cases=min_cases)


probe_group = option_group(
    {
        "probes": (ProbesOpt, None),
        "families": (FamiliesOpt, None),
        "channels": (ChannelsOpt, "agent,note"),
        "defenses": (DefensesOpt, "both"),
        "items": (ItemsOpt, None),
        "k": (KOpt, 3),
        "margin": (ProbeMarginOpt, 0.10),
        "min_items": (ProbeMinItemsOpt, 10),
        "min_cases": (ProbeMinCasesOpt, None),
        "seed": (ProbeSeedOpt, 0),
    },
    _settings,
    into="settings",
)
"""The probes' settings, `--probes` to `--seed`, received as one `ProbeSettings` (inside
`@judge_group()`: that one evaluates the command's annotations, and `ProbeSettings` is known to
type checkers only, so that `--help` loads no probe)."""

PlantedOpt = Annotated[
    str | None,
    typer.Option(
        "--planted",
        help="Test the tester: probe a simulated judge with a planted defect instead "
        "(clean, obey:P, fence:P, verbose:P, middle, order:P, noisy:P).",
    ),
]
ProbeJsonOpt = Annotated[bool, typer.Option("--json", help="Print the report as stable JSON.")]
ProbeMarkdownOpt = Annotated[
    Path | None, typer.Option("--markdown", help="Also write Markdown here.")
]
FailOnFlagOpt = Annotated[
    bool, typer.Option("--fail-on-flag", help="Exit 1 when any probe flags the judge.")
]
