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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..contracts import JudgeConfig, Rubric, Transcript, content_hash
from ..contracts.reports.score_parts import BatchSummary
from ..errors import CalibrantError, ConfigError
from ..store import Store, new_owner
from ..store.claims import owner_ended
from ..store.runs import RunDetail, Runs
from .batch_provider import BatchProgress, BatchProvider, ProviderError, batch_errors, provider_of
from .openai_batch import IngestCounts, custom_id, export_requests, ingest_results

__all__ = ["KIND", "BatchProgress", "BatchResult", "BatchSubmitter", "provider_of"]

KIND = "batch"
UPLOAD_GRACE_S = 600.0  # a run of another host with no upload recorded this long is dead

Transcripts = Callable[[], Iterable[tuple[str, Transcript]]]


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

    def summary(self) -> BatchSummary:
        """The run's summary in the store (`json_data()`), as `batch --json` prints it."""
        return BatchSummary(
            run_id=self.run_id,
            batch_id=self.batch_id,
            status=self.status,
            resumed=self.resumed,
            requests=self.requests,
            ingested=self.counts,
            error=self.error,
        )


@dataclass(frozen=True)
class BatchRun:
    """A batch run as the store holds it (`Runs.detail`): its id, status, start and arguments
    (the requests it carries, the uploaded file's id, the provider's batch id)."""

    id: str
    status: str
    started_at: str
    arguments: dict[str, Any]

    @classmethod
    def of(cls, detail: RunDetail) -> BatchRun:
        return cls(
            id=detail.id,
            status=detail.status,
            started_at=detail.started_at,
            arguments=detail.arguments,
        )


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
        self.config, self.rubric, self.store, self.runs = config, rubric, store, runs
        self.poll_s, self.on_note = poll_s, on_note
        self.api = BatchProvider(
            litellm=litellm,
            config=config,
            poll_s=poll_s,
            on_progress=on_progress,
            on_note=on_note,
        )

    # -- one provider batch, start to end ------------------------------------------------------

    async def _follow(
        self, detail: BatchRun, transcripts: Transcripts, *, resumed: bool
    ) -> BatchResult:
        """Create (if need be), poll, download, ingest and finish one batch run."""
        run_id, args = detail.id, detail.arguments
        batch_id = args.get("batch_id")
        if not batch_id:  # recorded before it is used: a rerun polls this very batch
            batch_id = await self.api.create(run_id, args["input_file_id"])
            await asyncio.to_thread(self.runs.update_arguments, run_id, batch_id=batch_id)
        b = await self.api.poll(run_id, batch_id)
        wanted = {custom_id(th, self.config.hash, s): (th, s) for th, s in args["items"]}
        rows = await self.api.download(getattr(b, "output_file_id", None))
        rows += await self.api.download(getattr(b, "error_file_id", None))
        rows = [r for r in rows if r.get("custom_id") in wanted]
        answered = {r["custom_id"] for r in rows}
        reason = batch_errors(b)
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
        await asyncio.to_thread(self.runs.finish, run_id, result.summary().json_data())
        return result

    async def _uploaded(self, detail: BatchRun) -> BatchRun | None:
        """A run without a recorded upload: wait while its process may still upload (alive on
        this host, or on another host for less than UPLOAD_GRACE_S); None if it never will
        (killed before the upload was recorded: nothing at the provider carries its requests,
        so the run is marked failed)."""
        run_id = detail.id
        waiting = False
        while True:
            args = detail.arguments
            if detail.status != "running":
                return None
            if args.get("input_file_id"):
                return detail
            ended = owner_ended(str(args.get("owner") or ""))
            started = datetime.fromisoformat(detail.started_at)
            if started.tzinfo is None:
                started = started.replace(tzinfo=UTC)
            age = (datetime.now(UTC) - started).total_seconds()
            if ended or (ended is None and age > UPLOAD_GRACE_S):
                note = "interrupted before its requests were uploaded; submitted again"
                await asyncio.to_thread(self._fail, run_id, note)
                return None
            if not waiting:
                self.on_note(f"run {run_id[:12]} of another process is uploading these requests")
                waiting = True
            await asyncio.sleep(self.poll_s)
            found = await asyncio.to_thread(self.runs.detail, run_id)
            if found is None:
                return None
            detail = BatchRun.of(found)

    async def _resume(self, transcripts: Transcripts, known: set[str]) -> list[BatchResult]:
        out = []
        for found in self.runs.running(KIND, judge_hash=self.config.hash):
            detail = await self._uploaded(BatchRun.of(found))
            if detail is None:
                continue
            args = detail.arguments
            if args.get("api_base") != self.config.api_base:
                raise ConfigError(
                    f"provider batch run {detail.id[:12]} of this judge is in flight at "
                    f"{args.get('api_base') or 'the provider default'}: rerun with that "
                    "--api-base to collect it first"
                )
            outside = {th for th, _ in args["items"]} - known
            if outside:
                raise ConfigError(
                    f"provider batch run {detail.id[:12]} of this judge is still in flight for "
                    f"{len(outside)} transcript(s) not given here: rerun with its paths "
                    f"({' '.join(args.get('paths') or [])}) to collect it first"
                )
            self.on_note(
                f"resuming provider batch {args.get('batch_id') or '(being created)'} of run "
                f"{detail.id[:12]} ({len(args['items'])} request(s))"
            )
            try:
                out.append(await self._follow(detail, transcripts, resumed=True))
            except ProviderError as exc:
                if exc.status != 404:
                    raise
                note = f"the provider no longer knows this batch ({exc}); submitted again"
                self.on_note(f"run {detail.id[:12]}: {note}")
                await asyncio.to_thread(
                    self.runs.finish, detail.id, {"error": note}, status="failed"
                )
        return out

    async def _submit(
        self,
        transcripts: Transcripts,
        samples: int,
        skip: set[str],
        paths: list[str],
        tries: int = 3,
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
                    "provider": self.api.provider,
                    "api_base": self.config.api_base,  # masked: no credentials in the store
                    "items": items,
                    "owner": new_owner(),
                    "input_file_id": None,
                    "batch_id": None,
                },
                process=False,  # the provider's batch outlives this process: never interrupted
            )
            first = await asyncio.to_thread(self._started_first, run_id, items)
            if first is not None:  # another process is submitting the same requests: follow it
                note = f"withdrawn: run {first.id} carries the same requests"
                await asyncio.to_thread(self._fail, run_id, note)
                self.on_note(f"another process submits these requests (run {first.id[:12]})")
                detail = await self._uploaded(first)
                if detail is None:
                    raise CalibrantError(
                        f"run {first.id[:12]} of another process carrying these requests "
                        "stopped before uploading them: run again to submit them"
                    )
                return await self._follow(detail, transcripts, resumed=True)
            if tries > 1 and await asyncio.to_thread(self._answered_meanwhile, items):
                # another process stored answers for some since the export: export again
                await asyncio.to_thread(self._fail, run_id, "withdrawn: answered meanwhile")
                return await self._submit(transcripts, samples, skip, paths, tries - 1)
            fh.seek(0)
            try:
                uploaded = await self.api.upload(f"calibrant-{run_id}.jsonl", fh)
            except BaseException as exc:
                await asyncio.to_thread(
                    self.runs.finish, run_id, {"error": str(exc)[:300]}, status="failed"
                )
                raise
        self.on_note(f"uploaded {len(items)} request(s) as {uploaded} (run {run_id[:12]})")
        # from here on the run stays "running" whatever happens: a rerun finds the batch
        args = await asyncio.to_thread(self.runs.update_arguments, run_id, input_file_id=uploaded)
        mine = BatchRun(id=run_id, status="running", started_at="", arguments=args)
        return await self._follow(mine, transcripts, resumed=False)

    def _answered_meanwhile(self, items: list[list[Any]]) -> bool:
        found = self.store.final_many(self.config.hash, [th for th, _ in items])
        return any((th, s) in found for th, s in items)

    def _fail(self, run_id: str, reason: str) -> None:
        self.runs.finish(run_id, {"error": reason}, status="failed")

    def _started_first(self, run_id: str, items: list[list[Any]]) -> BatchRun | None:
        """Another running batch run of this judge, started before `run_id`, that carries any
        of `items` (two processes submitting at once: the later one gives way)."""
        mine = {(th, s) for th, s in items}
        runs = self.runs.running(KIND, judge_hash=self.config.hash)
        order = {d.id: n for n, d in enumerate(runs)}  # oldest first
        for d in runs:
            if d.id == run_id or order[d.id] > order.get(run_id, len(runs)):
                continue
            carried: Any = d.arguments.get("items") or []  # [[transcript hash, sample], ...]
            if any((th, s) in mine for th, s in carried):
                return BatchRun.of(d)
        return None

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
