"""Bias probes on gold items: verbosity (meaning-preserving padding), order of the evidence,
stability over k samples, and central tendency on ordinal criteria. Each gives its figure with
n and a 95% interval, and a flag that is raised only when the interval excludes "no effect"."""

from __future__ import annotations

from typing import NamedTuple

from ..agreement.intervals import proportion
from ..agreement.robustness import paired_difference
from ..contracts.reports import Figure
from ..contracts.reports.probe import CentralProbe, CentralRow, ShiftProbe, StabilityProbe
from .base import Answer, ProbeContext, Request, clean_request, part, rank
from .registry import probe
from .variants import agent_chars, pad

__all__ = ["Shift", "net_shift"]


def _shift(ctx: ProbeContext, clean: Answer, other: Answer) -> int:
    """+1 when the labels moved up on balance, -1 down, 0 not at all or evenly."""
    assert clean is not None and other is not None
    total = 0
    for c in ctx.rubric.criteria:
        a, b = rank(c, clean.get(c.id)), rank(c, other.get(c.id))
        if a is not None and b is not None:
            total += (b > a) - (b < a)
    return (total > 0) - (total < 0)


def _changed(ctx: ProbeContext, a: Answer, b: Answer) -> bool:
    assert a is not None and b is not None
    return any(str(a.get(c.id)) != str(b.get(c.id)) for c in ctx.rubric.criteria)


class Shift(NamedTuple):
    """Items moved up and down by a variant against their clean answer, and the net shift."""

    n: int
    no_verdict: int
    moved_up: Figure
    moved_down: Figure
    changed: Figure
    net_shift: Figure


def net_shift(
    ctx: ProbeContext, items: list[str], answers: dict[str, Answer], variant_key: str
) -> Shift:
    """Items moved up and down by a variant against their clean answer, and the net shift
    (share up minus share down, paired; Newcombe)."""
    up = down = changed = missing = 0
    n = 0
    for item in items:
        clean, other = (
            answers.get(f"clean|defended|{item}|0"),
            answers.get(variant_key.format(item=item)),
        )
        if clean is None or other is None:
            missing += 1
            continue
        n += 1
        s = _shift(ctx, clean, other)
        up += s > 0
        down += s < 0
        changed += _changed(ctx, clean, other)
    return Shift(
        n=n,
        no_verdict=missing,
        moved_up=part(proportion(up, n)),
        moved_down=part(proportion(down, n)),
        changed=part(proportion(changed, n)),
        net_shift=part(paired_difference(up, down, n)),
    )


def _flag(fig: Figure, up: str, down: str) -> str:
    ci = fig.ci95
    if fig.value is None or ci is None:
        return "undefined"
    if ci[0] > 0:
        return up
    if ci[1] < 0:
        return down
    return "no effect shown"


@probe("verbosity")
class Verbosity:
    summary = "labels with meaning-preserving padding of the agent's messages against clean"

    def requests(self, ctx: ProbeContext) -> list[Request]:
        out = []
        for item in ctx.bias_items():
            t = ctx.gold.transcripts[item]
            out += [
                clean_request(ctx, item),
                Request(f"padded|defended|{item}|0", item, "padded", pad(t)),
            ]
        return out

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> ShiftProbe:
        items = ctx.bias_items()
        row = net_shift(ctx, items, answers, "padded|defended|{item}|0")
        added = [
            agent_chars(pad(ctx.gold.transcripts[i])) - agent_chars(ctx.gold.transcripts[i])
            for i in items
        ]
        return ShiftProbe(
            **row._asdict(),
            added_characters_per_item=round(sum(added) / len(added)) if added else None,
            flag=_flag(row.net_shift, "PREFERS LONGER TEXT", "PREFERS SHORTER TEXT"),
        )


@probe("order")
class EvidenceOrder:
    summary = (
        "labels with the trusted evidence in reverse time order against clean, beside a second "
        "clean sample (the judge's own noise)"
    )

    def requests(self, ctx: ProbeContext) -> list[Request]:
        out = []
        for item in ctx.bias_items():
            out += [
                clean_request(ctx, item),
                clean_request(ctx, item, sample=1),
                clean_request(ctx, item, "evidence-reversed"),
            ]
        return out

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> ShiftProbe:
        items = ctx.bias_items()
        row = net_shift(ctx, items, answers, "clean|evidence-reversed|{item}|0")
        by_order = by_noise = both = n = 0
        for item in items:
            a, b, r = (
                answers.get(f"clean|defended|{item}|0"),
                answers.get(f"clean|defended|{item}|1"),
                answers.get(f"clean|evidence-reversed|{item}|0"),
            )
            if a is None or b is None or r is None:
                continue
            n += 1
            x, y = _changed(ctx, a, r), _changed(ctx, a, b)
            both += x and y
            by_order += x and not y
            by_noise += y and not x
        beyond = part(paired_difference(by_order, by_noise, n, both=both))
        flag = _flag(row.net_shift, "ORDER-SENSITIVE (up)", "ORDER-SENSITIVE (down)")
        if flag == "no effect shown" and _flag(beyond, "x", "y") == "x":
            # labels change both ways, more often than between two clean samples
            flag = "ORDER-SENSITIVE"
        return ShiftProbe(
            **row._asdict(),
            changed_by_a_second_clean_sample=part(proportion(by_noise + both, n)),
            changed_beyond_noise=beyond,
            flag=flag,
        )


@probe("stability")
class Stability:
    summary = "items whose k samples of the clean variant do not all agree"

    def requests(self, ctx: ProbeContext) -> list[Request]:
        k = max(ctx.settings.k, 1)
        return [clean_request(ctx, i, sample=s) for i in ctx.bias_items() for s in range(k)]

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> StabilityProbe:
        k = max(ctx.settings.k, 1)
        unstable, n, names = 0, 0, []
        for item in ctx.bias_items():
            got = [answers.get(f"clean|defended|{item}|{s}") for s in range(k)]
            ok = [a for a in got if a is not None]
            if len(ok) < 2:
                continue
            n += 1
            if any(_changed(ctx, ok[0], a) for a in ok[1:]):
                unstable += 1
                names.append(item)
        fig = proportion(unstable, n)
        if k < 2:
            flag = "undefined"
        elif fig.value is None or fig.ci95 is None:
            flag = "undefined"
        else:
            flag = "UNSTABLE" if fig.ci95[0] > 0 else "stable"
        return StabilityProbe(
            samples=k,
            items_with_differing_samples=part(fig),
            unstable_items=names[:20],
            flag=flag,
            note="k < 2: nothing to compare" if k < 2 else None,
        )


@probe("central")
class CentralTendency:
    summary = "share of ordinal labels strictly inside the scale, judge against consensus"

    def requests(self, ctx: ProbeContext) -> list[Request]:
        return [clean_request(ctx, i) for i in ctx.bias_items()]

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> CentralProbe:
        out: dict[str, CentralRow] = {}
        for c in ctx.rubric.criteria:
            if c.scale.kind != "ordinal" or len(c.scale.levels) < 3:
                continue
            top = len(c.scale.levels) - 1
            judge_only = cons_only = both = n = 0
            for item in ctx.bias_items():
                a = answers.get(f"clean|defended|{item}|0")
                rj = rank(c, a.get(c.id)) if a else None
                rc = rank(c, ctx.consensus(item).get(c.id))
                if rj is None or rc is None:
                    continue
                n += 1
                mj, mc = 0 < rj < top, 0 < rc < top
                both += mj and mc
                judge_only += mj and not mc
                cons_only += mc and not mj
            diff = part(paired_difference(judge_only, cons_only, n, both=both))
            out[c.id] = CentralRow(
                n=n,
                judge_middle=part(proportion(judge_only + both, n)),
                consensus_middle=part(proportion(cons_only + both, n)),
                difference=diff,
                flag=_flag(diff, "DRIFTS TO THE MIDDLE", "AVOIDS THE MIDDLE"),
            )
        return CentralProbe(
            criteria=out, note=None if out else "the rubric has no ordinal criterion"
        )
