"""Splitting the gold set by case: the held-out split drawn or chosen so that no case, and no
near-duplicate conversation or agent text, sits on both sides."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from .goldset import GoldItem

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


def new_joins(
    cases: dict[str, str],
    sheets: dict[str, str],
    new: set[str],
    templated: set[str],
    *,
    near: float = NEAR_DUPLICATE,
) -> list[str]:
    """Why adding the items `new` would join cases to others, one line each: a new item
    (item -> case in `cases`) whose conversation or agent text is a near-duplicate (>= `near`)
    of another case's item. Templated cases are not compared among themselves (their wording
    repeats by design, and they sit in calibration anyway). Empty: the new items join no case,
    so no case changes side because of them."""
    lines = []
    for what, text in TEXTS.items():
        for a, b, r in similar_pairs(
            {i: t for i, t in sheets.items() if i in cases},
            lambda a, b: bool({a, b} & new)
            and cases[a] != cases[b]
            and not {cases[a], cases[b]} <= templated,
            near=near,
            text=text,
        ):
            how = "the same" if r == 1.0 else f"a near-duplicate ({r:.3f} >= {near})"
            lines.append(f"{a} ({cases[a]}) and {b} ({cases[b]}): {how} {what}")
    return lines


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
