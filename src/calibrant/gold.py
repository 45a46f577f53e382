"""The gold set on disk: manifest, transcripts, one label file per rater, the adjudicated
consensus, and the checker's stored safety verdicts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from .contracts import Label, Transcript, content_hash
from .contracts.common import Contract
from .errors import InputError
from .files import load_labels, load_transcript

__all__ = ["GoldItem", "GoldSet", "load_gold", "CONSENSUS"]

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


class Manifest(Contract):
    items: dict[str, GoldItem] = Field(description="Item id -> entry.")


@dataclass
class GoldSet:
    """A loaded gold set, restricted to one split (or all)."""

    root: Path
    items: dict[str, GoldItem]
    transcripts: dict[str, Transcript]
    experts: dict[str, list[Label]]  # rater -> labels (consensus excluded)
    consensus: list[Label]
    hashes: dict[str, str] = field(default_factory=dict)

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


def load_gold(root: Path, *, split: str | None = "calibration") -> GoldSet:
    """Load `root` (manifest.yaml, transcripts/, labels/*.jsonl|csv). `split=None`: all items."""
    if not (root / "manifest.yaml").exists():
        raise InputError(root / "manifest.yaml", "no gold manifest here")
    import yaml

    raw = yaml.safe_load((root / "manifest.yaml").read_text(encoding="utf-8")) or {}
    manifest = _manifest(root, raw)
    items = {k: v for k, v in manifest.items.items() if split in (None, v.split)}
    if not items:
        raise InputError(root / "manifest.yaml", f"no item in split '{split}'")
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
    files = sorted(p for p in (root / "labels").glob("*") if p.suffix in (".jsonl", ".csv"))
    experts: dict[str, list[Label]] = {}
    consensus: list[Label] = []
    hashes = {"manifest": content_hash(raw)}
    for f in files:
        labels = load_labels(f)
        hashes[f"labels/{f.name}"] = content_hash([x.model_dump() for x in labels])
        for x in labels:
            if x.rater == CONSENSUS:
                consensus.append(x)
            else:
                experts.setdefault(x.rater, []).append(x)
    if not consensus:
        raise InputError(root / "labels", "no consensus labels (rater 'consensus')")
    return GoldSet(
        root=root,
        items=items,
        transcripts=transcripts,
        experts=experts,
        consensus=consensus,
        hashes=hashes,
    )


def _manifest(root: Path, raw: Any) -> Manifest:
    from pydantic import ValidationError

    try:
        return Manifest.model_validate({"items": raw})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"][1:])
        raise InputError(root / "manifest.yaml", err["msg"], field=loc) from None


def rater_names(gold: GoldSet) -> Sequence[str]:
    return sorted(gold.experts)
