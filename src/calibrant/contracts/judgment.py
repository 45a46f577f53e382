"""Judge configurations and judgments (the judge's verdicts on communication)."""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from pydantic import (
    AwareDatetime,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    field_validator,
    model_validator,
)

from .common import Contract, Id, LabelValue, content_hash

__all__ = [
    "JUDGMENT_SCHEMA_VERSION",
    "JudgeOutcome",
    "JUDGE_OUTCOMES",
    "FINAL_OUTCOMES",
    "JudgeConfig",
    "CriterionJudgment",
    "Judgment",
    "mask_url",
    "mask_urls_in",
    "url_secrets",
]

MASK = "***"
_SECRET_PARAM = re.compile(r"(?i)key|token|secret|pass|pwd|auth|sig|credential|session|code")


def url_secrets(url: str | None) -> list[str]:
    """The credentials written into an endpoint URL: user, password, and the values of query
    parameters whose name says they are secret (api_key, token, sig, ...)."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
        found = [parts.username or "", parts.password or ""]
    except ValueError:
        return []
    query = parse_qsl(parts.query, keep_blank_values=True)
    found += [v for k, v in query if _SECRET_PARAM.search(k)]
    return [s for s in found if s and s != MASK]


def mask_url(url: str | None) -> str | None:
    """`url` with its credentials replaced by ***: what calibrant shows, stores and hashes."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a URL calibrant can read: show nothing of it
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        who = MASK + (f":{MASK}" if parts.password is not None else "")
        netloc = f"{who}@{host}{port}" if ":" not in host else f"{who}@[{host}]{port}"
    query = "&".join(
        f"{k}={MASK}" if _SECRET_PARAM.search(k) else f"{k}={v}" if v or "=" in pair else k
        for pair in parts.query.split("&")
        if pair
        for k, _, v in [pair.partition("=")]
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{},]+")


def mask_urls_in(text: str) -> str:
    """`text` with every URL in it masked as `mask_url` does (user:password@, token query
    parameters): for error messages that quote an endpoint."""
    return _URL_IN_TEXT.sub(lambda m: mask_url(m.group(0)) or "", text)


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
    api_base: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint, if any; credentials in it (user:password@, "
        "token query parameters) are replaced by *** and kept in memory only.",
    )
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
    untrusted_max_chars: int = Field(
        default=2000,
        ge=100,
        le=100_000,
        description="Longest untrusted text (message, note, notification) shown to the judge; "
        "a longer one is cut with a mark the judge is told about.",
    )
    answer_format: Literal["full", "labels"] = Field(
        default="full",
        description="full: rationale, cited evidence ids and label per criterion; labels: the "
        "label only (fast: what a tiny model can do).",
    )
    label_scoring: Literal["independent", "calibrated", "fitted"] | None = Field(
        default=None,
        # absent when None, so the hash of every judge configured before this field is unchanged
        exclude_if=lambda value: value is None,
        description="How a labels answer's labels are picked by log-probability: absent (joint) "
        "each after the ones before it in one answer; independent: each on its own right after "
        "the prompt; calibrated: independent, each rebalanced by the labels' prior on "
        "content-free inputs (contextual calibration); fitted: independent, each rebalanced by "
        "label_prior.",
    )
    label_prior: dict[str, dict[str, float]] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="With label_scoring fitted: criterion -> label -> log of the label's mean "
        "probability on a reference set (batch calibration); a label left out is not "
        "rebalanced.",
    )
    _endpoint: str | None = PrivateAttr(default=None)

    @field_validator("api_base")
    @classmethod
    def _mask_credentials(cls, value: str | None) -> str | None:
        return mask_url(value)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_endpoint(cls, data: Any, handler: ModelWrapValidatorHandler[JudgeConfig]) -> Any:
        """The endpoint with its credentials stays in memory only (never dumped or hashed)."""
        raw = data.get("api_base") if isinstance(data, dict) else None
        config = handler(data)
        if isinstance(raw, str) and raw != config.api_base:
            config._endpoint = raw
        return config

    @property
    def endpoint(self) -> str | None:
        """The endpoint to call, credentials included: for the call, never for output."""
        return self._endpoint or self.api_base

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
