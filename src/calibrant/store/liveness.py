"""Whether a run marked running still has a process behind it.

A run whose life is one process (calibrate, score, compare, a probe, a service job in its worker)
records that process with the run, in its `arguments` JSON under `_process`: the owner
(host:pid:random, as claims name theirs) and a lease, renewed by a heartbeat thread while the
process lives. A run still marked running is shown as `interrupted` when its process is known to
have ended: on this host, its pid no longer runs (at once); anywhere, its lease ran out
(`CALIBRANT_CLAIM_LEASE_S`, default 120 s, without a renewal). Runs that outlive the process that
started them (a provider batch, a queued scoring run done by workers) record no process and are
shown as stored. The stored status is never rewritten here: `interrupted` is what a reader is
told, computed when the run is read."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic import Field as PydanticField
from sqlalchemy import Engine, text

from .claims import Clock, claim_lease_seconds, new_owner, owner_ended

__all__ = ["PROCESS_KEY", "RunProcess", "process_record", "shown_status", "Heartbeat", "HEARTBEAT"]

PROCESS_KEY = "_process"
"""Where a run's process lives in its `arguments` JSON (left out of what `Runs.detail` shows as
arguments)."""


class RunProcess(BaseModel):
    """The process a run lives with: who (host:pid:random) and until when its lease holds."""

    model_config = ConfigDict(extra="forbid")
    owner: str
    lease_until: float = PydanticField(description="Unix seconds.")


def process_record(clock: Clock = time.time) -> RunProcess:
    """This process, as a run records it: owner and lease expiry (Unix seconds)."""
    return RunProcess(owner=new_owner(), lease_until=clock() + claim_lease_seconds())


def shown_status(status: str, process: dict[str, Any] | None, *, now: float | None = None) -> str:
    """The status to show for a stored run: `interrupted` for a running one whose process has
    ended (its pid gone on this host, or its lease run out), else the stored status."""
    if status != "running" or not isinstance(process, dict):
        return status
    owner = str(process.get("owner") or "")
    lease = process.get("lease_until")
    if owner and owner_ended(owner):
        return "interrupted"
    if isinstance(lease, int | float) and lease < (time.time() if now is None else now):
        return "interrupted"
    return status


_RENEW = text("SELECT arguments FROM calibrant_runs WHERE id = :id AND status = 'running'")
_WRITE = text("UPDATE calibrant_runs SET arguments = :arguments WHERE id = :id")


class Heartbeat:
    """Renews the leases of this process's running runs, from one daemon thread that exists
    only while there are runs to renew (every lease / 4 seconds)."""

    def __init__(self) -> None:
        self._runs: dict[str, tuple[Engine, Clock]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, run_id: str, engine: Engine, clock: Clock = time.time) -> None:
        with self._lock:
            self._runs[run_id] = (engine, clock)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="calibrant-run-heartbeat", daemon=True
                )
                self._thread.start()
            else:  # beat now, then at this run's pace (the lease may have changed)
                self._wake.set()

    def remove(self, run_id: str) -> None:
        with self._lock:
            self._runs.pop(run_id, None)

    def _loop(self) -> None:
        while True:
            self._wake.wait(claim_lease_seconds() / 4)
            self._wake.clear()
            with self._lock:
                live = dict(self._runs)
                if not live:
                    self._thread = None
                    return
            for run_id, (engine, clock) in live.items():
                try:
                    _renew(engine, run_id, clock)
                except Exception:  # a store gone or busy: the next beat tries again
                    pass


def _renew(engine: Engine, run_id: str, clock: Clock) -> None:
    with engine.begin() as conn:
        raw = conn.execute(_RENEW, {"id": run_id}).scalar()
        if raw is None:
            return
        arguments = json.loads(raw)
        process = arguments.get(PROCESS_KEY)
        if not isinstance(process, dict):
            return
        process["lease_until"] = clock() + claim_lease_seconds()
        conn.execute(_WRITE, {"id": run_id, "arguments": json.dumps(arguments, sort_keys=True)})


HEARTBEAT = Heartbeat()
"""The process's one heartbeat (Runs.start adds a run to it, Runs.finish removes it)."""
