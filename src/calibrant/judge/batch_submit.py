"""Submitting pending judge requests through a provider's batch API (litellm's files and batches
APIs), following the batch until it ends, and storing its results through the idempotent ingest.

Every provider batch is a run of kind ``batch`` in the store. Its arguments record, before any
upload, the requests it carries (transcript hash and sample of each); then the uploaded file's
id; then the provider's batch id. A process killed at any point leaves enough for the next one
to resume the *same* provider batch rather than submit the requests again:

- killed before the upload was recorded: nothing at the provider is known to carry the requests
  (an uploaded file alone costs nothing): the run is marked failed and the requests are
  submitted afresh;
- killed after the upload, before the batch id was recorded: the batch, if it was created, is
  found among the provider's batches by the run id in its metadata; else it is created now;
- killed while polling: polling resumes.

A batch still in flight for transcripts that are not given is refused in one line naming its
run and paths: submitting around it could pay twice. Results of a finished batch are stored
as judgments (verdict, unparseable, refusal, or a failure by kind that a later run retries);
requests with no result at all (an expired or cancelled batch) are stored as failures too."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..contracts import JudgeConfig, Rubric, Transcript, content_hash
from ..contracts.judgment import url_secrets
from ..errors import CalibrantError, ConfigError, InputError, JudgeAuthError
from ..store import Store
from ..store.runs import Runs
from .client import redact_secrets
from .llm_setup import endpoint_kwargs
from .openai_batch import IngestCounts, custom_id, export_requests, ingest_results
from .reliability import auth_failure_message, classify

__all__ = ["KIND", "PROVIDERS", "BatchProgress", "BatchResult", "BatchSubmitter", "provider_of"]

KIND = "batch"
PROVIDERS = ("openai", "azure", "hosted_vllm")  # litellm's files and batches APIs, OpenAI lines
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
ENDPOINT = "/v1/chat/completions"
MAX_POLL_FAILURES = 10  # transient failures in a row before giving up (a rerun resumes)

Transcripts = Callable[[], Iterable[tuple[str, Transcript]]]


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


@dataclass
class BatchResult:
    """A provider batch that ended, and what its results became in the store."""

    run_id: str
    batch_id: str
    status: str
    resumed: bool
    requests: int
    counts: IngestCounts
    error: str | None = None
    failed_ids: set[str] = field(default_factory=set)
    transcript_hashes: set[str] = field(default_factory=set)  # of its requests

    def as_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "batch_id": self.batch_id,
            "status": self.status,
            "resumed": self.resumed,
            "requests": self.requests,
            "ingested": self.counts.as_json(),
            "error": self.error,
        }


class _ProviderError(CalibrantError):
    def __init__(self, message: str, transient: bool, status: int | None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status


class BatchSubmitter:
    """Submit, resume, follow and ingest the provider batches of one judge."""

    def __init__(
        self,
        *,
        litellm: Any,
        config: JudgeConfig,
        rubric: Rubric,
        store: Store,
        runs: Runs,
        poll_s: float,
        on_progress: Callable[[BatchProgress], None],
        on_note: Callable[[str], None],
    ) -> None:
        self.litellm, self.config, self.rubric = litellm, config, rubric
        self.store, self.runs = store, runs
        self.poll_s, self.on_progress, self.on_note = poll_s, on_progress, on_note
        self.provider = provider_of(config)
        self.secrets = url_secrets(config.endpoint)
        self.kwargs: dict[str, Any] = {
            "custom_llm_provider": self.provider,
            "max_retries": 0,  # calibrant's poll loop is the one retry owner here
            "timeout": 120.0,
            **endpoint_kwargs(config.model, config.endpoint),
        }

    # -- calls to the provider ------------------------------------------------------------------

    async def _call(self, what: str, fn: Any, **kwargs: Any) -> Any:
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
            raise _ProviderError(
                f"{what}: {detail}", c.transient, status if isinstance(status, int) else None
            ) from None

    async def _find_batch(self, run_id: str, input_file_id: str) -> Any | None:
        """The provider batch made for this run (by the run id in its metadata), if any."""
        page = await self._call("listing the provider's batches", self.litellm.alist_batches)
        for b in getattr(page, "data", None) or []:
            meta = getattr(b, "metadata", None) or {}
            if meta.get("calibrant_run") == run_id or b.input_file_id == input_file_id:
                return b
        return None

    async def _create(self, run_id: str, input_file_id: str) -> str:
        """Create the batch for an uploaded file (or find the one a killed process created);
        the id is recorded before it is returned."""
        found = await self._find_batch(run_id, input_file_id)
        if found is None:
            found = await self._call(
                "creating the provider batch",
                self.litellm.acreate_batch,
                completion_window="24h",
                endpoint=ENDPOINT,
                input_file_id=input_file_id,
                metadata={"calibrant_run": run_id},
            )
        await asyncio.to_thread(self.runs.update_arguments, run_id, batch_id=found.id)
        return str(found.id)

    async def _poll(self, run_id: str, batch_id: str) -> Any:
        failures = 0
        while True:
            try:
                b = await self._call(
                    f"following provider batch {batch_id}",
                    self.litellm.aretrieve_batch,
                    batch_id=batch_id,
                )
            except _ProviderError as exc:
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

    async def _download(self, file_id: str | None) -> list[dict[str, Any]]:
        if not file_id:
            return []
        got = await self._call(
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

    # -- one provider batch, start to end ------------------------------------------------------

    async def _follow(
        self, detail: dict[str, Any], transcripts: Transcripts, *, resumed: bool
    ) -> BatchResult:
        """Create (if need be), poll, download, ingest and finish one batch run."""
        run_id, args = detail["id"], detail["arguments"]
        batch_id = args.get("batch_id") or await self._create(run_id, args["input_file_id"])
        b = await self._poll(run_id, batch_id)
        wanted = {custom_id(th, self.config.hash, s): (th, s) for th, s in args["items"]}
        rows = await self._download(getattr(b, "output_file_id", None))
        rows += await self._download(getattr(b, "error_file_id", None))
        rows = [r for r in rows if r.get("custom_id") in wanted]
        answered = {r["custom_id"] for r in rows}
        reason = _batch_errors(b)
        if b.status == "failed":  # the provider ran nothing: the requests stay pending
            error = f"provider batch {batch_id} failed: {reason or 'no reason given'}"
            await asyncio.to_thread(
                self.runs.finish, run_id, {"batch_id": batch_id, "error": error}, status="failed"
            )
            raise CalibrantError(f"{error} (run {run_id[:12]}); nothing was stored")
        for cid in wanted:
            if cid not in answered:  # an expired or cancelled batch: no result at all
                rows.append(
                    {
                        "custom_id": cid,
                        "response": None,
                        "error": {"code": b.status, "message": f"no result ({b.status} batch)"},
                    }
                )
        counts = await asyncio.to_thread(
            ingest_results,
            list(enumerate(rows, start=1)),
            transcripts,
            rubric=self.rubric,
            config=self.config,
            store=self.store,
            source=f"provider batch {batch_id}",
        )
        failed_ids = await asyncio.to_thread(
            lambda: {
                cid
                for cid, (th, s) in wanted.items()
                if self.store.get_final(th, self.config.hash, s) is None
            }
        )
        result = BatchResult(
            run_id,
            batch_id,
            str(b.status),
            resumed,
            len(wanted),
            counts,
            reason,
            failed_ids,
            {th for th, _ in wanted.values()},
        )
        await asyncio.to_thread(self.runs.finish, run_id, result.as_json())
        return result

    async def _resume(self, transcripts: Transcripts, known: set[str]) -> list[BatchResult]:
        out = []
        for detail in self.runs.running(KIND, judge_hash=self.config.hash):
            args = detail["arguments"]
            if not args.get("input_file_id"):  # killed before its upload was recorded
                note = "interrupted before its requests were uploaded; submitted again"
                await asyncio.to_thread(
                    self.runs.finish, detail["id"], {"error": note}, status="failed"
                )
                continue
            if args.get("api_base") != self.config.api_base:
                raise ConfigError(
                    f"provider batch run {detail['id'][:12]} of this judge is in flight at "
                    f"{args.get('api_base') or 'the provider default'}: rerun with that "
                    "--api-base to collect it first"
                )
            outside = {th for th, _ in args["items"]} - known
            if outside:
                raise ConfigError(
                    f"provider batch run {detail['id'][:12]} of this judge is still in flight for "
                    f"{len(outside)} transcript(s) not given here: rerun with its paths "
                    f"({' '.join(args.get('paths') or [])}) to collect it first"
                )
            self.on_note(
                f"resuming provider batch {args.get('batch_id') or '(being created)'} of run "
                f"{detail['id'][:12]} ({len(args['items'])} request(s))"
            )
            try:
                out.append(await self._follow(detail, transcripts, resumed=True))
            except _ProviderError as exc:
                if exc.status != 404:
                    raise
                note = f"the provider no longer knows this batch ({exc}); submitted again"
                self.on_note(f"run {detail['id'][:12]}: {note}")
                await asyncio.to_thread(
                    self.runs.finish, detail["id"], {"error": note}, status="failed"
                )
        return out

    async def _submit(
        self, transcripts: Transcripts, samples: int, skip: set[str], paths: list[str]
    ) -> BatchResult | None:
        with tempfile.TemporaryFile() as fh:

            def export() -> list[list[Any]]:
                items = []
                for line in export_requests(
                    transcripts(),
                    rubric=self.rubric,
                    config=self.config,
                    store=self.store,
                    samples=samples,
                ):
                    if line["custom_id"] in skip:
                        continue
                    fh.write((json.dumps(line, ensure_ascii=False) + "\n").encode())
                    th, _, s = line["custom_id"].split("|")
                    items.append([th, int(s)])
                return items

            items = await asyncio.to_thread(export)
            if not items:
                return None
            run_id = await asyncio.to_thread(
                self.runs.start,
                KIND,
                judge=self.config,
                samples=samples,
                arguments={
                    "paths": paths,
                    "provider": self.provider,
                    "api_base": self.config.api_base,  # masked: no credentials in the store
                    "items": items,
                    "input_file_id": None,
                    "batch_id": None,
                },
            )
            fh.seek(0)
            try:
                uploaded = await self._call(
                    "uploading the batch requests",
                    self.litellm.acreate_file,
                    file=(f"calibrant-{run_id}.jsonl", fh),
                    purpose="batch",
                )
            except BaseException as exc:
                await asyncio.to_thread(
                    self.runs.finish, run_id, {"error": str(exc)[:300]}, status="failed"
                )
                raise
        self.on_note(f"uploaded {len(items)} request(s) as {uploaded.id} (run {run_id[:12]})")
        # from here on the run stays "running" whatever happens: a rerun finds the batch
        detail = await asyncio.to_thread(
            self.runs.update_arguments, run_id, input_file_id=uploaded.id
        )
        return await self._follow({"id": run_id, "arguments": detail}, transcripts, resumed=False)

    async def run(
        self, transcripts: Transcripts, *, samples: int, paths: list[str]
    ) -> list[BatchResult]:
        """Resume this judge's batches in flight, then submit what the store still lacks
        (but the requests that just failed in a resumed batch: a rerun retries those)."""
        known = await asyncio.to_thread(lambda: {content_hash(t) for _, t in transcripts()})
        results = await self._resume(transcripts, known)
        skip = set().union(*(r.failed_ids for r in results)) if results else set()
        fresh = await self._submit(transcripts, samples, skip, paths)
        return results + ([fresh] if fresh is not None else [])


def _batch_errors(b: Any) -> str | None:
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
