"""`calibrant propose`: which items of a gold folder to label next for an UNDECIDED criterion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .app import DomainOpt, SplitOpt, app, gold_split
from .from_store import GoldOrStoreOpt

ProposeVerdictsOpt = Annotated[
    Path,
    typer.Option(
        "--verdicts",
        help="The judge's recorded verdicts (CSV or JSONL rows item, criterion, label, "
        "judge_version) on the gold items, labeled and not yet labeled.",
    ),
]
CriterionOpt = Annotated[str, typer.Option("--criterion", help="The criterion to decide.")]
ProposeFromStoreOpt = Annotated[
    str | None,
    typer.Option(
        "--from-store",
        help="Propose from a workbench queue of the store instead of --gold: exported to a "
        "temporary gold folder as `calibrant gold export` writes it (its items without a "
        "consensus label are the pool; its rubric unless --rubric is given).",
    ),
]
CountOpt = Annotated[int, typer.Option("--count", help="How many items to propose.")]
VerdictsBOpt = Annotated[
    Path | None,
    typer.Option(
        "--verdicts-b", help="A second judge version's verdicts (for --strategy disagree)."
    ),
]
StrategyOpt = Annotated[
    str,
    typer.Option(
        "--strategy",
        help="proposed (new cases first, judged classes at their share; the default), "
        "random, stratified, unseen or disagree.",
    ),
]
ProposeRubricOpt = Annotated[
    Path | None, typer.Option("--rubric", help="Rubric YAML the verdicts are checked against.")
]
ProposeSeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the random tie-breaks.")]
ProposeJsonOpt = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]


@app.command()
def propose(
    verdicts: ProposeVerdictsOpt,
    criterion: CriterionOpt,
    gold: GoldOrStoreOpt = None,
    from_store: ProposeFromStoreOpt = None,
    count: CountOpt = 20,
    verdicts_b: VerdictsBOpt = None,
    strategy: StrategyOpt = "proposed",
    rubric: ProposeRubricOpt = None,
    domain: DomainOpt = None,
    split: SplitOpt = "calibration",
    seed: ProposeSeedOpt = 0,
    as_json: ProposeJsonOpt = False,
) -> None:
    """Rank the gold folder's (or, with --from-store, the workbench queue's) items without a
    consensus label (judged by the recorded judge) to label next for an UNDECIDED gate: new
    cases first, since the gate's interval counts cases, judged classes at their share. Each
    item comes with its reason. Measured by simulation: as good as random sampling, no
    demonstrated saving (docs/calibration.md)."""
    from ..ops.propose import ProposeRequest
    from ..ops.propose import propose as propose_op
    from ..reports.propose import proposal_lines

    request = ProposeRequest(
        verdicts, criterion, gold=gold, from_store=from_store, count=count,
        verdicts_b=verdicts_b, strategy=strategy, rubric=rubric, domain=domain,
        split=gold_split(split), seed=seed,
    )  # fmt: skip
    out = propose_op(request)
    if as_json:
        typer.echo(json.dumps(out.json_data(), indent=2, sort_keys=True, ensure_ascii=False))
        return
    for line in proposal_lines(out):
        typer.echo(line)
