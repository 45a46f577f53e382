"""The gold set on disk: manifest, transcripts, one label file per rater, the adjudicated
consensus, and the checker's stored safety verdicts."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from .contracts import Label, Rubric, Transcript, content_hash
from .contracts.common import Contract
from .contracts.domain import DomainNamed
from .errors import InputError
from .files import (
    LocatedLabel,
    load_transcript,
    load_yaml_mapping,
    read_labels,
    validation_error,
)
from .labels import check_labels_against_rubric, unique_labels

__all__ = [
    "GoldItem",
    "GoldSet",
    "load_gold",
    "read_manifest",
    "CONSENSUS",
    "choose_case_split",
    "drawn_case_split",
    "HELDOUT_SHARE",
    "split_problems",
    "case_groups",
    "conversation_text",
    "agent_text",
    "MIN_HELDOUT_CASES",
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


# --- splits ----------------------------------------------------------------------------------

NEAR_DUPLICATE = 0.9  # texts at least this similar (difflib ratio) are near-duplicates
MIN_HELDOUT_CASES = 12  # the held-out split needs at least this many cases


def _folded(text: str) -> str:
    import re

    return " ".join(re.sub(r"\bgold-\d+\b", "ITEM", text).split())


def conversation_text(sheet: str) -> str:
    """The conversation part of a labeling sheet (what the customer saw), with item ids
    removed and whitespace runs folded, so two sheets of one conversation compare equal."""
    return _folded(sheet.split("## Conversation", 1)[-1])


def agent_text(sheet: str) -> str:
    """The agent's words in a labeling sheet: its chat messages and the messages it sent
    (subject and body), in order, without the customer's messages; folded as above."""
    body = sheet.split("## Conversation", 1)[-1]
    out = []
    for block in body.split("\n**`")[1:]:
        head, _, rest = block.partition("\n")
        if "agent message" in head or "sent by the agent" in head:
            out += [ln[1:].strip() for ln in rest.splitlines() if ln.startswith(">")]
    return _folded("\n".join(out))


TEXTS: dict[str, Callable[[str], str]] = {
    "whole conversation": conversation_text,
    "agent text": agent_text,
}


def _similar(
    texts: dict[str, str], keep: Callable[[str, str], bool], near: float
) -> Iterator[tuple[str, str, float]]:
    """(a, b, ratio) with a < b, keep(a, b) (asked lazily, pair by pair) and ratio >= near;
    empty texts are never similar. One matcher per b, so its index is built once."""
    import difflib

    ids = sorted(texts)
    sm = difflib.SequenceMatcher(None, autojunk=False)
    for y, b in enumerate(ids):
        if not texts[b]:
            continue
        sm.set_seq2(texts[b])
        for a in ids[:y]:
            if not texts[a] or not keep(a, b):
                continue
            if texts[a] == texts[b]:
                yield a, b, 1.0
                continue
            sm.set_seq1(texts[a])
            if sm.real_quick_ratio() >= near and sm.quick_ratio() >= near:
                r = sm.ratio()
                if r >= near:
                    yield a, b, round(r, 3)


def similar_pairs(
    sheets: dict[str, str],
    keep: Callable[[str, str], bool],
    *,
    near: float = NEAR_DUPLICATE,
    text: Callable[[str], str] = conversation_text,
) -> list[tuple[str, str, float]]:
    """Pairs (a, b, similarity) of sheets with `keep(a, b)` whose `text` (by default the
    conversation) is at least `near` similar (1.0: identical), sorted."""
    return sorted(_similar({i: text(t) for i, t in sheets.items()}, keep, near))


def max_similarity(
    sheets: dict[str, str], keep: Callable[[str, str], bool], text: Callable[[str], str]
) -> tuple[str, str, float] | None:
    """The most similar pair (a, b, ratio) among the pairs `keep` accepts, or None."""
    import difflib

    texts = {i: text(t) for i, t in sheets.items()}
    ids = sorted(texts)
    best: tuple[str, str, float] | None = None
    sm = difflib.SequenceMatcher(None, autojunk=False)
    for y, b in enumerate(ids):
        sm.set_seq2(texts[b])
        for a in ids[:y]:
            if not keep(a, b):
                continue
            sm.set_seq1(texts[a])
            if best is not None and sm.quick_ratio() <= best[2]:
                continue
            r = sm.ratio()
            if best is None or r > best[2]:
                best = (a, b, round(r, 3))
    return best


def case_groups(
    cases: dict[str, str],
    sheets: dict[str, str],
    *,
    near: float = NEAR_DUPLICATE,
    among: set[str] | None = None,
) -> list[list[str]]:
    """Cases that must share a split: two cases join when any of their transcripts
    (item -> case) have near-duplicate conversations or agent texts (the scripted agents reuse
    their wording from case to case). Connected groups, sorted. With `among`, only pairs with
    at least one case in it are compared (the split rule needs no more, and it is faster)."""
    parent = {c: c for c in set(cases.values())}

    def root(c: str) -> str:
        while parent[c] != c:
            c = parent[c]
        return c

    for text in TEXTS.values():
        texts = {i: text(t) for i, t in sheets.items()}

        # pairs of cases already joined are not compared again
        def keep(a: str, b: str) -> bool:
            if among is not None and cases[a] not in among and cases[b] not in among:
                return False
            return root(cases[a]) != root(cases[b])

        for a, b, _ in _similar(texts, keep, near):
            parent[root(cases[a])] = root(cases[b])
    groups: dict[str, list[str]] = {}
    for c in parent:
        groups.setdefault(root(c), []).append(c)
    return sorted(sorted(g) for g in groups.values())


def choose_case_split(
    templated: set[str],
    groups: Sequence[Sequence[str]],
    *,
    min_heldout: int = MIN_HELDOUT_CASES,
) -> dict[str, Literal["calibration", "heldout"]]:
    """The split rule, by whole case. A case with any transcript in the scripted agents'
    templated wording (`templated`) is in calibration, and so is every case joined to one by
    a near-duplicate (`groups`, from `case_groups`, which may leave templated cases apart:
    they are in calibration anyway); every other case (hand-written agent wording only) is
    held out. Templated wording repeats from case to case, so it can never
    be held out without leaking; the hand-written replies are written once per transcript.
    ValueError when fewer than `min_heldout` cases are held out."""
    split: dict[str, Literal["calibration", "heldout"]] = {}
    for g in groups:
        side: Literal["calibration", "heldout"] = "calibration" if set(g) & templated else "heldout"
        for c in g:
            split[c] = side
    held = sorted(c for c, s in split.items() if s == "heldout")
    if len(held) < min_heldout:
        raise ValueError(
            f"only {len(held)} case(s) would be held out ({', '.join(held) or 'none'}); "
            f"the rule needs at least {min_heldout}"
        )
    return dict(sorted(split.items()))


def split_problems(
    manifest: dict[str, GoldItem], sheets: dict[str, str], *, near: float = NEAR_DUPLICATE
) -> list[str]:
    """Why this split would leak held-out material into calibration, one line each: a case
    with items in both splits, or two sheets (item -> sheet text) in different splits whose
    whole conversations or agent texts are identical or near-duplicates (>= `near`)."""
    problems = []
    by_case: dict[str, set[str]] = {}
    for m in manifest.values():
        by_case.setdefault(m.case, set()).add(m.split)
    for case, splits in sorted(by_case.items()):
        if len(splits) > 1:
            problems.append(f"case {case} has items in both splits")
    known = {i: t for i, t in sheets.items() if i in manifest}
    for what, text in TEXTS.items():
        for a, b, r in similar_pairs(
            known, lambda a, b: manifest[a].split != manifest[b].split, near=near, text=text
        ):
            how = "the same" if r == 1.0 else f"a near-duplicate ({r:.3f} >= {near})"
            problems.append(
                f"{a} ({manifest[a].split}) and {b} ({manifest[b].split}): {how} {what}"
            )
    return problems


HELDOUT_SHARE = 0.25  # the share of free cases a drawn split holds out


def case_draw(case: str) -> float:
    """A case's fixed draw in [0, 1): from its id alone, so a case keeps its side of a drawn
    split however the set around it grows."""
    import hashlib

    return int(hashlib.sha256(case.encode()).hexdigest()[:13], 16) / 16**13


def drawn_case_split(
    cases: dict[str, str],
    sheets: dict[str, str],
    templated: set[str],
    *,
    share: float = HELDOUT_SHARE,
    near: float = NEAR_DUPLICATE,
) -> dict[str, Literal["calibration", "heldout"]]:
    """The split rule for a set that is not all hand-written (items -> case, their sheets): a
    case is a candidate for the held-out side when its fixed draw (`case_draw`) is below
    `share`; every other case is pinned to calibration like a templated one, and
    `choose_case_split` decides with the near-duplicate groups of `case_groups`, so whole cases
    and near-duplicates stay on one side exactly as in the shipped gold set. Calibration is
    never left empty: while it would be, the candidate with the highest draw is pinned too."""
    if not 0 <= share < 0.5:
        raise ValueError(f"the held-out share must be at least 0 and below 0.5, not {share}")
    all_cases = set(cases.values())
    pinned = set(templated) | {c for c in all_cases if case_draw(c) >= share}
    while True:
        free = all_cases - pinned
        groups = case_groups(cases, sheets, near=near, among=free)
        split = choose_case_split(pinned, groups, min_heldout=0)
        if any(s == "calibration" for s in split.values()) or not free:
            return split
        pinned.add(max(free, key=case_draw))
