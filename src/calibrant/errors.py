"""The one error hierarchy. Every message is written for the user, in one line."""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "CalibrantError",
    "InputError",
    "ConfigError",
    "JudgeError",
    "JudgeAuthError",
    "Terminated",
]


class CalibrantError(Exception):
    """Base of every error calibrant raises on purpose; the CLI prints it in one line, exit 2."""


class InputError(CalibrantError):
    """A user-supplied file is malformed: names the file, the line (when known) and the field."""

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.detail = message
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{message}")


class ConfigError(CalibrantError):
    """An option or setting is invalid or inconsistent."""


class JudgeError(CalibrantError):
    """The judge cannot be set up (unknown model, missing extra, bad saved configuration)."""


class JudgeAuthError(JudgeError):
    """The judge's provider refused the credentials (401/403): the whole run stops, since every
    other call would be refused too."""


class Terminated(Exception):  # noqa: N818  (a signal, not a failure)
    """The run was stopped by SIGTERM and drained like Ctrl-C (answers received are kept); the
    CLI exits 143. Not a CalibrantError: nothing the user gave was wrong."""
