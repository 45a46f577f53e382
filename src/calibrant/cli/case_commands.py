"""`calibrant case ...`: case contracts. `from-transcript` drafts a redacted regression case."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..errors import ConfigError
from .app import app

case_app = typer.Typer(help="Case contracts (cases/*.yaml).", no_args_is_help=True)
app.add_typer(case_app, name="case")

_ID = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")


@case_app.command("from-transcript")
def from_transcript(
    file: Annotated[Path, typer.Argument(help="Transcript JSON (a production or trial run).")],
    out: Annotated[Path, typer.Option("--out", help="Case file to write, e.g. cases/NAME.yaml.")],
    tag: Annotated[
        str,
        typer.Option("--tag", help="regression (a stable case) or exploratory (a new capability)."),
    ] = "regression",
    case_id: Annotated[
        str | None, typer.Option("--case-id", help="Case id (default: the file name of --out).")
    ] = None,
    redact: Annotated[
        list[str] | None,
        typer.Option("--redact", help="Another term to replace by a placeholder (repeatable)."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace --out if it exists.")] = False,
) -> None:
    """Draft a regression case from a transcript: its starting state, the fault points it shows
    and the customer's messages, with personal data redacted by stable placeholders.
    `expected` is left null with what was observed as comments: a person fills it, and trials
    refuse the case until then."""
    from ..files import load_transcript
    from ..paths import check_output_path, write_atomic
    from ..regression import draft_case
    from ..regression.redact import RESIDUAL_WARNING

    if tag not in ("regression", "exploratory"):
        raise ConfigError(f"--tag {tag!r}: choose regression or exploratory")
    if out.suffix not in (".yaml", ".yml"):
        raise ConfigError(f"--out {out}: a case file ends in .yaml")
    name = case_id or out.stem
    if not _ID.match(name):
        raise ConfigError(
            f"case id {name!r}: letters, digits and _ . : - / @ + only (give --case-id)"
        )
    check_output_path(out, option="--out")
    if out.exists() and not force:
        raise ConfigError(f"--out {out} exists; add --force to replace it")
    draft = draft_case(
        load_transcript(file),
        case_id=name,
        tag=tag,
        extra_terms=list(redact or []),
        source=str(file),
    )
    write_atomic(out, draft.text)
    replaced = ", ".join(f"{n} {kind}(s)" for kind, n in sorted(draft.redacted.items()))
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"wrote {out}: case {name} ({tag}), {len(draft.case.customer_script)} customer "
        f"message(s), {len(draft.case.faults)} fault(s); redacted {replaced or 'nothing'}; "
        f"{RESIDUAL_WARNING}. Fill `expected` before running it."
    )
