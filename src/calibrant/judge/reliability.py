"""The one retry owner for model calls (tenacity), and the closed outcome taxonomy.

Retried: 429, 5xx, timeouts, connection errors — with jitter, honouring Retry-After, within a
bounded number of attempts. Everything else fails at once; an authentication or permission
error (401/403), and a model string no call can succeed with (no provider litellm knows, or 404:
no such model there), are marked so the run can stop: every other call would fail too. litellm's
and the SDK's own retries are set to 0 at every call."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tenacity import RetryCallState

__all__ = [
    "RetryPolicy",
    "classify",
    "retry_after_seconds",
    "wait_for",
    "Classified",
    "auth_failure_message",
]


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds on one item's calls."""

    max_attempts: int = 4
    timeout_s: float = 60.0
    base_wait_s: float = 0.5
    max_wait_s: float = 20.0


@dataclass(frozen=True)
class Classified:
    """What an exception means: the outcome it maps to and whether retrying may help."""

    outcome: str  # provider_error | timeout | rate_limited | refusal
    transient: bool
    message: str
    auth: bool = False  # 401/403: the credentials are missing or refused
    # the model string: no provider litellm knows, or none by that name there (404)
    model: bool = False


def _status(exc: BaseException) -> int | None:
    for attr in ("status_code", "status"):
        v = getattr(exc, attr, None)
        if isinstance(v, int):
            return v
    resp = getattr(exc, "response", None)
    v = getattr(resp, "status_code", None)
    return v if isinstance(v, int) else None


def classify(exc: BaseException) -> Classified:
    """Map a litellm / httpx / asyncio exception to an outcome."""
    name = type(exc).__name__
    msg = f"{name}: {str(exc)[:300]}"
    status = _status(exc)
    if name in (
        "Timeout",
        "TimeoutError",
        "APITimeoutError",
        "ReadTimeout",
        "ConnectTimeout",
    ) or isinstance(exc, TimeoutError):
        return Classified("timeout", True, msg)
    if status == 429 or name == "RateLimitError":
        return Classified("rate_limited", True, msg)
    if name == "ContentPolicyViolationError":
        return Classified("refusal", False, msg)
    if status in (401, 403) or name in ("AuthenticationError", "PermissionDeniedError"):
        return Classified("provider_error", False, msg, auth=True)
    if status == 404 or name == "NotFoundError" or "LLM Provider NOT provided" in str(exc):
        return Classified("provider_error", False, msg, model=True)
    if status is not None and status >= 500:
        return Classified("provider_error", True, msg)
    if (
        name
        in (
            "APIConnectionError",
            "ConnectError",
            "ServiceUnavailableError",
            "InternalServerError",
            "BadGatewayError",
        )
        and status is None
    ):
        return Classified("provider_error", True, msg)
    return Classified("provider_error", False, msg)


def retry_after_seconds(exc: BaseException) -> float | None:
    """The server's Retry-After (seconds or retry-after-ms), if it sent one."""
    headers: Any = None
    for source in (getattr(exc, "response", None), exc):
        h = getattr(source, "headers", None) or getattr(source, "litellm_response_headers", None)
        if h:
            headers = h
            break
    if not headers:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return float(ms) / 1000
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def wait_for(policy: RetryPolicy, rng: random.Random) -> Any:
    """A tenacity wait: Retry-After when given (capped), else exponential backoff, full jitter."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hinted = retry_after_seconds(exc) if exc else None
        if hinted is not None:
            return min(max(hinted, 0.0), policy.max_wait_s)
        ceiling = min(policy.max_wait_s, policy.base_wait_s * 2 ** (state.attempt_number - 1))
        return rng.uniform(0, ceiling)

    return wait


def auth_failure_message(litellm: Any, model: str, api_base: str | None, detail: str) -> str:
    """One line for refused credentials: the provider, the variable to set, what it said."""
    provider = model.split("/", 1)[0] if "/" in model else model
    missing: list[str] = []
    expected: list[str] = []
    try:
        provider = litellm.get_llm_provider(model=model, api_base=api_base)[1] or provider
        env = litellm.validate_environment(model=model, api_base=api_base) or {}
        missing = list(env.get("missing_keys") or [])
    except Exception:  # an unknown provider: say what we know
        pass
    if not missing:
        expected = [f"{provider.upper()}_API_KEY"]
    if missing:
        hint = f"set {' or '.join(missing)} (it is not set)"
    else:
        hint = f"check the key in {expected[0]} (or the provider's own credentials)"
    said = " ".join(detail.split())[:200]
    return f"the judge's provider '{provider}' refused the credentials for {model}: {hint} ({said})"
