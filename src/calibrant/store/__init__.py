"""Persistence: judgments cached by identity, in SQLite (default) or PostgreSQL (by URL), and
claims (leases) so several processes never ask the model about the same item twice; the
experts' side (accounts, workbench sessions, items, labels, adjudications, who saw what) in
`service_tables`, `users`, `sessions`, `labeling`, `adjudication` and `views`, read by both
faces."""

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
