"""A durable checkpoint store (SQLite) so a crashed agent can resume its workflow."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

__all__ = ["CheckpointStore"]


class CheckpointStore:
    """Append-only workflow checkpoints per thread, committed to disk on every save."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS checkpoints (id INTEGER PRIMARY KEY "
                "AUTOINCREMENT, thread TEXT NOT NULL, state TEXT NOT NULL)"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, isolation_level=None)

    def save(self, thread: str, state: dict[str, Any]) -> None:
        """Persist `state` as the thread's latest checkpoint."""
        with self._connect() as db:
            db.execute(
                "INSERT INTO checkpoints (thread, state) VALUES (?, ?)",
                (thread, json.dumps(state, sort_keys=True)),
            )

    def load(self, thread: str) -> dict[str, Any] | None:
        """The thread's latest checkpoint, or None."""
        with self._connect() as db:
            row = db.execute(
                "SELECT state FROM checkpoints WHERE thread = ? ORDER BY id DESC LIMIT 1", (thread,)
            ).fetchone()
        return None if row is None else dict(json.loads(row[0]))
