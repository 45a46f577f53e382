"""Persistence: judgments cached by identity, in SQLite (default) or PostgreSQL (by URL)."""

from .db import STORE_SCHEMA_VERSION, Store, database_url, make_engine

__all__ = ["STORE_SCHEMA_VERSION", "Store", "database_url", "make_engine"]
