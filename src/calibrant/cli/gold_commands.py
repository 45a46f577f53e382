"""`calibrant gold export`: a labeled workbench queue written as a gold folder that `calibrate
--gold` reads (the operation is `calibrant.ops.gold_export`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from .app import app

gold_app = typer.Typer(help="Gold sets made from the workbench's labels.", no_args_is_help=True)
app.add_typer(gold_app, name="gold")

QueueOpt = Annotated[str, typer.Option("--queue", help="The workbench queue to export.")]
ShareOpt = Annotated[
    float,
    typer.Option(
        "--heldout-share",
        min=0.0,
        max=0.49,
        help="Share of the cases drawn for the held-out split (by case id, fixed per case).",
    ),
]


@gold_app.command("export")
def gold_export(
    queue: QueueOpt,
    out: Annotated[Path, typer.Option("--out", help="New (or empty) folder to write.")],
    share: ShareOpt = 0.25,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Write a labeled workbench queue (store: CALIBRANT_DATABASE_URL) as a complete gold
    folder: `manifest.yaml` (case, agent, split by whole case with the shipped gold set's
    near-duplicate rule, tags, provenance), `transcripts/`, `labels/<rater>.jsonl` per expert,
    `labels/consensus.jsonl` from adjudication, `rubric.yaml` and `labeling/new_items.txt`
    (items without consensus, left aside by `calibrate`). Written all or nothing; `calibrate
    --gold DIR --rubric DIR/rubric.yaml` reads it."""
    from ..ops.gold_export import check_out, gold_export, write_folder
    from ..store import make_engine

    check_out(out)  # before any work
    engine = make_engine()
    try:
        export = gold_export(engine, queue, share=share)
    finally:
        engine.dispose()
    write_folder(export, out)
    if as_json:
        summary = {
            "out": str(out),
            "source": export.source,
            "rubric": export.rubric,
            "items": export.split_items,
            "cases": export.split_cases,
            "raters": export.raters,
            "consensus_labels": export.consensus,
            "left_aside": export.left_aside,
            "pending_disagreements": export.pending,
        }
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
        return
    console = Console(highlight=False)
    for line in export.lines():
        console.print(line, markup=False)
    console.print(f"wrote {out}", markup=False)
