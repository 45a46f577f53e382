"""Checks on labels read from files, before any statistic sees them: a label given twice, a
criterion or value the rubric does not have, an ordinal scale without an order. Each refusal is
one InputError naming the file, the line and the field."""

from __future__ import annotations

from collections.abc import Sequence

from .contracts import CANT_TELL, Rubric
from .errors import ConfigError
from .files import LocatedLabel

__all__ = [
    "unique_labels",
    "check_labels_against_rubric",
    "check_agree_labels",
    "parse_order",
    "case_variants",
]


def unique_labels(labels: Sequence[LocatedLabel]) -> dict[tuple[str, str, str], LocatedLabel]:
    """Index labels by (item, rater, criterion); a second label for the same key is refused
    (a silent "last one wins" would change every figure)."""
    seen: dict[tuple[str, str, str], LocatedLabel] = {}
    for x in labels:
        key = (x.label.item, x.label.rater, x.label.criterion)
        first = seen.get(key)
        if first is not None:
            raise x.error(
                f"rater '{key[1]}' labelled item '{key[0]}' on '{key[2]}' twice "
                f"(first at {first.path}:{first.line})",
                field="item",
            )
        seen[key] = x
    return seen


def check_labels_against_rubric(labels: Sequence[LocatedLabel], rubric: Rubric) -> None:
    """Refuse a label whose criterion the rubric lacks, or whose value is off the criterion's
    scale (its levels, not_applicable where the criterion allows it, and cant_tell)."""
    known = {c.id: c for c in rubric.criteria}
    for x in labels:
        c = known.get(x.label.criterion)
        if c is None:
            raise x.error(
                f"criterion '{x.label.criterion}' is not in rubric {rubric.rubric_id} "
                f"(criteria: {', '.join(known)})",
                field="criterion",
            )
        allowed = [*c.allowed_labels(), CANT_TELL]
        if x.label.label not in allowed:
            raise x.error(
                f"label {x.label.label!r} is not on the scale of '{c.id}' "
                f"(allowed: {', '.join(repr(v) for v in allowed)})",
                field="label",
            )


def parse_order(text: str) -> list[str | int]:
    """`--order poor,fair,good` as labels, lowest first (integers where they look like ones)."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) < 2 or not all(parts) or len(set(parts)) != len(parts):
        raise ConfigError(f"--order needs two or more distinct labels, comma-separated: {text!r}")
    return [int(p) if p.lstrip("-").isdigit() else p for p in parts]


def check_agree_labels(
    located: Sequence[LocatedLabel],
    *,
    rubric: Rubric | None,
    order: list[str | int] | None,
    level: str | None,
) -> list[str]:
    """Refuse what would silently change the figures: labels off the rubric or the --order, and
    an ordinal level whose order nothing gives (alphabetical order means nothing). Returns
    warnings for what is legal but likely a mistake."""
    if rubric is not None:
        check_labels_against_rubric(located, rubric)
    if order is not None:
        for x in located:
            if x.label.label not in order and x.label.label != CANT_TELL:
                raise x.error(
                    f"label {x.label.label!r} is not in --order {','.join(map(str, order))}",
                    field="label",
                )
    elif level == "ordinal" and rubric is None:
        for x in located:
            if not isinstance(x.label.label, int) and x.label.label != CANT_TELL:
                raise ConfigError(
                    f"--level ordinal needs the order of the labels, and "
                    f"'{x.label.criterion}' has text labels such as {x.label.label!r} "
                    f"({x.path}:{x.line}); give --rubric FILE or --order LOW,...,HIGH"
                )
    return case_variants(located) if rubric is None and order is None else []


def case_variants(located: Sequence[LocatedLabel]) -> list[str]:
    """Labels of one criterion that differ only in case are different categories: a warning
    for each such criterion."""
    out = []
    seen: dict[tuple[str, str], set[str]] = {}
    for x in located:
        if isinstance(x.label.label, str):
            seen.setdefault((x.label.criterion, x.label.label.casefold()), set()).add(x.label.label)
    for (crit, _), spellings in sorted(seen.items()):
        if len(spellings) > 1:
            out.append(
                f"criterion '{crit}' has labels that differ only in case "
                f"({', '.join(sorted(spellings))}); they count as different labels — give "
                "--rubric to check them against the scale"
            )
    return out
