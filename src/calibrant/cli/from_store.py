"""`--from-store QUEUE` (calibrate, propose): a labeled workbench queue of the store, exported to
a temporary gold folder by the gold export operation (`calibrant.service.gold_export`), the one
`calibrant gold export` runs."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import CalibrantError

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["GoldOrStoreOpt", "exported_gold"]

GoldOrStoreOpt = Annotated[
    Path | None, typer.Option("--gold", help="Gold set folder (default: gold).")
]
"""--gold of a command that also takes --from-store QUEUE."""


def exported_gold(
    store: Store, queue: str, stack: ExitStack, *, need_consensus: bool = True
) -> tuple[Path, str, Path]:
    """The gold folder of workbench queue `queue`, exported into a temporary folder that
    `stack` removes; where it came from; the rubric file its items were labeled on.
    `need_consensus`: refuse a queue without any consensus label yet (calibrate measures
    against it; propose can start from none)."""
    import tempfile

    from ..service.gold_export import RUBRIC_FILE, gold_export, write_folder
    from ..store.db import redact_url

    export = gold_export(store.engine, queue)
    if need_consensus and not export.consensus:
        raise CalibrantError(
            f"--from-store {queue}: no consensus label yet ({export.pending} disagreement(s) "
            "awaiting adjudication; a label becomes consensus when two experts agree or an "
            "adjudicator decides)"
        )
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="calibrant-gold-")))
    folder = write_folder(export, tmp / "gold")
    source = f"{export.source} from the store at {redact_url(str(store.engine.url))}"
    return folder, source, folder / RUBRIC_FILE
