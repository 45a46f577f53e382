"""`propose`: which items of a gold folder (or of a workbench queue, exported for the run) to
label next for an UNDECIDED criterion, ranked from the recorded judge's verdicts
(`calibration.propose.propose_for_gold`)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CalibrantError

if TYPE_CHECKING:
    from ..contracts.reports.proposal import Proposals

__all__ = ["ProposeRequest", "propose"]


@dataclass(frozen=True)
class ProposeRequest:
    """`count` items to label next for `criterion`, from the gold folder `gold` (None: the
    installed pack's of `domain`) or the workbench queue `from_store`, split `split` (a
    `gold_split` value), ranked by `strategy` (seeded by `seed`) from the judge's recorded
    `verdicts` (and a second judge's, `verdicts_b`), checked on `rubric` (default: the
    queue's, else the pack's)."""

    verdicts: Path
    criterion: str
    gold: Path | None = None
    from_store: str | None = None
    count: int = 20
    verdicts_b: Path | None = None
    strategy: str = "proposed"
    rubric: Path | None = None
    domain: str | None = None
    split: str | None = "calibration"
    seed: int = 0


def propose(request: ProposeRequest) -> Proposals:
    """The proposals, with the labeled items and the pool counted."""
    from ..calibration.propose import propose_for_gold
    from ..domains import default_gold
    from ..store import Store
    from .gold_export import queue_gold
    from .verdicts import load_rubric_for_verdicts

    gold, rubric, source = request.gold, request.rubric, None
    if gold is not None and request.from_store is not None:
        raise CalibrantError("--gold and --from-store are two sources of gold: give one")
    with ExitStack() as stack:
        if request.from_store is not None:
            with Store.open() as store:
                exported = queue_gold(
                    store.engine, request.from_store, stack, option="--from-store",
                    need_consensus=False,
                )  # fmt: skip
                gold, labeled_on = exported.folder, exported.rubric
            rubric = rubric or labeled_on
            source = f"workbench queue {request.from_store}"
        return propose_for_gold(
            gold or default_gold(request.domain),
            request.verdicts,
            rubric=load_rubric_for_verdicts(rubric, request.domain),
            criterion=request.criterion,
            count=request.count,
            verdicts_b=request.verdicts_b,
            strategy=request.strategy,  # type: ignore[arg-type]  # checked by propose_for_gold
            seed=request.seed,
            split=request.split,
            source=source,
        )
