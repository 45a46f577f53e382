"""The gold set on disk: manifest, transcripts, one label file per rater, the adjudicated
consensus, and the checker's stored safety verdicts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from .contracts import Label, Rubric, Transcript, content_hash
from .contracts.common import Contract
from .errors import InputError
from .files import (
    LocatedLabel,
    load_transcript,
    load_yaml_mapping,
    read_labels,
    validation_error,
)
from .labels import check_labels_against_rubric, unique_labels

__all__ = ["GoldItem", "GoldSet", "load_gold", "read_manifest", "CONSENSUS"]

CONSENSUS = "consensus"


class PairRef(Contract):
    id: str = Field(description="Calibration pair id.")
    role: str = Field(description="Which side of the pair this item is.")


class GoldItem(Contract):
    """One manifest entry."""

    case: str = Field(description="Case id.")
    agent: str = Field(description="Agent that produced the transcript.")
    style: str = Field(description="Wording style.")
    seed: int = Field(description="Seed of the trial.")
    tags: list[str] = Field(default_factory=list, description="regression / exploratory.")
    split: Literal["calibration", "heldout"] = Field(description="Split.")
    pair: PairRef | None = Field(default=None, description="Calibration pair, if any.")


@dataclass
class GoldSet:
    """A loaded gold set, restricted to one split (or all)."""

    root: Path
    items: dict[str, GoldItem]
    transcripts: dict[str, Transcript]
    experts: dict[str, list[Label]]  # rater -> labels (consensus excluded)
    consensus: list[Label]
    hashes: dict[str, str] = field(default_factory=dict)
    located: list[LocatedLabel] = field(default_factory=list)  # every label with file and line

    def validate(self, rubric: Rubric) -> None:
        """Refuse labels the rubric cannot read: an unknown criterion, or a value off the
        criterion's scale. Run before any model call, so a bad label file costs nothing."""
        check_labels_against_rubric(self.located, rubric)

    @property
    def item_ids(self) -> list[str]:
        return sorted(self.items)

    def labels_by(self, rater: str, criterion: str) -> dict[str, str | int]:
        src = self.consensus if rater == CONSENSUS else self.experts[rater]
        return {x.item: x.label for x in src if x.criterion == criterion and x.item in self.items}

    def notes(self, rater: str, criterion: str) -> dict[str, str]:
        src = self.consensus if rater == CONSENSUS else self.experts[rater]
        return {
            x.item: x.note
            for x in src
            if x.criterion == criterion and x.item in self.items and x.note
        }

    def clusters(self) -> dict[str, Any]:
        """Item -> case, for a cluster bootstrap."""
        return {i: m.case for i, m in self.items.items()}


def read_manifest(path: Path) -> dict[str, GoldItem]:
    """A gold manifest (item id -> entry); every problem is one InputError line."""
    from pydantic import TypeAdapter, ValidationError

    data, text = load_yaml_mapping(path, "gold manifest")
    try:
        return TypeAdapter(dict[str, GoldItem]).validate_python(data)
    except ValidationError as exc:
        raise validation_error(path, text, exc) from None


def load_gold(root: Path, *, split: str | None = "calibration") -> GoldSet:
    """Load `root` (manifest.yaml, transcripts/, labels/*.jsonl|csv). `split=None`: all items.
    Labels are checked here for what needs no rubric (one label per item, rater and criterion;
    items the manifest knows); `GoldSet.validate(rubric)` checks the rest."""
    manifest_path = root / "manifest.yaml"
    if not root.is_dir():
        raise InputError(root, "no such gold folder")
    if not manifest_path.exists():
        raise InputError(manifest_path, "no gold manifest here")
    manifest = read_manifest(manifest_path)
    items = {k: v for k, v in manifest.items() if split in (None, v.split)}
    if not items:
        raise InputError(manifest_path, f"no item in split '{split}'")
    transcripts = {}
    for item in items:
        path = root / "transcripts" / f"{item}.json"
        t = load_transcript(path)
        if t.transcript_id != item:
            raise InputError(
                path,
                f"transcript id {t.transcript_id} does not match item {item}",
                field="transcript_id",
            )
        transcripts[item] = t
    if not (root / "labels").is_dir():
        raise InputError(root / "labels", "no labels folder in the gold set")
    files = sorted(p for p in (root / "labels").iterdir() if p.suffix in (".jsonl", ".csv"))
    located = [x for f in files for x in read_labels(f)]
    for x in unique_labels(located).values():
        if x.label.item not in manifest:
            raise x.error(f"item '{x.label.item}' is not in {manifest_path}", field="item")
    experts: dict[str, list[Label]] = {}
    consensus: list[Label] = []
    hashes = {"manifest": content_hash({k: v.model_dump() for k, v in manifest.items()})}
    for f in files:
        mine = [x.label for x in located if x.path == f]
        hashes[f"labels/{f.name}"] = content_hash([x.model_dump() for x in mine])
    for x in located:
        if x.label.rater == CONSENSUS:
            consensus.append(x.label)
        else:
            experts.setdefault(x.label.rater, []).append(x.label)
    if not consensus:
        raise InputError(root / "labels", "no consensus labels (rater 'consensus')")
    return GoldSet(
        root=root,
        items=items,
        transcripts=transcripts,
        experts=experts,
        consensus=consensus,
        hashes=hashes,
        located=located,
    )


def rater_names(gold: GoldSet) -> Sequence[str]:
    return sorted(gold.experts)
