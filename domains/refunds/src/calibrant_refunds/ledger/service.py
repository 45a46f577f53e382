"""The controlled refund service: the checks production would apply, enforced here, not in any
prompt — tenant boundary, scopes, expiry, revocation, optimistic concurrency, idempotency. The
mechanisms are the engine's (calibrant.engine); this module binds them to the refund shop's
tables and clock origin."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from calibrant.engine import Caller, Denied, Handled, Service
from calibrant.engine import open_engine as _open_engine

from .dataset import BASE_TIME
from .tables import LEDGER_TABLES, OrderRow

__all__ = ["Caller", "Handled", "Denied", "RefundService", "open_engine", "at"]


def at(seq: int) -> datetime:
    """Simulated time of a logical instant."""
    return BASE_TIME + timedelta(seconds=seq)


def open_engine(path: Path) -> Engine:
    """A SQLite engine on `path` for one trial's scratch database, with the refund tables."""
    return _open_engine(path, LEDGER_TABLES)


class RefundService(Service):
    """The engine's service primitives on the refund shop's database (see ops.py)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, base_time=BASE_TIME)

    def order(self, s: Session, order_id: str) -> OrderRow | None:
        return s.get(OrderRow, order_id)
