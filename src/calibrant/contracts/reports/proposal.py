"""`calibrant propose`'s answer: which items of a gold folder to label next for one criterion,
ranked, with the labeled set and the pool counted (`--json` prints it)."""

from __future__ import annotations

from pydantic import Field

from .base import Strict

__all__ = ["ProposalRow", "ItemCount", "Proposals"]


class ProposalRow(Strict):
    """One proposed item, its rank (1 = label first) and why it is proposed."""

    rank: int
    item: str
    case: str
    judge_label: str = Field(description="The judge's label on the criterion.")
    new_case: bool = Field(description="No item of its case is labeled or proposed before it.")
    reason: str


class ItemCount(Strict):
    items: int
    cases: int


class Proposals(Strict):
    """The proposal for one criterion: the labeled set and the pool counted, the ranked items."""

    criterion: str
    strategy: str
    seed: int
    labeled: ItemCount = Field(description="Items with a consensus label, and their cases.")
    pool: ItemCount = Field(description="Unlabeled items with a judge label, and their cases.")
    left_out_no_judge_label: int
    proposed_new_cases: int
    proposals: list[ProposalRow]
