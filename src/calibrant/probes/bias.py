"""Bias probes on gold items: verbosity (meaning-preserving padding), order of the evidence,
stability over k samples, and central tendency on ordinal criteria. Each gives its figure with
n and a 95% interval, and a flag that is raised only when the interval excludes "no effect"."""

from __future__ import annotations

from typing import Any

from ..agreement.intervals import proportion
from ..agreement.robustness import paired_difference
from .base import Answer, ProbeContext, Request, clean_request, rank
from .registry import probe
from .variants import agent_chars, pad

__all__ = ["net_shift"]


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


def net_shift(
    ctx: ProbeContext, items: list[str], answers: dict[str, Answer], variant_key: str
) -> dict[str, Any]:
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
    return {
        "n": n,
        "no_verdict": missing,
        "moved_up": proportion(up, n).as_figure().json_data(),
        "moved_down": proportion(down, n).as_figure().json_data(),
        "changed": proportion(changed, n).as_figure().json_data(),
        "net_shift": paired_difference(up, down, n).as_figure().json_data(),
    }


def _flag(fig: dict[str, Any], up: str, down: str) -> str:
    ci = fig["ci95"]
    if fig["value"] is None or ci is None:
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

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> dict[str, Any]:
        items = ctx.bias_items()
        row = net_shift(ctx, items, answers, "padded|defended|{item}|0")
        added = [
            agent_chars(pad(ctx.gold.transcripts[i])) - agent_chars(ctx.gold.transcripts[i])
            for i in items
        ]
        row["added_characters_per_item"] = round(sum(added) / len(added)) if added else None
        row["flag"] = _flag(row["net_shift"], "PREFERS LONGER TEXT", "PREFERS SHORTER TEXT")
        return row


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

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> dict[str, Any]:
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
        beyond = paired_difference(by_order, by_noise, n, both=both).as_figure().json_data()
        row["changed_by_a_second_clean_sample"] = (
            proportion(by_noise + both, n).as_figure().json_data()
        )
        row["changed_beyond_noise"] = beyond
        flag = _flag(row["net_shift"], "ORDER-SENSITIVE (up)", "ORDER-SENSITIVE (down)")
        if flag == "no effect shown" and _flag(beyond, "x", "y") == "x":
            # labels change both ways, more often than between two clean samples
            flag = "ORDER-SENSITIVE"
        row["flag"] = flag
        return row


@probe("stability")
class Stability:
    summary = "items whose k samples of the clean variant do not all agree"

    def requests(self, ctx: ProbeContext) -> list[Request]:
        k = max(ctx.settings.k, 1)
        return [clean_request(ctx, i, sample=s) for i in ctx.bias_items() for s in range(k)]

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> dict[str, Any]:
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
        return {
            "samples": k,
            "items_with_differing_samples": fig.as_figure().json_data(),
            "unstable_items": names[:20],
            "flag": flag,
            "note": "k < 2: nothing to compare" if k < 2 else None,
        }


@probe("central")
class CentralTendency:
    summary = "share of ordinal labels strictly inside the scale, judge against consensus"

    def requests(self, ctx: ProbeContext) -> list[Request]:
        return [clean_request(ctx, i) for i in ctx.bias_items()]

    def measure(self, ctx: ProbeContext, answers: dict[str, Answer]) -> dict[str, Any]:
        out: dict[str, Any] = {}
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
            diff = paired_difference(judge_only, cons_only, n, both=both)
            out[c.id] = {
                "n": n,
                "judge_middle": proportion(judge_only + both, n).as_figure().json_data(),
                "consensus_middle": proportion(cons_only + both, n).as_figure().json_data(),
                "difference": diff.as_figure().json_data(),
                "flag": _flag(
                    diff.as_figure().json_data(), "DRIFTS TO THE MIDDLE", "AVOIDS THE MIDDLE"
                ),
            }
        return {"criteria": out, "note": None if out else "the rubric has no ordinal criterion"}
