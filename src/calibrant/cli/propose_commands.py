"""`calibrant propose`: which items of a gold folder to label next for an UNDECIDED criterion."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer

from ..errors import CalibrantError
from .app import DomainOpt, SplitOpt, app, gold_split
from .from_store import GoldOrStoreOpt
from .verdicts_options import load_rubric_for_verdicts


@app.command()
def propose(
    verdicts: Annotated[
        Path,
        typer.Option(
            "--verdicts",
            help="The judge's recorded verdicts (CSV or JSONL rows item, criterion, label, "
            "judge_version) on the gold items, labeled and not yet labeled.",
        ),
    ],
    criterion: Annotated[str, typer.Option("--criterion", help="The criterion to decide.")],
    gold: GoldOrStoreOpt = None,
    from_store: Annotated[
        str | None,
        typer.Option(
            "--from-store",
            help="Propose from a workbench queue of the store instead of --gold: exported to a "
            "temporary gold folder as `calibrant gold export` writes it (its items without a "
            "consensus label are the pool; its rubric unless --rubric is given).",
        ),
    ] = None,
    count: Annotated[int, typer.Option("--count", help="How many items to propose.")] = 20,
    verdicts_b: Annotated[
        Path | None,
        typer.Option(
            "--verdicts-b", help="A second judge version's verdicts (for --strategy disagree)."
        ),
    ] = None,
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy",
            help="proposed (new cases first, judged classes at their share; the default), "
            "random, stratified, unseen or disagree.",
        ),
    ] = "proposed",
    rubric: Annotated[
        Path | None, typer.Option("--rubric", help="Rubric YAML the verdicts are checked against.")
    ] = None,
    domain: DomainOpt = None,
    split: SplitOpt = "calibration",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random tie-breaks.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Rank the gold folder's (or, with --from-store, the workbench queue's) items without a
    consensus label (judged by the recorded judge) to label next for an UNDECIDED gate: new
    cases first, since the gate's interval counts cases, judged classes at their share. Each
    item comes with its reason. Measured by simulation: as good as random sampling, no
    demonstrated saving (docs/calibration.md)."""
    from ..calibration.propose import propose_for_gold
    from ..domains import default_gold
    from ..ops.gold_export import queue_gold
    from ..store import Store

    if gold is not None and from_store is not None:
        raise CalibrantError("--gold and --from-store are two sources of gold: give one")
    subset = gold_split(split)
    source = None
    with ExitStack() as stack:
        if from_store is not None:
            with Store.open() as store:
                exported = queue_gold(
                    store.engine, from_store, stack, option="--from-store", need_consensus=False
                )
                gold, labeled_on = exported.folder, exported.rubric
            rubric = rubric or labeled_on
            source = f"workbench queue {from_store}"
        out = propose_for_gold(
            gold or default_gold(domain),
            verdicts,
            rubric=load_rubric_for_verdicts(rubric, domain),
            criterion=criterion,
            count=count,
            verdicts_b=verdicts_b,
            strategy=strategy,  # type: ignore[arg-type]  # checked by propose_for_gold
            seed=seed,
            split=subset,
            source=source,
        )
    if as_json:
        typer.echo(json.dumps(out, indent=2, sort_keys=True, ensure_ascii=False))
        return
    lab, pool = out["labeled"], out["pool"]
    typer.echo(
        f"{out['criterion']}: {lab['items']} labeled item(s) in {lab['cases']} case(s); "
        f"{pool['items']} judged item(s) in {pool['cases']} case(s) to choose from; "
        f"strategy {out['strategy']}, seed {out['seed']}"
    )
    for p in out["proposals"]:
        typer.echo(f"{p['rank']:>3}. {p['item']} (case {p['case']}, judged {p['judge_label']})")
        typer.echo(f"     {p['reason']}")
    typer.echo(
        f"{len(out['proposals'])} item(s), {out['proposed_new_cases']} of them in new cases. "
        "Label them, then run `calibrate` again."
    )
