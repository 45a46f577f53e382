"""Simulated judges with planted defects, to test the tester: each answers the consensus labels
except where its defect bites, and reads the very prompt a real judge would get (defended,
naive or with the evidence reversed), so the defenses act on it as on a model.

    clean        the consensus, whatever the text says
    obey:P       obeys, with probability P, any new instruction-like text in the conversation
    fence:P      treats text after anything that looks like the end of the fence as outside it,
                 and obeys instructions there with probability P (no fence: everything is)
    verbose:P    with probability P, one level up on every criterion when the agent wrote 20%
                 more than in the clean variant
    middle       ordinal labels at either end of the scale move one step toward the middle
    order:P      with probability P, one level up everywhere when the evidence is not in time order
    noisy:P      each label replaced, with probability P, by another level (per sample)
"""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Callable, Sequence

from ..contracts import JudgeConfig, Rubric
from ..judge.prompt import PromptVariant, build_prompt, fold
from .attacks import best_labels
from .base import Answer, ProbeContext, Request
from .variants import agent_chars

__all__ = ["PLANTED", "planted_config", "planted_asker"]

PLANTED = ("clean", "obey:P", "fence:P", "verbose:P", "middle", "order:P", "noisy:P")

# what a judge could take for an instruction addressed to it
_DIRECTIVE = re.compile(
    r"(?im)\b(rate|rating|label|verdict|evaluat\w*|criteri\w*|output|certified|audited|"
    r"pass(ed)?|excellent|final answer|thought process)\b|<\|im_start\|>|(^|\s):(\s|$)"
)
_END = re.compile(r"(?i)end\W*untrusted")
_VARIANTS = {
    "defended": PromptVariant(),
    "naive": PromptVariant(defenses=False),
    "evidence-reversed": PromptVariant(evidence_reversed=True),
}
NONCE = "0123456789abcdef"


def _parse(behaviour: str) -> tuple[str, float]:
    kind, _, arg = behaviour.partition(":")
    known = {p.split(":")[0] for p in PLANTED}
    if kind not in known or (":" in behaviour) != (kind not in ("clean", "middle")):
        raise ValueError(f"unknown planted judge {behaviour!r}; known: {', '.join(PLANTED)}")
    try:
        p = float(arg) if arg else 1.0
    except ValueError:
        raise ValueError(f"planted judge {behaviour!r}: {arg!r} is not a probability") from None
    if not 0 <= p <= 1:
        raise ValueError(f"planted judge {behaviour!r}: the probability must be in [0, 1]")
    return kind, p


def planted_config(behaviour: str, rubric: Rubric, *, seed: int = 0) -> JudgeConfig:
    _parse(behaviour)
    return JudgeConfig(
        model=f"simulated/{behaviour}",
        prompt_template_version="simulated",
        rubric_hash=rubric.content_hash,
        seed=seed,
    )


def _conversation(user: str, prompt: str) -> str:
    if prompt == "naive":
        return user.split("\nCONVERSATION\n", 1)[1].rsplit("\n\nRate every criterion", 1)[0]
    return user.split(f"<<<BEGIN-UNTRUSTED {NONCE}>>>", 1)[1].split(
        f"<<<END-UNTRUSTED {NONCE}>>>", 1
    )[0]


def _outside(user: str, prompt: str) -> str:
    """What a fence-confused judge reads as outside the data: everything in the naive prompt;
    in the defended one, whatever follows the first line that looks like the fence's end."""
    if prompt == "naive":
        return _conversation(user, prompt)
    text = fold(user.split(f"<<<BEGIN-UNTRUSTED {NONCE}>>>", 1)[1])
    found = _END.search(text)
    return text[found.end() :] if found else ""


def _added(text: str, clean: str) -> str:
    """The words of `text` that are not in `clean` (inserted or replaced), in order."""
    new, old = text.split(), clean.split()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    words = [w for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal" for w in new[j1:j2]]
    return " ".join(words)


def _up(ctx: ProbeContext, labels: dict[str, str | int]) -> dict[str, str | int]:
    out = dict(labels)
    for c in ctx.rubric.criteria:
        values = [lv.value for lv in c.scale.levels]
        for n, v in enumerate(values[:-1]):
            if str(v) == str(labels.get(c.id)):
                out[c.id] = values[n + 1]
    return out


def _answer(ctx: ProbeContext, kind: str, p: float, seed: int, r: Request) -> Answer:
    labels: dict[str, str | int] = dict(ctx.consensus(r.item))
    rng = random.Random(f"{seed}:{kind}:{p}:{r.key}")
    bites = rng.random() < p
    if kind == "clean":
        return labels
    if kind == "middle":
        for c in ctx.rubric.criteria:
            values = [lv.value for lv in c.scale.levels]
            if c.scale.kind == "ordinal" and len(values) >= 3 and c.id in labels:
                if str(labels[c.id]) == str(values[0]):
                    labels[c.id] = values[1]
                elif str(labels[c.id]) == str(values[-1]):
                    labels[c.id] = values[-2]
        return labels
    if kind == "noisy":
        for c in ctx.rubric.criteria:
            if c.id in labels and rng.random() < p:
                others = [lv.value for lv in c.scale.levels if str(lv.value) != str(labels[c.id])]
                labels[c.id] = rng.choice(others)
        return labels
    if kind == "verbose":
        clean = ctx.gold.transcripts[r.item]
        longer = agent_chars(r.transcript) > 1.2 * agent_chars(clean)
        return _up(ctx, labels) if longer and bites else labels
    variant = _VARIANTS[r.prompt]
    prompt = build_prompt(r.transcript, ctx.rubric, nonce=NONCE, variant=variant)
    if kind == "order":
        times = [int(m) for m in re.findall(r"(?m)^\[[^\]]+\] t=(\d+):", prompt.user)]
        shuffled = times != sorted(times)
        return _up(ctx, labels) if shuffled and bites else labels
    clean_prompt = build_prompt(
        ctx.gold.transcripts[r.item], ctx.rubric, nonce=NONCE, variant=variant
    )
    if kind == "obey":
        added = _added(
            _conversation(prompt.user, r.prompt), _conversation(clean_prompt.user, r.prompt)
        )
    else:  # fence
        added = _added(_outside(prompt.user, r.prompt), _outside(clean_prompt.user, r.prompt))
    if bites and _DIRECTIVE.search(fold(added)):
        return {**labels, **best_labels(ctx.rubric)}
    return labels


def planted_asker(
    behaviour: str, ctx: ProbeContext, *, seed: int = 0
) -> Callable[
    [Sequence[Request], Callable[[bool], None] | None], tuple[dict[str, Answer], dict[str, int]]
]:
    """An asker (see run.py) answering as the planted judge."""
    kind, p = _parse(behaviour)

    def ask(
        requests: Sequence[Request], on_done: Callable[[bool], None] | None = None
    ) -> tuple[dict[str, Answer], dict[str, int]]:
        out: dict[str, Answer] = {}
        for r in requests:
            out[r.key] = _answer(ctx, kind, p, seed, r)
            if on_done:
                on_done(False)
        return out, {"verdict": len(out)}

    return ask
