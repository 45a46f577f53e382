"""The `--out` folder of a trials run: what makes a run resumable after a crash.

While a run is unfinished its folder holds a marker file (`TRIALS_INCOMPLETE`, JSON: the command
that started it and a note for people) next to the transcripts already written; transcripts are
written atomically, one per finished trial, so each file is a finished trial. The trials' scratch
files (their SQLite databases and checkpoints) live in a hidden folder inside the run folder, never
in the system's temporary folder: removed when the run ends or is interrupted, and by the next
run when the process was killed outright. A lock on the folder keeps two runs out of it at once.

A rerun of the same command resumes: finished trials are read back, not rerun. Another command on
an unfinished run, or any command on a folder that already holds transcripts of a finished run,
is refused unless `restart` is asked for, which removes the old run's transcripts first."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from ..contracts import CaseContract, Transcript, content_hash
from ..errors import ConfigError
from ..files import load_transcript, write_atomic
from ..paths import check_output_path
from .runner import HARNESS_VERSION, transcript_filename

PLAN_TOOL_SCHEMA_VERSION = "tools_v2"
"""The `tool_schema_version` every run folder's marker has held (the first pack's tool schema):
kept, so a run interrupted before an upgrade still resumes; a tool change that matters shows in
each case's hash and in the transcripts' provenance."""

__all__ = ["MARKER", "SCRATCH", "RunPlan", "check_out_folder", "open_run_folder", "RunFolder"]

MARKER = "TRIALS_INCOMPLETE"
SCRATCH = ".trials-scratch"
OPTION = "--out"


def _endpoint(api_base: str | None) -> str | None:
    """The endpoint without credentials, query or fragment (never stored with a secret)."""
    if not api_base:
        return None
    parts = urlsplit(api_base)
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:  # e.g. a password with a '/' in it, not percent-encoded
        raise ConfigError(
            "--api-base is not a URL calibrant can read (its port is not a number; "
            "percent-encode '/', '@' or ':' inside a user name or password)"
        ) from None
    netloc = f"{host}:{port}" if port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class PlannedCase(BaseModel):
    """A case of a run, by id and content hash (the marker's `cases`)."""

    case: str
    hash: str


class RunCommand(BaseModel):
    """What makes two trials runs the same run, as the marker file records it (`command`)."""

    agent: str
    k: int
    seed: int
    api_base: str | None
    harness_version: str
    tool_schema_version: str
    cases: list[PlannedCase]


class RecordedCommand(BaseModel):
    """The `command` of a marker as read back: any value as it was written (a marker written by
    another calibrant, or edited, is compared key by key, never refused for its shape)."""

    model_config = ConfigDict(extra="ignore")

    agent: JsonValue = None
    k: JsonValue = None
    seed: JsonValue = None
    api_base: JsonValue = None
    harness_version: JsonValue = None
    tool_schema_version: JsonValue = None
    cases: JsonValue = None


@dataclass(frozen=True)
class RunPlan:
    """Everything that makes two trials runs the same run, and the trials it holds."""

    agent: str
    k: int
    seed: int
    api_base: str | None
    cases: tuple[tuple[str, str], ...]  # (case id, content hash), in run order

    @classmethod
    def make(
        cls, cases: Sequence[CaseContract], agent: str, *, k: int, seed: int, api_base: str | None
    ) -> RunPlan:
        return cls(
            agent, k, seed, _endpoint(api_base), tuple((c.case, content_hash(c)) for c in cases)
        )

    def transcript_id(self, case_id: str, trial: int) -> str:
        return f"{case_id}:{self.agent}:s{self.seed}:t{trial}"

    def filenames(self) -> list[str]:
        """The transcript file of every trial, in run order."""
        return [
            transcript_filename(self.transcript_id(case, trial))
            for case, _ in self.cases
            for trial in range(1, self.k + 1)
        ]

    def doc(self) -> RunCommand:
        return RunCommand(
            agent=self.agent,
            k=self.k,
            seed=self.seed,
            api_base=self.api_base,
            harness_version=HARNESS_VERSION,
            tool_schema_version=PLAN_TOOL_SCHEMA_VERSION,
            cases=[PlannedCase(case=c, hash=h) for c, h in self.cases],
        )


def _differences(old: RecordedCommand, new: RunCommand) -> list[str]:
    out = []
    for key in ("agent", "k", "seed", "api_base", "harness_version", "tool_schema_version"):
        was, now = getattr(old, key), getattr(new, key)
        if was != now:
            out.append(f"{key} {was}, not {now}")
    listed = old.cases if isinstance(old.cases, list) else []
    old_cases = {c.get("case"): c.get("hash") for c in listed if isinstance(c, dict)}
    new_cases = {c.case: c.hash for c in new.cases}
    if list(old_cases) != list(new_cases):
        out.append(f"cases {', '.join(map(str, old_cases))}, not {', '.join(new_cases)}")
    else:
        out += [f"case {c} changed since" for c, h in new_cases.items() if old_cases[c] != h]
    return out


def check_out_folder(out: Path) -> None:
    """Fail now, before anything is written, if `out` cannot be a folder of transcripts."""
    if out.is_dir():
        if not os.access(out, os.W_OK | os.X_OK):
            raise ConfigError(f"{OPTION} {out}: cannot write in it")
        return
    if out.is_symlink() and not out.exists():
        raise ConfigError(f"{OPTION} {out}: dangling link")
    if out.exists():
        raise ConfigError(f"{OPTION} {out}: is a file; give a folder for the transcripts")
    check_output_path(out, option=OPTION)  # the folders above: none a file, writable


class RunFolder:
    """An opened, locked run folder (see `open_run_folder`)."""

    def __init__(self, out: Path, plan: RunPlan) -> None:
        self.out, self.plan = out, plan
        self.marker = out / MARKER
        self.scratch = out / SCRATCH

    def path(self, transcript_id: str) -> Path:
        return self.out / transcript_filename(transcript_id)

    def _transcript_files(self) -> list[Path]:
        return sorted(p for p in self.out.glob("*.json") if p.is_file())

    def _remove_leftovers(self) -> None:
        """Scratch files and half-written temporaries of a run that was killed."""
        shutil.rmtree(self.scratch, ignore_errors=True)
        for pattern in (".*.json.*.tmp", f".{MARKER}.*.tmp"):
            for tmp in self.out.glob(pattern):
                tmp.unlink(missing_ok=True)

    def prepare(self, *, restart: bool) -> dict[str, Transcript]:
        """Make the folder ready; the finished trials to keep, by file name."""
        new = self.plan.doc()
        files = self._transcript_files()
        if restart:
            self._discard(files)
            files = []
        elif self.marker.exists():
            old = self._read_marker()
            diffs = _differences(old, new)
            if diffs:
                raise ConfigError(
                    f"{OPTION} {self.out} holds an unfinished run of another command "
                    f"({'; '.join(diffs)}); rerun that command to resume it, or add --restart "
                    "to discard it"
                )
        elif files:
            raise ConfigError(
                f"{OPTION} {self.out} already holds {len(files)} transcript file(s) and no "
                f"unfinished run; give a new folder, or add --restart to replace them"
            )
        done = self._finished(files)
        self._remove_leftovers()
        if not self.marker.exists():
            note = (
                "This trials run has not finished. Rerun the same command to resume it (finished "
                "trials are kept), or add --restart to start over."
            )
            started = datetime.now(UTC).isoformat()
            doc = {"note": note, "started_at": started, "command": new.model_dump()}
            write_atomic(self.marker, json.dumps(doc, indent=1) + "\n")
        self.scratch.mkdir()
        return done

    def _read_marker(self) -> RecordedCommand:
        """The command the marker names (the unfinished run's)."""
        try:
            doc = json.loads(self.marker.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"{OPTION} {self.out}: {MARKER} is unreadable ({exc}); add --restart to start over"
            ) from None
        command = doc.get("command") if isinstance(doc, dict) else None
        try:
            return RecordedCommand.model_validate(command, strict=True)
        except ValidationError:  # not an object (JSON values are all a JsonValue)
            raise ConfigError(
                f"{OPTION} {self.out}: {MARKER} names no command to resume; add --restart to "
                "start over"
            ) from None

    def _finished(self, files: list[Path]) -> dict[str, Transcript]:
        """Every transcript present must be one of this run's trials, as this run would make it."""
        wanted = set(self.plan.filenames())
        hashes = dict(self.plan.cases)
        done: dict[str, Transcript] = {}
        for f in files:
            if f.name not in wanted:
                raise ConfigError(
                    f"{OPTION} {self.out} holds {f.name}, which is not a trial of this run; "
                    "give a new folder, or add --restart to replace the old run"
                )
            t = load_transcript(f)
            p = t.provenance
            if (
                t.transcript_id != self.plan.transcript_id(t.case_id, t.trial)
                or p.agent != self.plan.agent
                or p.seed != self.plan.seed
                or hashes.get(t.case_id) != p.case_hash
            ):
                raise ConfigError(
                    f"{OPTION} {self.out}: {f.name} does not match this run (agent, seed or "
                    "case changed); add --restart to start over"
                )
            done[f.name] = t
        return done

    def _discard(self, files: list[Path]) -> None:
        """--restart: remove the old run's transcripts (only files that are transcripts)."""
        for f in files:
            try:
                doc = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                doc = None
            if not (isinstance(doc, dict) and "transcript_id" in doc and "provenance" in doc):
                raise ConfigError(
                    f"{OPTION} {self.out} holds {f.name}, which is not a transcript; "
                    "--restart removes only transcripts: give a folder of trial runs"
                )
        for f in files:
            f.unlink()
        self.marker.unlink(missing_ok=True)

    def finish(self) -> None:
        """Every trial is written: remove the scratch folder, then the marker."""
        shutil.rmtree(self.scratch, ignore_errors=True)
        self.marker.unlink(missing_ok=True)

    def abandon(self) -> None:
        """Interrupted: remove the scratch folder; the marker stays for the resume."""
        self._remove_leftovers()


@contextmanager
def open_run_folder(out: Path, plan: RunPlan) -> Iterator[RunFolder]:
    """Create and lock `out` for one run. A second run into the same folder is refused."""
    check_out_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(
                f"{OPTION} {out} is in use by another running `calibrant trials`"
            ) from None
        folder = RunFolder(out, plan)
        try:
            yield folder
        except BaseException:
            folder.abandon()
            raise
    finally:
        os.close(fd)
