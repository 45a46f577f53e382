"""Transcripts to score as raw units with a cheap key: the SHA-256 of their bytes.

A unit is one JSON file or one line of a JSON Lines file. Its digest looks it up in the store's
sources table (shared with `calibrant judge`, same reader fingerprint): a unit read before by the
same reader code is known to be valid, with its content hash, id and safety summary, so it needs
no parsing, no validation and no safety check again. Only units never seen are parsed. Units
are read in chunks, so memory stays flat in the number of transcripts."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from ..contracts import Transcript, content_hash
from ..contracts.reports.score_parts import SafetySummary
from ..errors import InputError
from ..files import domain_of_bytes, load_transcript, transcript_from_line
from ..judge.batch import reader_fingerprint
from ..paths import FileList
from ..safety import check_transcript, safety_summary
from ..store import Store

__all__ = ["Unit", "Known", "iter_units", "parse_unit", "know_units", "chunks", "validate_units"]

LINE_KEY = b"calibrant jsonl line\0"  # lines and whole files never share a cache key


@dataclass
class Unit:
    source: str  # the file, or file:line for JSON Lines
    path: Path
    line: int | None
    raw: bytes
    digest: str


@dataclass
class Known:
    """What the store remembers of a unit's bytes."""

    transcript_hash: str
    transcript_id: str
    safety: SafetySummary  # safety.outcomes.safety_summary
    transcript: Transcript | None = None  # set when this run parsed it
    domain: str = ""  # the domain the unit names ("": the default domain)


def iter_units(files: FileList) -> Iterator[Unit]:
    """Every unit in order, unparsed (bad files are found by parse_unit, not here)."""
    for path in files:
        if path.suffix == ".jsonl":
            try:
                fh = path.open("rb")
            except OSError as exc:
                raise InputError(path, f"cannot read: {exc.strerror}") from None
            with fh:
                for n, raw in enumerate(fh, start=1):
                    if raw.strip():
                        digest = hashlib.sha256(LINE_KEY + raw.rstrip(b"\r\n")).hexdigest()
                        yield Unit(f"{path}:{n}", path, n, raw, digest)
        else:
            try:
                raw = path.read_bytes()
            except OSError:
                load_transcript(path)  # raises the clear error (no such file, cannot read)
                raise
            yield Unit(str(path), path, None, raw, hashlib.sha256(raw).hexdigest())


def parse_unit(u: Unit) -> Transcript:
    """The unit's transcript, validated; an InputError names file, line and field."""
    if u.line is None:
        return load_transcript(u.path)
    try:
        text = u.raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(u.path, "not UTF-8 text", line=u.line) from None
    return transcript_from_line(u.path, u.line, text)


def chunks(it: Iterator[Unit], size: int) -> Iterator[list[Unit]]:
    while chunk := list(islice(it, size)):
        yield chunk


def know_units(units: list[Unit], store: Store, *, keep: bool = True) -> list[Known]:
    """What each unit is: from the store when its bytes were read before, else parsed,
    validated and checked here (and remembered). `keep=False` drops each parsed transcript at
    once (a validation pass: the heap never holds a chunk of parsed transcripts)."""
    reader = reader_fingerprint()
    found = store.sources(reader, [u.digest for u in units])
    out: list[Known] = []
    new: dict[str, tuple[str, str, str, str]] = {}
    for u in units:
        hit = found.get(u.digest)
        if hit is not None:
            th, tid, safety = hit
            summary = SafetySummary.model_validate_json(safety)
            out.append(Known(th, tid, summary, domain=domain_of_bytes(u.raw)))
            continue
        t = parse_unit(u)
        summary = safety_summary(check_transcript(t, source=u.source))
        th = content_hash(t)
        out.append(Known(th, t.transcript_id, summary, t if keep else None, t.domain))
        text = json.dumps(summary.json_data(), sort_keys=True)
        new[u.digest] = (u.digest, th, t.transcript_id, text)
        found[u.digest] = (th, t.transcript_id, text)
    store.put_sources(reader, list(new.values()))
    return out


def validate_units(
    files: FileList,
    store: Store,
    *,
    chunk: int = 500,
    check: Callable[[Unit, Known], None] | None = None,
) -> int:
    """A validation pass over every unit, `chunk` at a time, before any model call: an invalid
    one raises its InputError, a valid one is remembered and given to `check` (which may refuse
    it too). Returns the number of units. Nothing
    of a chunk outlives the pass (a caller's loop variable would keep the last chunk's raw
    bytes, several MB, resident for the whole run)."""
    total = 0
    for part in chunks(iter_units(files), chunk):
        known = know_units(part, store, keep=False)
        if check is not None:
            for u, k in zip(part, known, strict=True):
                check(u, k)
        total += len(part)
    return total
