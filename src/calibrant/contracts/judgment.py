"""Judge configurations and judgments (the judge's verdicts on communication)."""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, Field

from .common import Contract, Id, LabelValue, content_hash

__all__ = [
    "JUDGMENT_SCHEMA_VERSION",
    "JudgeOutcome",
    "JUDGE_OUTCOMES",
    "FINAL_OUTCOMES",
    "JudgeConfig",
    "CriterionJudgment",
    "Judgment",
]

JUDGMENT_SCHEMA_VERSION = 1

JudgeOutcome = Literal[
    "verdict", "unparseable", "refusal", "provider_error", "timeout", "rate_limited"
]
JUDGE_OUTCOMES: tuple[str, ...] = JudgeOutcome.__args__  # type: ignore[attr-defined]
FINAL_OUTCOMES = frozenset({"verdict", "unparseable", "refusal"})
"""Outcomes where the model answered: cached and never asked again. The others are retried on
the next run (the model never answered)."""


class JudgeConfig(Contract):
    """What identifies a judge: change any field but the endpoint URL and it is another judge
    (another hash)."""

    model: str = Field(min_length=1, description="litellm model string, e.g. openai/gpt-4o-mini.")
    api_base: str | None = Field(default=None, description="OpenAI-compatible endpoint, if any.")
    prompt_template_version: str = Field(description="Version of the judge prompt template.")
    rubric_hash: str = Field(description="Content hash of the rubric.")
    temperature: float = Field(default=0.0, ge=0, description="Sampling temperature.")
    max_tokens: int = Field(default=600, ge=16, description="Max output tokens per call.")
    top_p: float | None = Field(default=None, gt=0, le=1, description="Nucleus sampling p.")
    seed: int | None = Field(default=None, description="Sampling seed passed to the model.")
    datamark: bool = Field(default=False, description="Datamark untrusted text (spotlighting).")
    rationale_max_chars: int = Field(
        default=160, ge=16, le=2000, description="Longest rationale the answer schema allows."
    )

    @property
    def hash(self) -> str:
        """Content hash of the configuration: the judge's identity in the cache and reports.

        The endpoint URL is left out: the same model with the same settings served at another
        address (a new port, a proxy, credentials in the URL) is the same judge, and its cached
        answers are reused."""
        return content_hash(self.model_copy(update={"api_base": None}))


class CriterionJudgment(Contract):
    """The judge's answer on one criterion."""

    criterion: Id = Field(description="Rubric criterion id.")
    label: LabelValue = Field(
        description="A scale level, not_applicable, or insufficient_evidence (an abstention)."
    )
    rationale: str = Field(default="", description="The judge's one-sentence rationale.")
    evidence: list[str] = Field(default_factory=list, description="Evidence ids cited.")
    invalid_evidence: list[str] = Field(
        default_factory=list, description="Cited ids that are not in the evidence block."
    )


class Judgment(Contract):
    """One judge call's result for one transcript. A failure is an outcome, never a low score."""

    schema_version: Literal[1] = Field(default=1, description="Judgment schema version.")
    transcript_id: Id = Field(description="Transcript judged.")
    transcript_hash: str = Field(description="Content hash of the transcript judged.")
    judge_hash: str = Field(description="Content hash of the judge configuration.")
    judge: JudgeConfig = Field(description="The judge configuration.")
    sample_index: int = Field(ge=0, description="Sample number (0 for the first).")
    outcome: JudgeOutcome = Field(
        description="verdict, unparseable, refusal, provider_error, timeout or rate_limited."
    )
    criteria: list[CriterionJudgment] = Field(
        default_factory=list, description="Per-criterion answers; empty unless outcome=verdict."
    )
    error: str | None = Field(default=None, description="What went wrong, for other outcomes.")
    raw: str | None = Field(default=None, description="Raw model output when unparseable.")
    attempts: int = Field(ge=0, description="Calls made (retries included).")
    latency_ms: float = Field(ge=0, description="Wall time of the judgment, all attempts.")
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens (last attempt).")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens.")
    cached_tokens: int = Field(default=0, ge=0, description="Prompt tokens served from cache.")
    cost_usd: float | None = Field(default=None, ge=0, description="Cost; null when unknown.")
    created_at: AwareDatetime = Field(description="When the judgment was made (UTC).")

    def label(self, criterion: str) -> str | int | None:
        """The label given to one criterion, or None."""
        for c in self.criteria:
            if c.criterion == criterion:
                return c.label
        return None
