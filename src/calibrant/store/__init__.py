"""Persistence: judgments cached by identity, in SQLite (default) or PostgreSQL (by URL), and
claims (leases) so several processes never ask the model about the same item twice."""

from .claims import new_owner
from .db import STORE_SCHEMA_VERSION, Store, database_url, make_engine, upgrade_store

__all__ = [
    "STORE_SCHEMA_VERSION",
    "Store",
    "database_url",
    "make_engine",
    "new_owner",
    "upgrade_store",
]
