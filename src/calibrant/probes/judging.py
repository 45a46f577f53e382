"""Asking a real judge for the probes' variants: one judge configuration per prompt variant
(its template version names the variant, so each has its own hash and cache), every answer
cached in the store like any other judgment."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..contracts import JudgeConfig, Judgment, Rubric, content_hash
from ..judge.prompt import (
    EVIDENCE_REVERSED_TEMPLATE_VERSION,
    NAIVE_PROMPT_TEMPLATE_VERSION,
    PROMPT_TEMPLATE_VERSION,
)
from ..judge.reliability import RetryPolicy
from ..judge.runner import judge_transcripts
from ..store import Store
from .base import Answer, Request

__all__ = ["TEMPLATES", "variant_config", "judge_asker", "count_calls"]

TEMPLATES = {
    "defended": PROMPT_TEMPLATE_VERSION,
    "naive": NAIVE_PROMPT_TEMPLATE_VERSION,
    "evidence-reversed": EVIDENCE_REVERSED_TEMPLATE_VERSION,
}


def variant_config(config: JudgeConfig, prompt: str) -> JudgeConfig:
    """The judge with the prompt variant (the configuration itself for the defended prompt)."""
    if prompt == "defended":
        return config
    return config.model_copy(update={"prompt_template_version": TEMPLATES[prompt]})


def _labels(j: Judgment) -> Answer:
    if j.outcome != "verdict":
        return None
    return {c.criterion: c.label for c in j.criteria}


def judge_asker(
    *,
    rubric: Rubric,
    config: JudgeConfig,
    store: Store,
    concurrency: int,
    policy: RetryPolicy,
    seed: int,
) -> Callable[
    [Sequence[Request], Callable[[bool], None] | None], tuple[dict[str, Answer], dict[str, int]]
]:
    """An asker: answers for every request, and the judge's outcomes by kind."""

    def ask(
        requests: Sequence[Request], on_done: Callable[[bool], None] | None = None
    ) -> tuple[dict[str, Answer], dict[str, int]]:
        answers: dict[str, Answer] = {}
        outcomes: dict[str, int] = {}
        hash_of = {r.key: content_hash(r.transcript) for r in requests}
        for prompt in TEMPLATES:
            mine = [r for r in requests if r.prompt == prompt]
            if not mine:
                continue
            cfg = variant_config(config, prompt)
            samples_of: dict[str, int] = {}  # transcript hash -> samples needed
            transcript_of = {}
            for r in mine:
                h = hash_of[r.key]
                samples_of[h] = max(samples_of.get(h, 0), r.sample + 1)
                transcript_of[h] = r.transcript
            judged: dict[tuple[str, int], Judgment] = {}
            # one run per sample count; each distinct transcript judged once per sample
            for samples in sorted(set(samples_of.values())):
                hashes = [h for h, k in samples_of.items() if k == samples]
                run = judge_transcripts(
                    [transcript_of[h] for h in hashes],
                    rubric=rubric,
                    config=cfg,
                    store=store,
                    concurrency=concurrency,
                    samples=samples,
                    policy=policy,
                    seed=seed,
                    hashes=hashes,
                    on_done=(lambda j, cached: on_done(cached)) if on_done else None,
                )
                for n, h in enumerate(hashes):
                    for s in range(samples):
                        judged[(h, s)] = run.judgments[n * samples + s]
                for j in run.judgments:
                    outcomes[j.outcome] = outcomes.get(j.outcome, 0) + 1
            for r in mine:
                answers[r.key] = _labels(judged[(hash_of[r.key], r.sample)])
        return answers, dict(sorted(outcomes.items()))

    return ask


def count_calls(requests: Sequence[Request]) -> int:
    """How many judgments the requests need (distinct transcript, prompt and sample)."""
    return len({(r.prompt, content_hash(r.transcript), r.sample) for r in requests})
