"""Workbench sessions, kept by the server: a login makes one (a random id in the cookie, only
its SHA-256 in the store, and a CSRF token of its own); it ends at logout, at its expiry, and
when its account is disabled or given a new token. The API token is never the cookie: a
browser that leaks its cookie leaks a session that ends, not the account's credential."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete
from sqlmodel import Session, col, func, select

from .service_tables import SessionRow, UserRow
from .users import User

__all__ = ["SESSION_PREFIX", "DEFAULT_TTL", "WebSession", "Sessions"]

SESSION_PREFIX = "ses_"
DEFAULT_TTL = timedelta(hours=12)
"""How long a workbench session lasts after login (`calibrant serve --session-hours`)."""


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(moment: datetime) -> datetime:
    """A time read back (SQLite and a plain TIMESTAMP drop the zone; only UTC is written)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class WebSession:
    user: User
    csrf: str


class Sessions:
    def __init__(self, engine: Engine, ttl: timedelta = DEFAULT_TTL) -> None:
        self.engine = engine
        self.ttl = ttl

    def start(self, user: User, *, replacing: str | None = None) -> str:
        """A new session for `user`; returns the cookie's value. The session the browser had
        (`replacing`), if any, ends: every login gets a fresh id."""
        secret = SESSION_PREFIX + secrets.token_urlsafe(32)
        now = _now()
        with Session(self.engine) as session:
            if replacing:
                session.exec(delete(SessionRow).where(col(SessionRow.id_hash) == _hash(replacing)))
            session.exec(delete(SessionRow).where(col(SessionRow.expires_at) < now))
            session.add(
                SessionRow(
                    id_hash=_hash(secret),
                    user_name=user.name,
                    csrf=secrets.token_hex(32),
                    created_at=now,
                    expires_at=now + self.ttl,
                )
            )
            session.commit()
        return secret

    def lookup(self, secret: str) -> WebSession | None:
        """The live session behind a cookie (its account enabled), or None."""
        if not secret.startswith(SESSION_PREFIX) or len(secret) > 200:
            return None
        with Session(self.engine) as session:
            found = session.exec(
                select(SessionRow, UserRow)
                .join(UserRow, col(UserRow.name) == col(SessionRow.user_name))
                .where(col(SessionRow.id_hash) == _hash(secret))
            ).first()
        if found is None:
            return None
        row, user = found
        if _utc(row.expires_at) <= _now() or user.disabled:
            return None
        return WebSession(User(user.name, user.role, user.token_hash), row.csrf)

    def end(self, secret: str) -> None:
        """Logout: the session is deleted, so a copy of the cookie stops working too."""
        with Session(self.engine) as session:
            session.exec(delete(SessionRow).where(col(SessionRow.id_hash) == _hash(secret)))
            session.commit()

    def end_all(self, name: str) -> int:
        """End every session of account `name` (its token was rotated or it was disabled)."""
        with Session(self.engine) as session:
            result = session.exec(delete(SessionRow).where(col(SessionRow.user_name) == name))
            session.commit()
        return int(result.rowcount or 0)

    def counts(self) -> dict[str, int]:
        """Live sessions per account name."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(SessionRow.user_name, func.count())
                .where(col(SessionRow.expires_at) > _now())
                .group_by(col(SessionRow.user_name))
            ).all()
        return {name: int(n) for name, n in rows}
