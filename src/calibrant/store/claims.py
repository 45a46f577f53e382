"""Claims (leases) in the store: which process is asking the model about an item right now.

A process claims an item before asking (an atomic upsert with a lease it renews while it works),
and stores the answer and drops the claim in one transaction. Both come in batches: a run stores
every answer that arrived since its last commit, and claims the items queued since, in one
transaction on SQLite (two on PostgreSQL, see `finish_and_claim`; `calibrant.judge.groupcommit`
makes the batches). Rows are always written in key order, so two processes batching overlapping
items on PostgreSQL take their row locks in the same order and never deadlock."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, Table, bindparam, delete, select, update

from ..contracts import FINAL_OUTCOMES, Judgment
from ..settings import get_settings
from .tables import ClaimRow, JudgmentRow

__all__ = [
    "Clock",
    "ClaimsMixin",
    "new_owner",
    "ended_here",
    "owner_ended",
    "claim_lease_seconds",
]

_judgments: Table = JudgmentRow.__table__  # type: ignore[attr-defined]
_claims: Table = ClaimRow.__table__  # type: ignore[attr-defined]
_IDENTITY = ("transcript_hash", "judge_hash", "sample_index")
_CHUNK = 200  # keys per statement: far below every bound-parameter limit
Key = tuple[str, int]  # (transcript hash, sample index), under one judge hash

Clock = Callable[[], float]
"""Where leases read the time (Unix seconds): `time.time` in every process; a test hands a
clock it moves itself, so a lease runs out without anyone waiting for it."""


def claim_lease_seconds() -> float:
    """How long a claim (or a run's process lease) lasts without renewal:
    $CALIBRANT_CLAIM_LEASE_S, default 120 s."""
    return get_settings().claim_lease_s


def new_owner() -> str:
    """A claim owner id for this process: host:pid:random."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def ended_here(owner: str) -> bool:
    """True if `owner` (host:pid:random) names a process of this host that no longer runs."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # killed but not yet reaped by its parent: a zombie runs nothing
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def owner_ended(owner: str) -> bool | None:
    """Whether the process `owner` (host:pid:random) has ended: None when it ran on another
    host (this host cannot tell)."""
    if owner.partition(":")[0] != socket.gethostname():
        return None
    return ended_here(owner)


def _mine(owner: str) -> Any:
    """DELETE of `owner`'s claim on one item, the item given as bound parameters."""
    return delete(_claims).where(
        _claims.c.transcript_hash == bindparam("th"),
        _claims.c.judge_hash == bindparam("jh"),
        _claims.c.sample_index == bindparam("si"),
        _claims.c.owner == owner,
    )


class ClaimsMixin:
    """The claim methods of `Store` (which provides the engine and the upserts)."""

    engine: Engine
    clock: Clock  # Unix seconds for leases (Store sets it: time.time unless a test moves it)

    def _insert(self, table: Table) -> Any:  # pragma: no cover - provided by Store
        raise NotImplementedError

    def _upsert(self, conn: Connection, judgments: Sequence[Judgment]) -> None:  # pragma: no cover
        raise NotImplementedError

    def claim(
        self, transcript_hash: str, judge_hash: str, sample_index: int, owner: str, lease_s: float
    ) -> Judgment | bool:
        """Try to become the one process that asks the model about this item, atomically.

        Returns the cached answer if one is stored (nothing to ask), True if `owner` now holds
        the item for `lease_s` seconds, False if another live process holds it. An expired
        claim, or one held by a process of this host that has ended, is taken over."""
        key = (transcript_hash, sample_index)
        return self.claim_many(judge_hash, [key], owner, lease_s)[key]

    def claim_many(
        self, judge_hash: str, keys: Sequence[Key], owner: str, lease_s: float
    ) -> dict[Key, Judgment | bool]:
        """`claim` for many items of one judge, in one transaction: for each (transcript hash,
        sample index), the cached answer, True (held by `owner` now) or False (another live
        process holds it). A key given twice gets the same result twice."""
        wanted = sorted(set(keys))
        if not wanted:
            return {}
        with self.engine.begin() as conn:
            return self._claim_all_in(conn, judge_hash, wanted, owner, lease_s)

    def _claim_all_in(
        self, conn: Connection, judge_hash: str, wanted: list[Key], owner: str, lease_s: float
    ) -> dict[Key, Judgment | bool]:
        now = self.clock()
        out: dict[Key, Judgment | bool] = {}
        for start in range(0, len(wanted), _CHUNK):
            part = wanted[start : start + _CHUNK]
            out.update(self._claim_in(conn, judge_hash, part, owner, now, lease_s))
        return out

    def _claim_in(
        self,
        conn: Connection,
        judge_hash: str,
        keys: list[Key],
        owner: str,
        now: float,
        lease_s: float,
    ) -> dict[Key, Judgment | bool]:
        # a write first: on SQLite the transaction takes the write lock here (waiting for other
        # processes), so what is read below cannot change before the commit
        rows = [
            {"transcript_hash": th, "judge_hash": judge_hash, "sample_index": i} for th, i in keys
        ]
        stmt = self._insert(_claims).values(
            [{**r, "owner": owner, "expires_at": now + lease_s} for r in rows]
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=list(_IDENTITY),
            set_={"owner": stmt.excluded.owner, "expires_at": stmt.excluded.expires_at},
            where=_claims.c.expires_at < now,
        )
        conn.execute(stmt)
        hashes = sorted({th for th, _ in keys})
        holders = {
            (th, i): who
            for th, i, who in conn.execute(
                select(_claims.c.transcript_hash, _claims.c.sample_index, _claims.c.owner).where(
                    _claims.c.judge_hash == judge_hash, _claims.c.transcript_hash.in_(hashes)
                )
            )
        }
        answered = {
            (th, i): payload
            for th, i, payload in conn.execute(
                select(
                    _judgments.c.transcript_hash, _judgments.c.sample_index, _judgments.c.payload
                ).where(
                    _judgments.c.judge_hash == judge_hash,
                    _judgments.c.transcript_hash.in_(hashes),
                    _judgments.c.outcome.in_(sorted(FINAL_OUTCOMES)),
                )
            )
        }
        out: dict[Key, Judgment | bool] = {}
        drop: list[dict[str, Any]] = []
        for key in keys:
            holder = holders.get(key)
            payload = answered.get(key)
            if payload is not None:
                if holder == owner:
                    drop.append({"th": key[0], "jh": judge_hash, "si": key[1]})
                out[key] = Judgment.model_validate_json(payload)
            elif holder == owner:
                out[key] = True
            elif holder is not None and ended_here(holder):
                taken = conn.execute(
                    update(_claims)
                    .where(
                        _claims.c.transcript_hash == key[0],
                        _claims.c.judge_hash == judge_hash,
                        _claims.c.sample_index == key[1],
                        _claims.c.owner == holder,
                    )
                    .values(owner=owner, expires_at=now + lease_s)
                )
                out[key] = bool(taken.rowcount == 1)
            else:
                out[key] = False
        if drop:
            conn.execute(_mine(owner), drop)
        return out

    def finish(self, j: Judgment, owner: str) -> None:
        """Store a judgment and drop `owner`'s claim on it, in one transaction."""
        self.finish_many([j], owner)

    def finish_many(self, judgments: Sequence[Judgment], owner: str) -> None:
        """Store many judgments and drop `owner`'s claims on them, in one transaction."""
        if not judgments:
            return
        with self.engine.begin() as conn:
            self._finish_in(conn, judgments, owner)

    def _finish_in(self, conn: Connection, judgments: Sequence[Judgment], owner: str) -> None:
        ordered = sorted(judgments, key=lambda j: (j.transcript_hash, j.judge_hash, j.sample_index))
        for start in range(0, len(ordered), _CHUNK):
            self._upsert(conn, ordered[start : start + _CHUNK])
        conn.execute(
            _mine(owner),
            [{"th": j.transcript_hash, "jh": j.judge_hash, "si": j.sample_index} for j in ordered],
        )

    def finish_and_claim(
        self,
        judge_hash: str,
        judgments: Sequence[Judgment],
        keys: Sequence[Key],
        owner: str,
        lease_s: float,
    ) -> dict[Key, Judgment | bool]:
        """`finish_many(judgments)`, then `claim_many(keys)` (an item answered here is found
        answered by its claim): what group commit writes in one go. On SQLite both are one
        transaction (one lock serializes the store's writers, so nothing can deadlock). On
        PostgreSQL they stay two: its locks are per row, and one transaction dropping this
        owner's claim on item X, then taking Y, could deadlock with another process's dropping
        its claim on Y, then trying X (three processes on one store re-try each other's items)."""
        wanted = sorted(set(keys))
        if self.engine.dialect.name != "sqlite" or not judgments or not wanted:
            self.finish_many(judgments, owner)
            return self.claim_many(judge_hash, wanted, owner, lease_s)
        with self.engine.begin() as conn:
            self._finish_in(conn, judgments, owner)
            return self._claim_all_in(conn, judge_hash, wanted, owner, lease_s)

    def renew(self, owner: str, lease_s: float) -> None:
        """Extend every claim `owner` holds by `lease_s` from now (its heartbeat)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(_claims)
                .where(_claims.c.owner == owner)
                .values(expires_at=self.clock() + lease_s)
            )

    def release_all(self, owner: str) -> None:
        """Drop every claim `owner` holds (at the end of a run, finished or interrupted)."""
        with self.engine.begin() as conn:
            conn.execute(delete(_claims).where(_claims.c.owner == owner))

    def claims(self) -> list[tuple[str, str, int, str]]:
        """Every live or stale claim: (transcript hash, judge hash, sample index, owner)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    _claims.c.transcript_hash,
                    _claims.c.judge_hash,
                    _claims.c.sample_index,
                    _claims.c.owner,
                )
            ).all()
        return [(r[0], r[1], r[2], r[3]) for r in rows]
