"""The environment variables calibrant reads, in one typed object.

Every ``CALIBRANT_*`` variable is a field of :class:`Settings` (the variable is the field's name
in capitals after ``CALIBRANT_``); code reads them through :func:`get_settings`, never from
``os.environ``. The environment is read at each call, so a process (or a test) that changes a
variable sees the new value; reading it is a few microseconds. An empty variable counts as
unset. A value that is not what its field expects raises :class:`~calibrant.errors.ConfigError`
naming the variable (the CLI prints it in one line and exits 2)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ConfigError

__all__ = ["PREFIX", "Settings", "get_settings", "variable"]

PREFIX = "CALIBRANT_"


class Settings(BaseModel):
    """calibrant's settings from the environment; a field left unset takes its default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    database_url: str | None = Field(
        None,
        description="CALIBRANT_DATABASE_URL: the store, as a SQLAlchemy URL (sqlite:///file.db "
        "or postgresql://...). Unset: a SQLite file calibrant.db in the working directory.",
    )
    judges_dir: Path = Field(
        Path("judges"),
        description="CALIBRANT_JUDGES_DIR: the folder of saved judges (YAML), default ./judges.",
    )
    claim_lease_s: float = Field(
        120.0,
        gt=0,
        allow_inf_nan=False,
        description="CALIBRANT_CLAIM_LEASE_S: seconds a claim on a judgment (or a run's process "
        "lease) lasts without renewal; another process may take the work over after that.",
    )
    worker_heartbeat_s: float = Field(
        10.0,
        gt=0,
        allow_inf_nan=False,
        description="CALIBRANT_WORKER_HEARTBEAT_S: seconds between a queue worker's heartbeats; "
        "a worker silent for three heartbeats is taken as dead and its jobs are retried.",
    )
    embedded_cache: str | None = Field(
        None,
        description="CALIBRANT_EMBEDDED_CACHE: the folder where the embedded judge keeps the "
        "state of long leading messages, or off (also 0, no, false) to keep none. Unset: "
        "$XDG_CACHE_HOME/calibrant/embedded (~/.cache when XDG_CACHE_HOME is unset).",
    )
    embedded_threads: int | None = Field(
        None,
        ge=1,
        description="CALIBRANT_EMBEDDED_THREADS: threads llama.cpp uses for the embedded judge "
        "(a whole number, at least 1). Unset: half the available CPUs, at least one.",
    )
    data_root: Path = Field(
        Path("."),
        description="CALIBRANT_DATA_ROOT: the folder the service's jobs read files on the "
        "server in (gold sets, verdicts files, transcripts): a job's path is taken relative "
        "to it and, links resolved, must stay inside it. Unset: the working directory of "
        "`calibrant serve` or `calibrant worker`.",
    )
    sandbox_token: str | None = Field(
        None,
        description="CALIBRANT_SANDBOX_TOKEN: the token `calibrant sandbox` requires of its "
        "clients (and the scripted client sends). Unset: the sandbox makes a random one.",
    )


_EXPECTS = {
    "claim_lease_s": "a number of seconds above 0",
    "worker_heartbeat_s": "a number of seconds above 0",
    "embedded_threads": "a whole number of threads, at least 1",
}


def variable(field: str) -> str:
    """The environment variable of a :class:`Settings` field."""
    return PREFIX + field.upper()


def get_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings from `environ` (default: the process environment, read now)."""
    env = os.environ if environ is None else environ
    raw = {}
    for name in Settings.model_fields:
        value = env.get(variable(name), "").strip()
        if value:
            raw[name] = value
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0])
        if name in _EXPECTS:
            message = f"{variable(name)} must be {_EXPECTS[name]}, not {raw[name]!r}"
        else:
            message = f"{variable(name)}={raw[name]!r}: {error['msg']}"
        raise ConfigError(message) from None
