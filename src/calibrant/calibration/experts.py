"""The judge against each expert, not only against their consensus, and whether the consensus
is close to one expert's echo.

A consensus that sides with one rater in nearly every disagreement is, in effect, that rater's
labels: the judge's agreement with it then measures agreement with that one person. So the
report shows, per criterion, the judge's κ against each expert's own labels and against the
consensus (same statistic, same bootstrap), and — for every pair of experts — on how many of
their disagreements the consensus followed each of them."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from ..agreement import Scale, bootstrap_pairwise
from ..agreement.intervals import proportion
from ..contracts import Criterion, Judgment, Rubric
from ..contracts.reports.calibration_parts import (
    ConsensusFollowed,
    ExpertsCriterion,
    ExpertsSection,
)
from ..contracts.reports.stats import Estimate
from ..gold import CONSENSUS, GoldSet
from .criterion import ABSTAIN, Settings, _codes, scale_of

__all__ = ["CLOSE_SHARE", "MIN_DISAGREEMENTS", "expert_comparison", "experts_lines"]

CLOSE_SHARE = 0.9  # consensus followed one expert on at least this share of their disagreements
MIN_DISAGREEMENTS = 5  # below this many disagreements the flag is not decided


def _usable(v: Any) -> bool:
    return v is not None and v not in ABSTAIN


def _stat(
    ref: list[Any],
    judge: list[Any],
    scale: Scale,
    statistic: str,
    settings: Settings,
    clusters: np.ndarray | None,
) -> Estimate:
    b = bootstrap_pairwise(
        _codes(scale, ref),
        _codes(scale, judge),
        k=scale.k,
        seed=settings.seed,
        statistic=statistic,  # type: ignore[arg-type]
        n_resamples=settings.n_resamples,
        confidence=settings.confidence,
        clusters=clusters,
    )
    return b.as_estimate()


def _followed(
    a: str, b: str, la: dict[str, Any], lb: dict[str, Any], cons: dict[str, Any]
) -> ConsensusFollowed:
    """On the items where experts a and b both gave a usable label and disagree (and the
    consensus has one): how often the consensus equals a's label, b's, or neither."""
    items = sorted(
        i
        for i in set(la) & set(lb)
        if _usable(la[i]) and _usable(lb[i]) and la[i] != lb[i] and _usable(cons.get(i))
    )
    counts = {a: 0, b: 0, "neither": 0}
    for i in items:
        if cons[i] == la[i]:
            counts[a] += 1
        elif cons[i] == lb[i]:
            counts[b] += 1
        else:
            counts["neither"] += 1
    shared = sum(1 for i in set(la) & set(lb) if _usable(la[i]) and _usable(lb[i]))
    return _verdict(a, b, counts, shared)


def _verdict(a: str, b: str, counts: dict[str, int], shared: int) -> ConsensusFollowed:
    """Whom the consensus followed on n disagreements of experts a and b (out of `shared`
    labels both gave), and the flag."""
    n = sum(counts.values())
    top = max((a, b), key=lambda r: counts[r])
    if shared == 0:
        close, why = None, "the two experts labeled nothing in common"
    elif n == 0:
        close, why = None, "the two experts never disagree here"
    elif n < MIN_DISAGREEMENTS:
        close = None
        why = f"too few disagreements to tell (n={n}, need {MIN_DISAGREEMENTS})"
    else:
        close = counts[top] / n >= CLOSE_SHARE
        why = f"consensus followed {top} on {counts[top]} of {n} disagreements" + (
            " — it is close to that expert's labels" if close else ""
        )
    return ConsensusFollowed(
        experts=[a, b],
        n_shared=shared,
        n_disagreements=n,
        followed=counts,
        closest=top if n else None,
        closest_share=proportion(counts[top], n).as_figure(),
        close_to_one_expert=close,
        explanation=why,
    )


def _criterion(
    c: Criterion, gold: GoldSet, judgments: dict[str, Judgment], settings: Settings
) -> ExpertsCriterion:
    scale = scale_of(c)
    statistic = "weighted_kappa_linear" if scale.level == "ordinal" else "cohen_kappa"
    items = gold.item_ids
    clusters = (
        np.asarray([gold.items[i].case for i in items], dtype=object)
        if settings.cluster_by_case
        else None
    )
    judge: list[Any] = []
    for i in items:
        j = judgments.get(i)
        judge.append(j.label(c.id) if j is not None and j.outcome == "verdict" else None)
    refs = [*sorted(gold.experts), CONSENSUS]
    labels = {r: gold.labels_by(r, c.id) for r in refs}
    judge_vs = {
        r: _stat([labels[r].get(i) for i in items], judge, scale, statistic, settings, clusters)
        for r in refs
    }
    pairs = [
        _followed(a, b, labels[a], labels[b], labels[CONSENSUS])
        for a, b in combinations(sorted(gold.experts), 2)
    ]
    return ExpertsCriterion(
        criterion=c.id, statistic=statistic, judge_vs=judge_vs, consensus_followed=pairs
    )


def expert_comparison(
    gold: GoldSet, rubric: Rubric, judgments: dict[str, Judgment], settings: Settings
) -> ExpertsSection:
    """The `experts` section of the calibration report."""
    criteria = [_criterion(c, gold, judgments, settings) for c in rubric.criteria]
    overall = []
    for a, b in combinations(sorted(gold.experts), 2):
        counts = {a: 0, b: 0, "neither": 0}
        shared = 0
        for c in criteria:
            for p in c.consensus_followed:
                if p.experts == [a, b]:
                    for k, v in p.followed.items():
                        counts[k] += v
                    shared += p.n_shared or 0
        overall.append(_verdict(a, b, counts, shared))
    return ExpertsSection(
        raters=sorted(gold.experts),
        close_share=CLOSE_SHARE,
        min_disagreements=MIN_DISAGREEMENTS,
        note="The judge against each expert's own labels and against the consensus (same "
        "statistic and bootstrap as the main table). 'close to one expert': the consensus "
        f"sided with one expert on at least {CLOSE_SHARE:.0%} of the two experts' "
        f"disagreements (decided from {MIN_DISAGREEMENTS} disagreements on).",
        criteria=criteria,
        overall=overall,
    )


def _fmt(s: dict[str, Any]) -> str:
    if s.get("estimate") is None:
        return f"undefined ({s.get('estimate_undefined_reason') or 'no usable pair'}, n={s['n']})"
    ci = s.get("ci")
    interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else " [CI undefined]"
    return f"{s['estimate']:.2f}{interval} (n={s['n']})"


def _share(f: dict[str, Any]) -> str:
    """'96% [80%, 99%], n=24' for a Wilson-interval proportion."""
    ci = f" [{f['ci95'][0]:.0%}, {f['ci95'][1]:.0%}]" if f.get("ci95") else ""
    return f"{f['value']:.0%}{ci}, n={f['n']}"


def experts_lines(r: dict[str, Any]) -> list[str]:
    """Plain-text lines for the Markdown, HTML and terminal reports: the pooled follow counts
    with their flag, then per criterion the judge against each expert and the consensus."""
    e = r.get("experts")
    if not e:
        return []
    out = []
    for p in e["overall"]:
        if not p["n_shared"]:
            continue  # raters who labeled different items: nothing to compare
        a, b = p["experts"]
        n = p["n_disagreements"]
        flag = {
            True: f"the consensus is close to {p['closest']}'s labels",
            False: "the consensus does not echo either expert",
            None: "too few disagreements to tell",
        }[p["close_to_one_expert"]]
        out.append(
            f"Adjudication, all criteria: {a} and {b} disagreed on {n} labels; the consensus "
            f"followed {a} on {p['followed'][a]}, {b} on {p['followed'][b]}, neither on "
            f"{p['followed']['neither']}"
            + (f" ({p['closest']}: {_share(p['closest_share'])})" if n else "")
            + f" — {flag}."
        )
    for c in e["criteria"]:
        vs = "; ".join(
            f"{'consensus' if k == CONSENSUS else k} {_fmt(s)}" for k, s in c["judge_vs"].items()
        )
        close = [
            f"consensus close to {p['closest']} ({p['followed'][p['closest']]} of "
            f"{p['n_disagreements']} disagreements, {_share(p['closest_share'])})"
            for p in c["consensus_followed"]
            if p["close_to_one_expert"]
        ]
        out.append(f"{c['criterion']}: judge vs {vs}" + (f" — {'; '.join(close)}" if close else ""))
    return out
