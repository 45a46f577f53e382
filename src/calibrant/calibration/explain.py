"""Plain words for the calibration report: why a value is undefined (whose labels are missing or
constant), what a constant rater does to kappa, and the warning about the weak embedded judge.

The statistics themselves (``calibrant.agreement``) only know codes; here the report knows
who gave them ("the judge", "the consensus", "expert rater_b"), so it can say whose labels
made a value undefined instead of printing a formula."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..contracts import CANT_TELL, INSUFFICIENT_EVIDENCE

__all__ = [
    "ABSTAIN",
    "Side",
    "constant_notes",
    "explain",
    "embedded_judge_warning",
    "EMBEDDED_JUDGE_WARNING",
]

ABSTAIN = frozenset({INSUFFICIENT_EVIDENCE, CANT_TELL})
"""Labels that are abstentions, not ratings: the judge's and the experts'."""

EMBEDDED_JUDGE_WARNING = (
    "The embedded judge is weak: {model} (SmolLM2-135M-Instruct, run offline by llama.cpp) "
    "always returns well-formed answers, but its judgments are close to noise, so expect its "
    "gate not to pass (FAIL, or UNDECIDED on a gold set with too few cases). It is there so "
    "the whole pipeline runs anywhere; point calibrate at a real "
    "model (--model, --api-base) to calibrate a judge you might ship."
)


def embedded_judge_warning(model: str | None) -> list[str]:
    """The README's promise ("the report says so") as report data: one warning, or none."""
    from ..judge.embedded_request import EMBEDDED_MODEL  # no model load: names only

    return [EMBEDDED_JUDGE_WARNING.format(model=model)] if model == EMBEDDED_MODEL else []


@dataclass(frozen=True)
class Side:
    """One rater's labels over the report's items, under the name the report gives it.

    ``labels`` holds one raw label per item (``None`` when the rater gave none; abstentions
    kept as given); ``no_label_why`` says why labels are missing, e.g. "92 provider_error"."""

    name: str
    labels: Sequence[Any]
    no_label_why: str = ""
    usable: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "usable",
            [i for i, v in enumerate(self.labels) if v is not None and v not in ABSTAIN],
        )

    def label(self, i: int) -> str:
        return str(self.labels[i])

    @classmethod
    def of(cls, name: str, labels: Sequence[Any], failed: dict[str, int] | None = None) -> Side:
        """A side whose missing labels are summed up: abstentions by label, then the judge's
        failures by outcome (``failed``), or else the items nobody labelled."""
        counts = Counter(str(v) for v in labels if v is not None and v in ABSTAIN)
        parts = [f"{n} {k}" for k, n in sorted(counts.items())]
        if failed:
            parts += [f"{n} {k}" for k, n in sorted(failed.items())]
        elif (unlabelled := sum(v is None for v in labels)) > 0:
            parts.append(f"{unlabelled} unlabelled")
        return cls(name, labels, ", ".join(parts))


def _q(v: str) -> str:
    return f"'{v}'"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def explain(stat: dict[str, Any], sides: Sequence[Side]) -> str | None:
    """'undefined: <why>' when the estimate of ``stat`` (a BootstrapResult dict) is undefined,
    'CI undefined: <why>' when only its interval is, in plain words naming the raters whose
    labels made it so; ``None`` when both are defined."""
    if stat["estimate"] is not None:
        if stat["ci"] is not None:
            return None
        return f"CI undefined: {stat['ci_undefined_reason']}" + _rare_labels(sides)
    return f"undefined: {_why_undefined(stat, sides)}"


def _why_undefined(stat: dict[str, Any], sides: Sequence[Side]) -> str:
    n = len(sides[0].labels)
    for s in sides:
        if not s.usable:
            why = f" ({s.no_label_why})" if s.no_label_why else ""
            return f"{s.name} gave no usable label on any of the {n} items{why}"
    shared = _shared(sides)
    names = _names(sides)
    if not shared:
        return f"no item has a usable label from both {names}"
    if len(shared) < 2:
        return f"only 1 item has a usable label from both {names}; agreement needs 2 or more"
    values = {s.label(i) for s in sides for i in shared}
    if len(values) == 1:
        (v,) = values
        scope = "" if len(shared) == n else f" ({len(shared)} of {n} items rated by both)"
        return (
            f"{names} {'both' if len(sides) == 2 else 'all'} labelled every item {_q(v)}{scope}: "
            "with one label in use, chance agreement is already 100%, so κ has nothing to measure"
        )
    return str(stat["estimate_undefined_reason"])


def _shared(sides: Sequence[Side]) -> list[int]:
    """Items rated by every side (two raters), or by at least two (several raters)."""
    count = Counter(i for s in sides for i in s.usable)
    need = len(sides) if len(sides) == 2 else 2
    return sorted(i for i, c in count.items() if c >= need)


def _names(sides: Sequence[Side]) -> str:
    names = [s.name for s in sides]
    return " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + f" and {names[-1]}"


def _rare_labels(sides: Sequence[Side]) -> str:
    shared = _shared(sides)
    if not shared:
        return ""
    top, _ = Counter(s.label(i) for s in sides for i in shared).most_common(1)[0]
    odd = sum(1 for i in shared if any(s.label(i) != top for s in sides if i in s.usable))
    return (
        f" — only {odd} of {len(shared)} items carry a label other than {_q(top)}, so most "
        "resamples contain a single label"
    )


def _constant(s: Side) -> str | None:
    values = {s.label(i) for i in s.usable}
    return values.pop() if len(s.usable) >= 2 and len(values) == 1 else None


def constant_notes(judge: Side, reference: Side, experts: Sequence[Side]) -> list[str]:
    """Plain-words notes for every rater that gave one label only on a criterion."""
    n = len(judge.labels)
    notes: list[str] = []
    v = _constant(judge)
    if v is not None:
        m = len(judge.usable)
        where = f"all {n} items" if m == n else f"all {m} items it labelled (of {n})"
        ref = _constant(reference)
        if ref is None:
            notes.append(
                f"The judge answered {_q(v)} on {where}, so its agreement beyond chance is 0 by "
                f"construction: κ cannot credit a constant rater. It matches {reference.name} "
                f"only where {reference.name} says {_q(v)} too, exactly as often as chance "
                "predicts."
            )
        elif ref == v:
            notes.append(
                f"The judge answered {_q(v)} on {where}, and {reference.name} is {_q(ref)} on "
                "every item too: with no variation on either side, κ is undefined and cannot "
                "tell a good judge from a constant one here."
            )
        else:
            notes.append(
                f"The judge answered {_q(v)} on {where}, while {reference.name} is {_q(ref)} on "
                "every item: they never agree, and κ is 0 by construction."
            )
    ref = _constant(reference)
    if ref is not None:
        notes.append(
            f"{_cap(reference.name)} is {_q(ref)} on every labelled item, so no judge "
            "can score κ above 0 against it here (0 by construction, or undefined when the "
            "judge is constant too); add gold items with other labels."
        )
    for e in experts:
        ev = _constant(e)
        if ev is not None:
            notes.append(
                f"{_cap(e.name)} labelled every item {_q(ev)}: κ between {e.name} and any rater "
                "whose labels vary is 0 by construction, and undefined against a rater who "
                "also gave one label only."
            )
    return notes
