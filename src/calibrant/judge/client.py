"""One judgment: build the prompt, call the model through litellm under the retry owner, and end
in exactly one outcome of the closed set. A failure is recorded as such, never as a low score."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from ..contracts import JudgeConfig, Judgment, Rubric, Transcript, content_hash
from ..contracts.judgment import mask_url, url_secrets
from ..errors import JudgeAuthError, JudgeError
from .answer import Unparseable, answer_schema, parse_answer
from .embedded_check import EmbeddedBuildCrashed
from .embedded_request import CONTENT_FREE_KEY, INDEPENDENT_KEY, LABEL_PRIOR_KEY
from .llm_setup import endpoint_kwargs, is_unpriced
from .model_names import NO_PROVIDER, no_provider_message, not_found_message
from .prompt import JudgePrompt, build_prompt, content_free_prompts, prompt_variant
from .reliability import Classified, RetryPolicy, auth_failure_message, classify, wait_for

__all__ = [
    "judge_once",
    "prepare_call",
    "ask",
    "PreparedCall",
    "call_kwargs",
    "redact_secrets",
    "connection_refused",
]

_SECRET_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET")


def redact_secrets(text: str, extra: list[str] | tuple[str, ...] = ()) -> str:
    """Remove from `text` the values of secret-looking environment variables and the `extra`
    secrets (the credentials of the endpoint URL)."""
    for name, value in os.environ.items():
        if name.upper().endswith(_SECRET_SUFFIXES) and value and len(value) >= 6:
            text = text.replace(value, "***")
    for value in sorted(extra, key=len, reverse=True):
        if len(value) >= 3:
            text = text.replace(value, "***")
    return text


def call_kwargs(
    config: JudgeConfig, messages: list[dict[str, str]], schema: dict[str, Any], policy: RetryPolicy
) -> dict[str, Any]:
    """litellm arguments for one call. Provider and SDK retries are off: calibrant retries."""
    kwargs: dict[str, Any] = {
        "model": config.model,
        "messages": messages,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "timeout": policy.timeout_s,
        "num_retries": 0,
        "max_retries": 0,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "judgment", "schema": schema, "strict": False},
        },
    }
    kwargs.update(endpoint_kwargs(config.model, config.endpoint))
    if config.top_p is not None:
        kwargs["top_p"] = config.top_p
    if config.seed is not None:
        kwargs["seed"] = config.seed
    return kwargs


def _in_chain(exc: BaseException, found: Callable[[BaseException], bool]) -> BaseException | None:
    """The first exception in `exc`'s chain (causes, contexts, what litellm wraps) for which
    `found` is true."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if found(e):
            return e
        todo += [e.__cause__, e.__context__, getattr(e, "original_exception", None)]
        todo += [a for a in getattr(e, "args", ()) if isinstance(a, BaseException)]
    return None


def connection_refused(exc: BaseException) -> bool:
    """True when the call failed because nothing listens at the endpoint (the connection was
    refused): retrying cannot help, and every other call of the run would fail the same way."""

    def refused(e: BaseException) -> bool:
        text = str(e)
        return isinstance(e, ConnectionRefusedError) or (
            "Connection refused" in text or "Connect call failed" in text
        )

    return _in_chain(exc, refused) is not None


def build_crashed(exc: BaseException) -> EmbeddedBuildCrashed | None:
    """The embedded model's build crashing on this CPU, if that is why the call failed: every
    other call would fail the same way."""
    found = _in_chain(exc, lambda e: isinstance(e, EmbeddedBuildCrashed))
    return found if isinstance(found, EmbeddedBuildCrashed) else None


def _refused_message(config: JudgeConfig) -> str:
    where = mask_url(config.endpoint) or f"the default endpoint of {config.model}"
    return (
        f"nothing answers at {where} (connection refused): start the judge's server there, or "
        "give the address it listens on (--api-base, or api_base in the saved judge)"
    )


def _model_message(litellm: Any, config: JudgeConfig, c: Classified) -> str:
    if NO_PROVIDER in c.message:
        return no_provider_message(litellm, config.model)
    return not_found_message(litellm, config.model, config.api_base, c.message)


def _usage(response: Any) -> tuple[int, int, int]:
    usage = getattr(response, "usage", None)
    if usage is None:
        return 0, 0, 0
    details = getattr(usage, "prompt_tokens_details", None)
    return (
        int(getattr(usage, "prompt_tokens", 0) or 0),
        int(getattr(usage, "completion_tokens", 0) or 0),
        int(getattr(details, "cached_tokens", 0) or 0),
    )


def _cost(litellm: ModuleType, response: Any, model: str | None = None) -> float | None:
    """litellm's own cost of the call (computed during the call; None when unpriced)."""
    if model is not None and is_unpriced(model):
        return None  # litellm was told the model so as not to look it up: the price is unknown
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:
        value = hidden["response_cost"]
        return None if value is None else float(value)
    try:
        return float(litellm.completion_cost(completion_response=response))
    except Exception:
        return None  # unknown price: never guessed


@dataclass
class PreparedCall:
    """One call, ready to send: its litellm arguments and what reading the answer needs. Built
    before the call takes a concurrency slot, so the slot is busy only while the model works."""

    kwargs: dict[str, Any]
    evidence_ids: list[str]
    labels_only: bool
    secrets: list[str]
    identity: dict[str, Any]  # the Judgment fields that name the item and the judge


def judge_prompt(transcript: Transcript, rubric: Rubric, config: JudgeConfig) -> JudgePrompt:
    """The prompt this judge sends for `transcript` (a fresh nonce): the call's, and the one a
    label prior is fitted on (fit_prior)."""
    return build_prompt(
        transcript,
        rubric,
        datamark=config.datamark,
        labels_only=config.answer_format == "labels",
        untrusted_max_chars=config.untrusted_max_chars,
        variant=prompt_variant(config.prompt_template_version),
    )


def prepare_call(
    transcript: Transcript,
    *,
    rubric: Rubric,
    config: JudgeConfig,
    sample_index: int,
    policy: RetryPolicy,
    transcript_hash: str | None = None,
    judge_hash: str | None = None,
) -> PreparedCall:
    """The prompt (a fresh context, a fresh nonce), the answer schema and the call arguments."""
    labels_only = config.answer_format == "labels"
    prompt = judge_prompt(transcript, rubric, config)
    evidence_ids = prompt.evidence_ids
    schema = answer_schema(
        rubric,
        evidence_ids,
        rationale_max=config.rationale_max_chars,
        labels_only=labels_only,
    )
    kwargs = call_kwargs(config, prompt.messages(), schema, policy)
    if config.label_scoring == "independent":  # the embedded model: each label on its own
        kwargs["extra_body"] = {INDEPENDENT_KEY: True}
    elif config.label_scoring == "calibrated":  # ... and rebalanced by its content-free prior
        free = content_free_prompts(
            rubric,
            datamark=config.datamark,
            labels_only=labels_only,
            untrusted_max_chars=config.untrusted_max_chars,
            variant=prompt_variant(config.prompt_template_version),
        )
        kwargs["extra_body"] = {CONTENT_FREE_KEY: [p.messages() for p in free]}
    elif config.label_scoring == "fitted":  # ... and rebalanced by a prior fitted on items
        kwargs["extra_body"] = {LABEL_PRIOR_KEY: config.label_prior}
    return PreparedCall(
        kwargs=kwargs,
        evidence_ids=evidence_ids,
        labels_only=labels_only,
        secrets=url_secrets(config.endpoint),
        identity={
            "transcript_id": transcript.transcript_id,
            "transcript_hash": transcript_hash or content_hash(transcript),
            "judge_hash": judge_hash or config.hash,
            "judge": config,
            "sample_index": sample_index,
        },
    )


async def judge_once(
    transcript: Transcript,
    *,
    rubric: Rubric,
    config: JudgeConfig,
    sample_index: int,
    policy: RetryPolicy,
    litellm: ModuleType,
    rng: random.Random,
    transcript_hash: str | None = None,
) -> Judgment:
    """Judge one transcript once (a fresh context, a fresh nonce)."""
    call = prepare_call(
        transcript,
        rubric=rubric,
        config=config,
        sample_index=sample_index,
        policy=policy,
        transcript_hash=transcript_hash,
    )
    return await ask(call, rubric=rubric, config=config, policy=policy, litellm=litellm, rng=rng)


async def ask(
    call: PreparedCall,
    *,
    rubric: Rubric,
    config: JudgeConfig,
    policy: RetryPolicy,
    litellm: ModuleType,
    rng: random.Random,
) -> Judgment:
    """Send a prepared call under the retry policy; end in exactly one outcome."""
    kwargs, secrets, labels_only = call.kwargs, call.secrets, call.labels_only
    attempts = 0
    started = time.perf_counter()
    base = {**call.identity, "created_at": datetime.now(UTC)}

    def done(**fields: Any) -> Judgment:
        return Judgment(
            **base, attempts=attempts, latency_ms=(time.perf_counter() - started) * 1000, **fields
        )

    try:
        async for attempt in AsyncRetrying(
            stop=stop_after_attempt(policy.max_attempts),
            wait=wait_for(policy, rng),
            retry=retry_if_exception(lambda e: classify(e).transient and not connection_refused(e)),
            reraise=True,
        ):
            with attempt:
                attempts += 1
                response = await asyncio.wait_for(
                    litellm.acompletion(**kwargs), timeout=policy.timeout_s + 1
                )
    except Exception as exc:  # every failure becomes an outcome, with the reason
        if (crashed := build_crashed(exc)) is not None:  # stop the run: one line, how to rebuild
            raise EmbeddedBuildCrashed(str(crashed)) from None
        if connection_refused(exc):  # every other call would be refused too: stop the run
            raise JudgeError(redact_secrets(_refused_message(config), secrets)) from None
        c = classify(exc)
        if c.model:  # no call of this model string can succeed: stop the run
            raise JudgeError(redact_secrets(_model_message(litellm, config, c), secrets)) from None
        if c.auth:  # every other call would be refused too: stop the run
            raise JudgeAuthError(
                redact_secrets(
                    auth_failure_message(litellm, config.model, config.api_base, c.message),
                    secrets,
                )
            ) from None
        return done(outcome=c.outcome, error=redact_secrets(c.message, secrets))
    tokens_in, tokens_out, cached = _usage(response)
    cost = _cost(litellm, response, config.model)
    accounting = {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "cached_tokens": cached,
        "cost_usd": cost,
    }
    choice = response.choices[0]
    message = choice.message
    refusal = getattr(message, "refusal", None)
    if refusal or getattr(choice, "finish_reason", None) == "content_filter":
        return done(
            outcome="refusal",
            error=redact_secrets(str(refusal or "content filtered"), secrets),
            **accounting,
        )
    text = message.content or ""
    try:
        criteria = parse_answer(text, rubric, call.evidence_ids, labels_only=labels_only)
    except Unparseable as exc:
        return done(
            outcome="unparseable",
            error=redact_secrets(str(exc), secrets),
            raw=redact_secrets(text[:2000], secrets),
            **accounting,
        )
    return done(outcome="verdict", criteria=criteria, **accounting)
