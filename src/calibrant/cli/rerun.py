"""What a rerun of a judging command does with the failures of this one: said the same way by
`judge` and `score` (a module of its own, so no command family imports another)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["rerun_note"]


def rerun_note(outcomes: Iterable[str]) -> str:
    """What a rerun does with these failed outcomes: it asks again for the calls that failed
    (provider errors, timeouts, rate limits), not for answers the model gave (unparseable,
    refusal: stored like verdicts)."""
    from ..contracts import FINAL_OUTCOMES

    kinds = set(outcomes) - {"verdict"}
    retried = sorted(kinds - FINAL_OUTCOMES)
    final = sorted(kinds & FINAL_OUTCOMES)
    said = [f"a rerun retries the {' and '.join(retried)} items"] if retried else []
    if final:
        said.append(f"{' and '.join(final)} answers are stored and not asked again")
    return "; ".join(said)
