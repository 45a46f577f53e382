"""The one retry owner for model calls (tenacity), and the closed outcome taxonomy.

Retried: 429, 5xx, timeouts, connection errors — with jitter, honouring Retry-After, within a
bounded number of attempts. Everything else fails at once. litellm's and the SDK's own retries
are set to 0 at every call."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tenacity import RetryCallState

__all__ = ["RetryPolicy", "classify", "retry_after_seconds", "wait_for", "Classified"]


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
