"""Alembic migrations of the store (run by `make_engine`; see env.py)."""
