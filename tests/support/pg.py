"""A fresh PostgreSQL schema per test on the machine's server (127.0.0.1:5432, database test),
dropped afterwards: tests never leave rows in a shared schema."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, text

PG = "postgresql+psycopg2://postgres@127.0.0.1:5432/test"

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
"""Parameters of a test or fixture that runs on both stores: a SQLite file, and PostgreSQL (marked
`postgres`, so in the slow tier)."""


@contextmanager
def fresh_schema() -> Iterator[str]:
    """Yields a store URL whose search_path is a new, empty schema."""
    schema = f"calibrant_test_{uuid.uuid4().hex[:10]}"
    # the admin connection only creates and drops the schema, never writes store metadata
    admin = create_engine(PG)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{PG}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()
