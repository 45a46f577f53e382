"""A provider's batch API through litellm (files and batches): upload, create, follow with
progress, download. Every call maps the provider's errors at the boundary: refused credentials
(401/403) are a `JudgeAuthError` in one line; anything else a `ProviderError` saying what was
being done, marked transient (429, 5xx, timeouts) or not. Polling retries transient failures
(bounded, backing off); the caller resumes after anything else."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..contracts import JudgeConfig
from ..contracts.judgment import url_secrets
from ..errors import CalibrantError, ConfigError, InputError, JudgeAuthError
from .client import redact_secrets
from .llm_setup import endpoint_kwargs
from .reliability import auth_failure_message, classify

__all__ = [
    "PROVIDERS",
    "TERMINAL",
    "BatchProgress",
    "BatchProvider",
    "ProviderError",
    "batch_errors",
    "provider_of",
]

PROVIDERS = ("openai", "azure", "hosted_vllm")  # litellm's files and batches APIs, OpenAI lines
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
ENDPOINT = "/v1/chat/completions"
MAX_POLL_FAILURES = 10  # transient failures in a row before giving up (a rerun resumes)


def provider_of(config: JudgeConfig) -> str:
    """litellm's provider for the judge's batch API; refused in one line for any other."""
    provider = config.model.split("/", 1)[0] if "/" in config.model else ""
    if provider not in PROVIDERS:
        raise ConfigError(
            f"--submit needs a judge served by a batch API ({', '.join(p + '/' for p in PROVIDERS)}"
            f" models); {config.model} has none: score it live, or `batch export` its requests"
        )
    return provider


@dataclass
class BatchProgress:
    """One look at a provider batch."""

    run_id: str
    batch_id: str
    status: str
    completed: int
    failed: int
    total: int
    elapsed_s: float


class ProviderError(CalibrantError):
    """A provider call failed (not for refused credentials: see JudgeAuthError)."""

    def __init__(self, message: str, transient: bool, status: int | None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status


class BatchProvider:
    """One judge's provider, as litellm's files and batches APIs reach it."""

    def __init__(
        self,
        *,
        litellm: Any,
        config: JudgeConfig,
        poll_s: float,
        on_progress: Callable[[BatchProgress], None],
        on_note: Callable[[str], None],
    ) -> None:
        self.litellm, self.config = litellm, config
        self.poll_s, self.on_progress, self.on_note = poll_s, on_progress, on_note
        self.provider = provider_of(config)
        self.secrets = url_secrets(config.endpoint)
        self.kwargs: dict[str, Any] = {
            "custom_llm_provider": self.provider,
            "max_retries": 0,  # the poll loop is the one retry owner here
            "timeout": 120.0,
            **endpoint_kwargs(config.model, config.endpoint),
        }

    async def call(self, what: str, fn: Any, **kwargs: Any) -> Any:
        try:
            return await fn(**kwargs, **self.kwargs)
        except Exception as exc:
            c = classify(exc)
            if c.auth:  # every later call would be refused too
                raise JudgeAuthError(
                    redact_secrets(
                        auth_failure_message(
                            self.litellm, self.config.model, self.config.api_base, c.message
                        ),
                        self.secrets,
                    )
                ) from None
            detail = " ".join(redact_secrets(c.message, self.secrets).split())[:300]
            status = getattr(exc, "status_code", None)
            raise ProviderError(
                f"{what}: {detail}", c.transient, status if isinstance(status, int) else None
            ) from None

    async def find_batch(self, run_id: str, input_file_id: str) -> Any | None:
        """The provider batch made for this run (by the run id in its metadata), if any."""
        page = await self.call("listing the provider's batches", self.litellm.alist_batches)
        for b in getattr(page, "data", None) or []:
            meta = getattr(b, "metadata", None) or {}
            if meta.get("calibrant_run") == run_id or b.input_file_id == input_file_id:
                return b
        return None

    async def create(self, run_id: str, input_file_id: str) -> str:
        """The batch for an uploaded file: the one a killed process created for this run if
        the provider has it, else a new one (the run id in its metadata)."""
        found = await self.find_batch(run_id, input_file_id)
        if found is None:
            found = await self.call(
                "creating the provider batch",
                self.litellm.acreate_batch,
                completion_window="24h",
                endpoint=ENDPOINT,
                input_file_id=input_file_id,
                metadata={"calibrant_run": run_id},
            )
        return str(found.id)

    async def upload(self, name: str, fh: Any) -> str:
        """Upload a batch input file; its id."""
        got = await self.call(
            "uploading the batch requests",
            self.litellm.acreate_file,
            file=(name, fh),
            purpose="batch",
        )
        return str(got.id)

    async def poll(self, run_id: str, batch_id: str) -> Any:
        failures = 0
        while True:
            try:
                b = await self.call(
                    f"following provider batch {batch_id}",
                    self.litellm.aretrieve_batch,
                    batch_id=batch_id,
                )
            except ProviderError as exc:
                failures += 1
                if not exc.transient or failures >= MAX_POLL_FAILURES:
                    raise
                self.on_note(f"{exc} (retrying; attempt {failures} of {MAX_POLL_FAILURES})")
                await asyncio.sleep(min(60.0, self.poll_s * 2**failures))
                continue
            failures = 0
            rc = getattr(b, "request_counts", None)
            created = float(getattr(b, "created_at", 0) or 0)
            self.on_progress(
                BatchProgress(
                    run_id=run_id,
                    batch_id=batch_id,
                    status=str(b.status),
                    completed=int(getattr(rc, "completed", 0) or 0),
                    failed=int(getattr(rc, "failed", 0) or 0),
                    total=int(getattr(rc, "total", 0) or 0),
                    elapsed_s=max(0.0, time.time() - created) if created else 0.0,
                )
            )
            if b.status in TERMINAL:
                return b
            await asyncio.sleep(self.poll_s)

    async def download(self, file_id: str | None) -> list[dict[str, Any]]:
        if not file_id:
            return []
        got = await self.call(
            f"downloading provider file {file_id}", self.litellm.afile_content, file_id=file_id
        )
        rows = []
        for n, raw in enumerate(got.content.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InputError(f"provider file {file_id}", f"not JSON: {exc}", line=n) from None
            if isinstance(row, dict):
                rows.append(row)
        return rows


def batch_errors(b: Any) -> str | None:
    """The provider's batch-level errors (e.g. validation), in one line."""
    errors = getattr(b, "errors", None)
    data = getattr(errors, "data", None) if errors is not None else None
    if not data:
        return None
    parts = []
    for e in data[:3]:
        line = getattr(e, "line", None)
        msg = getattr(e, "message", None) or getattr(e, "code", None) or str(e)
        parts.append(f"line {line}: {msg}" if line else str(msg))
    return "; ".join(parts)
