"""The anchor set: the cases of a window drawn at random, with replacement, from the frozen set
(so two of them are independent draws, as the e-process assumes), and the released judge's label
shares and case-weighted kappa on it (a criterion baseline's ``anchor_reference`` and
``anchor_kappa``)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .eprocess import CaseCodes, agreement_weights, case_weighted_kappa
from .model import Case, CriterionBaseline


def draw_anchors(case_ids: Sequence[str], per_window: int, *, seed: int, window: int) -> list[str]:
    """The anchor cases to re-score in window number ``window``: ``per_window`` draws with
    replacement from the frozen set, reproducible from ``seed`` (a steady interleave)."""
    if not case_ids:
        raise ValueError("no anchor cases to draw from")
    rng = random.Random(f"{seed}:{window}")
    return [rng.choice(list(case_ids)) for _ in range(per_window)]


def anchor_reference(cases: Sequence[Case], baseline: CriterionBaseline) -> tuple[float, ...]:
    """The released judge's label shares on anchor cases, summed case by case, and the number of
    cases (for ``anchor_reference``): pass every release scoring's cases."""
    index = {label: i for i, label in enumerate(baseline.labels)}
    k = len(baseline.labels)
    out = [0.0] * (k + 1)
    for c in cases:
        codes = [index[x] for x in c.judge if x in index]
        if not codes:
            continue
        for code in codes:
            out[code] += 1 / len(codes)
        out[k] += 1
    return tuple(out)


def anchor_kappa(cases: Sequence[Case], baseline: CriterionBaseline) -> float | None:
    """The released judge's case-weighted kappa on anchor cases (for ``anchor_kappa``)."""
    index = {label: i for i, label in enumerate(baseline.labels)}
    codes: list[CaseCodes] = []
    for c in cases:
        if c.expert is None or len(c.expert) != len(c.judge) or not c.judge:
            raise ValueError(f"anchor case '{c.case}' needs one expert label per judge label")
        unknown = [x for x in (*c.judge, *c.expert) if x not in index]
        if unknown:
            raise ValueError(
                f"anchor case '{c.case}': unknown label {unknown[0]!r}; the scale is "
                f"{', '.join(baseline.labels)}"
            )
        codes.append((tuple(index[x] for x in c.judge), tuple(index[x] for x in c.expert)))
    w = agreement_weights(len(baseline.labels), ordinal=baseline.ordinal)
    return case_weighted_kappa(codes, w)
