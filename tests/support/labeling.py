"""Test data for the labeling service: the shipped rubric put in a store (as an admin would
through the rubrics API), and gold transcripts to upload."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session

from calibrant.files import load_rubric
from tests.support.pg import BACKENDS, fresh_schema
from tests.support.service import Service, app_service, running_service

__all__ = [
    "BACKENDS",
    "labeling_service",
    "small_limit_service",
    "put_rubric",
    "gold_jsonl",
    "aliases_of",
]

ROOT = Path(__file__).resolve().parents[2]
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"
GOLD = ROOT / "gold" / "transcripts"


def put_rubric(database_url: str, path: Path = RUBRIC, by: str = "admin") -> str:
    """Store the rubric at `path` in the store; returns its content hash."""
    from calibrant.store import make_engine
    from calibrant.store.service_tables import RubricRow

    rubric = load_rubric(path)
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            if session.get(RubricRow, rubric.content_hash) is None:
                session.add(
                    RubricRow(
                        content_hash=rubric.content_hash,
                        rubric_id=rubric.rubric_id,
                        version=rubric.version,
                        body=path.read_text(),
                        created_by=by,
                        created_at=datetime.now(UTC),
                    )
                )
                session.commit()
    finally:
        engine.dispose()
    return rubric.content_hash


def aliases_of(service: Service, *ids: str) -> dict[str, str]:
    """Transcript id -> the opaque alias experts name the item by (what the admin's
    GET /api/items says), read from the service's store; every item without `ids`."""
    from calibrant.store import make_engine
    from calibrant.store.labeling import aliases

    engine = make_engine(service.database_url)
    try:
        return aliases(engine, ids or None)
    finally:
        engine.dispose()


def gold_jsonl(*numbers: int) -> bytes:
    """Gold transcripts gold-NNN as JSON Lines."""
    lines = [json.dumps(json.loads((GOLD / f"gold-{n:03d}.json").read_text())) for n in numbers]
    return ("\n".join(lines) + "\n").encode()


@contextmanager
def labeling_service(
    backend: str, work: Path, *args: str, served: bool = False
) -> Iterator[Service]:
    """The service on a new store of `backend` holding the shipped rubric: the application in
    this process, or with `served=True` (or `--worker`) `calibrant serve` in its own process."""
    with ExitStack() as stack:
        if backend == "sqlite":
            url = f"sqlite:///{work / 'store.db'}"
        else:
            url = stack.enter_context(fresh_schema())
        put_rubric(url)
        if served or "--worker" in args:
            yield stack.enter_context(running_service(url, work, *args))
        else:
            yield stack.enter_context(app_service(url, *args))


# The audit's service: a small body limit (--max-body-mb 0.05), five gold items in queue "in"
SMALL_LIMIT = int(0.05 * 1024 * 1024)
NDJSON = {"Content-Type": "application/x-ndjson"}
ALL_CRITERIA = {
    "separates_done_from_pending": "pass",
    "explains_next_step": "pass",
    "no_claim_before_confirmed": "pass",
    "reports_access_problem": "not_applicable",
    "overall_clarity": 3,
}


@contextmanager
def small_limit_service(backend: str, work: Path, *, served: bool = False) -> Iterator[Service]:
    """The service with a 0.05 MiB body limit and gold items 81-85 uploaded (queue "in")."""
    with labeling_service(backend, work, "--max-body-mb", "0.05", served=served) as s:
        admin = s.client(s.user("in-admin", "admin"))
        for n in range(81, 86):  # one by one: the body limit is small
            got = admin.post("/api/transcripts?queue=in", content=gold_jsonl(n))
            assert got.is_success, got.text
        yield s
