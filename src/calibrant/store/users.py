"""Accounts: experts and API clients, each with a role and a bearer token.

A token is shown once, when it is made; the store keeps only its SHA-256, so a copy of the
store gives no one a working token. Roles are ordered: an adjudicator can do what an annotator
can, an admin what both can."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..errors import ConfigError
from ..paths import portable_problem
from .service_tables import SessionRow, UserRow

__all__ = ["ROLES", "NAME_RULE", "User", "Users", "hash_token", "valid_name"]

ROLES = ("annotator", "adjudicator", "admin")
_RANK = {role: rank for rank, role in enumerate(ROLES)}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")
TOKEN_PREFIX = "cal_"
NAME_RULE = "1-64 letters, digits, '_', '.', '@' or '-', starting with a letter or digit"


def valid_name(name: str) -> bool:
    """A rater's name fits this rule (an account's, or an imported rater's): it is also the
    name of its file in the exported labels/ folder, so it holds no '/' and is never '..'."""
    return _NAME.fullmatch(name) is not None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class User:
    name: str
    role: str
    token_hash: str

    def can(self, role: str) -> bool:
        """True if this user's role is `role` or above it."""
        return _RANK[self.role] >= _RANK[role]


class Users:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, name: str, role: str) -> str:
        """Create an account; returns its token (the only time it is ever shown)."""
        if not valid_name(name):
            raise ConfigError(f"user name {name!r}: use {NAME_RULE}")
        if name.casefold() == "consensus":
            raise ConfigError(f"user name {name!r} is reserved for the consensus labels")
        problem = portable_problem(f"{name}.jsonl")
        if problem is not None:  # the name of the expert's labels file in an export
            raise ConfigError(f"user name {name!r}: its labels file '{name}.jsonl' {problem}")
        if role not in _RANK:
            raise ConfigError(f"role {role!r}: use one of {', '.join(ROLES)}")
        token = _new_token()
        row = UserRow(
            name=name,
            role=role,
            token_hash=hash_token(token),
            created_at=datetime.now(UTC),
        )
        try:
            with Session(self.engine) as session:
                twin = next(
                    (
                        n
                        for n in session.exec(select(UserRow.name))
                        if n.casefold() == name.casefold()
                    ),
                    None,
                )
                if twin is not None and twin != name:  # one labels file on a case-blind disk
                    raise ConfigError(
                        f"user name {name!r}: account {twin!r} exists, and names must differ in "
                        "more than case (each is the name of a labels file)"
                    )
                session.add(row)
                session.commit()
        except IntegrityError:
            raise ConfigError(
                f"user {name!r} already exists (`calibrant users token {name}` gives a new token)"
            ) from None
        return token

    def rotate(self, name: str) -> str:
        """A new token for `name` (the old one, and every workbench session, stop working at
        once); re-enables the account."""
        token = _new_token()
        with Session(self.engine) as session:
            row = session.get(UserRow, name)
            if row is None:
                raise ConfigError(f"no user {name!r} (`calibrant users list` shows them)")
            row.token_hash = hash_token(token)
            row.disabled = False
            session.exec(delete(SessionRow).where(col(SessionRow.user_name) == name))
            session.commit()
        return token

    def disable(self, name: str) -> None:
        """The account's token and its workbench sessions stop working."""
        with Session(self.engine) as session:
            row = session.get(UserRow, name)
            if row is None:
                raise ConfigError(f"no user {name!r} (`calibrant users list` shows them)")
            row.disabled = True
            session.exec(delete(SessionRow).where(col(SessionRow.user_name) == name))
            session.commit()

    def authenticate(self, token: str) -> User | None:
        """The enabled account holding `token`, or None."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        wanted = hash_token(token)
        with Session(self.engine) as session:
            row = session.exec(select(UserRow).where(col(UserRow.token_hash) == wanted)).first()
        if row is None or row.disabled or not secrets.compare_digest(row.token_hash, wanted):
            return None
        return User(row.name, row.role, row.token_hash)

    def list(self) -> list[UserRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(UserRow).order_by(col(UserRow.name))))
