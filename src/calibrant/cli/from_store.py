"""`--gold` beside `--from-store QUEUE` (calibrate, propose): a labeled workbench queue of the
store is exported to a temporary gold folder by `calibrant.ops.gold_export.queue_gold`, the
operation `calibrant gold export` and the service's calibrate job run too."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["GoldOrStoreOpt"]

GoldOrStoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--gold",
        help="Gold set folder (default: the gold set of the installed pack that reads files "
        "naming no domain, wherever the command runs).",
    ),
]
"""--gold of a command that also takes --from-store QUEUE."""
