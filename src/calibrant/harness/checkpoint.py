"""A durable checkpoint store (SQLite) so a crashed agent can resume its workflow."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from pydantic import JsonValue

__all__ = ["CheckpointStore"]


class CheckpointStore:
    """Append-only workflow checkpoints per thread. One connection in autocommit mode with a
    write-ahead log: a save is on disk when it returns and survives the agent process dying
    (synchronous=NORMAL risks only the last save on a power loss)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS checkpoints (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "thread TEXT NOT NULL, state TEXT NOT NULL)"
        )

    def save(self, thread: str, state: dict[str, Any]) -> None:
        """Persist `state` as the thread's latest checkpoint."""
        self._db.execute(
            "INSERT INTO checkpoints (thread, state) VALUES (?, ?)",
            (thread, json.dumps(state, sort_keys=True)),
        )

    def load(self, thread: str) -> dict[str, JsonValue] | None:
        """The thread's latest checkpoint (the JSON object saved), or None."""
        row = self._db.execute(
            "SELECT state FROM checkpoints WHERE thread = ? ORDER BY id DESC LIMIT 1", (thread,)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def close(self) -> None:
        """Close the connection."""
        self._db.close()
