"""The gold set on disk: manifest, transcripts, one label file per rater, the adjudicated
consensus, and the checker's stored safety verdicts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field

from ..contracts import Label, Rubric, Transcript, content_hash
from ..contracts.common import Contract
from ..contracts.domain import DomainNamed
from ..errors import InputError
from ..files import (
    LocatedLabel,
    load_transcript,
    load_yaml_mapping,
    read_labels,
    validation_error,
)
from ..labels import check_labels_against_rubric, unique_labels

__all__ = [
    "GoldItem",
    "GoldSet",
    "load_gold",
    "read_manifest",
    "CONSENSUS",
]

CONSENSUS = "consensus"


class PairRef(Contract):
    id: str = Field(description="Calibration pair id.")
    role: str = Field(description="Which side of the pair this item is.")


class GoldItem(DomainNamed):
    """One manifest entry (`domain`: the domain of its transcript; absent: the default domain)."""

    case: str = Field(description="Case id.")
    agent: str = Field(description="Agent that produced the transcript.")
    style: str | None = Field(
        default=None, description="Wording style (None: not recorded, e.g. a workbench export)."
    )
    seed: int | None = Field(default=None, description="Seed of the trial (None: not recorded).")
    tags: list[str] = Field(default_factory=list, description="regression / exploratory.")
    split: Literal["calibration", "heldout"] = Field(description="Split.")
    pair: PairRef | None = Field(default=None, description="Calibration pair, if any.")
    provenance: str | None = Field(
        default=None, description="Who or what wrote the agent's words (None: not recorded)."
    )


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
    unlabeled: list[str] = field(default_factory=list)  # items of the split left aside
    unlabeled_note: str | None = None  # one plain sentence saying which and why, or None
    _by_criterion: dict[tuple[str, str], tuple[list[Label], int, list[Label]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def validate(self, rubric: Rubric) -> None:
        """Refuse labels the rubric cannot read: an unknown criterion, or a value off the
        criterion's scale. Run before any model call, so a bad label file costs nothing."""
        check_labels_against_rubric(self.located, rubric)

    @property
    def item_ids(self) -> list[str]:
        return sorted(self.items)

    def _of(self, rater: str, criterion: str) -> list[Label]:
        """The rater's labels on one criterion (any item), grouped once per list: reports ask
        for the same (rater, criterion) thousands of times (bootstrap, per-case tables). The
        group is rebuilt when the rater's list is replaced or grows."""
        src = self.consensus if rater == CONSENSUS else self.experts[rater]
        hit = self._by_criterion.get((rater, criterion))
        if hit is None or hit[0] is not src or hit[1] != len(src):
            hit = (src, len(src), [x for x in src if x.criterion == criterion])
            self._by_criterion[(rater, criterion)] = hit
        return hit[2]

    def labels_by(self, rater: str, criterion: str) -> dict[str, str | int]:
        items = self.items
        return {x.item: x.label for x in self._of(rater, criterion) if x.item in items}

    def notes(self, rater: str, criterion: str) -> dict[str, str]:
        items = self.items
        return {x.item: x.note for x in self._of(rater, criterion) if x.item in items and x.note}

    def clusters(self) -> dict[str, str]:
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
    # Items nobody has adjudicated yet (new transcripts waiting for their annotators) are left
    # aside, with a note, rather than judged against nothing.
    adjudicated = {x.item for x in consensus}
    unlabeled = sorted(i for i in items if i not in adjudicated)
    note = None
    if unlabeled:
        rated = sorted(
            i for i in unlabeled if any(i in {x.item for x in v} for v in experts.values())
        )
        note = (
            f"{len(unlabeled)} item(s) of the manifest have no consensus label yet and were left "
            f"aside: {_ranges(unlabeled)}"
            + (f" ({len(rated)} of them have rater labels awaiting adjudication)" if rated else "")
        )
        for i in unlabeled:
            del items[i], transcripts[i]
        if not items:
            raise InputError(
                manifest_path, f"no labeled item in split '{split}' ({note})", field="split"
            )
    return GoldSet(
        root=root,
        items=items,
        transcripts=transcripts,
        experts=experts,
        consensus=consensus,
        hashes=hashes,
        located=located,
        unlabeled=unlabeled,
        unlabeled_note=note,
    )


def _ranges(ids: list[str]) -> str:
    """gold-093, gold-094, gold-095, gold-097 -> 'gold-093..gold-095, gold-097'."""
    out: list[str] = []
    run: list[str] = []

    def num(x: str) -> int | None:
        tail = x.rsplit("-", 1)[-1]
        return int(tail) if tail.isdigit() else None

    for x in ids:
        if run and num(x) is not None and num(run[-1]) is not None and num(x) == num(run[-1]) + 1:  # type: ignore[operator]
            run.append(x)
            continue
        if run:
            out.append(run[0] if len(run) == 1 else f"{run[0]}..{run[-1]}")
        run = [x]
    if run:
        out.append(run[0] if len(run) == 1 else f"{run[0]}..{run[-1]}")
    return ", ".join(out)


def rater_names(gold: GoldSet) -> Sequence[str]:
    return sorted(gold.experts)
