"""`calibrant import`, written once: trace files -> one transcript per trace in a new folder,
written all or nothing (a temporary folder renamed into place)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from pydantic import ValidationError

from ..contracts import CaseContract, LedgerSnapshot, Transcript
from ..errors import ConfigError, InputError
from ..files import load_case, validation_error
from ..harness.runner import transcript_filename
from .builder import build_transcript
from .chat import parse_chat
from .model import ImportedTrace, ImportOptions, ImportResult, ParsedTrace
from .otel import parse_otel

__all__ = ["import_traces"]


def _snapshot(path: Path) -> LedgerSnapshot:
    """A LedgerSnapshot JSON file; errors name the file, line and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None
    try:
        return LedgerSnapshot.model_validate_json(text)
    except ValidationError as exc:
        try:
            json.loads(text)
        except json.JSONDecodeError as bad:
            raise InputError(path, f"malformed JSON: {bad.msg}", line=bad.lineno) from None
        raise validation_error(path, text, exc) from None


def _snapshots(
    options: ImportOptions, trace: ParsedTrace, count: int
) -> tuple[LedgerSnapshot | None, LedgerSnapshot | None, dict[str, str]]:
    found: dict[str, LedgerSnapshot | None] = {}
    missing: dict[str, str] = {}
    for which in ("before", "after"):
        given: Path | None = getattr(options, which)
        if given is not None:
            if count > 1:
                raise ConfigError(
                    f"--{which} is for one trace; the input holds {count}: use --snapshots DIR"
                )
            path: Path | None = given
        elif options.snapshots is not None:
            path = options.snapshots / trace.trace_id / f"{which}.json"
        else:
            path = None
        if path is not None and path.is_file():
            found[which] = _snapshot(path)
        else:
            found[which] = None
            missing[which] = f"no {path}" if path is not None else "no --snapshots or --" + which
    return found["before"], found["after"], missing


def _build(
    options: ImportOptions, trace: ParsedTrace, case: CaseContract | None, count: int
) -> Transcript:
    before, after, missing = _snapshots(options, trace, count)
    return build_transcript(
        trace,
        fmt=options.format,
        case=case,
        before=before,
        after=after,
        missing=missing,
        tenant=options.tenant,
        principal=options.agent_principal,
        agent=options.agent,
    )


def _check_out(out: Path) -> None:
    if out.exists() and not (out.is_dir() and not any(out.iterdir())):
        raise ConfigError(f"--out {out}: already exists; give a new folder")
    parent = out.absolute().parent
    while not parent.exists():  # missing folders above are created when writing
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"--out {out}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"--out {out}: cannot write in {parent}")


def import_traces(options: ImportOptions) -> ImportResult:
    """Read every trace, build every transcript, then write them all at once (nothing is
    written when any input is malformed)."""
    _check_out(options.out)
    if options.snapshots is not None and not options.snapshots.is_dir():
        raise ConfigError(f"--snapshots {options.snapshots}: not a folder")
    case = load_case(options.case) if options.case is not None else None
    parse = parse_chat if options.format == "chat" else parse_otel
    traces = [t for p in options.paths for t in parse(p)]
    if not traces:
        raise ConfigError("no trace found in the given files")
    ids: dict[str, str] = {}
    outputs: dict[str, str] = {}
    written: list[ImportedTrace] = []
    for trace in traces:
        if trace.trace_id in ids:
            raise InputError(
                trace.where, f"trace id {trace.trace_id} repeats (first in {ids[trace.trace_id]})"
            )
        ids[trace.trace_id] = trace.where
        try:
            t = _build(options, trace, case, len(traces))
        except ValidationError as exc:  # a value the transcript contract refuses
            err = exc.errors(include_url=False)[0]
            where = ".".join(str(x) for x in err["loc"])
            raise InputError(trace.where, f"{err['msg']} (transcript field {where})") from None
        name = transcript_filename(t.transcript_id)
        if name in outputs:
            raise InputError(trace.where, f"two traces would both be written as {name}")
        outputs[name] = t.model_dump_json(indent=1) + "\n"
        written.append(
            ImportedTrace(
                trace_id=trace.trace_id,
                transcript_id=t.transcript_id,
                file=name,
                source=trace.where,
                missing_snapshots=[
                    which
                    for which, snap in (("before", t.ledger_before), ("after", t.ledger_after))
                    if snap is None
                ],
            )
        )
    _write_folder(options.out, outputs)
    return ImportResult(
        format=options.format,
        domain=options.domain,
        out=str(options.out),
        files_read=len(options.paths),
        transcripts=written,
    )


def _write_folder(out: Path, outputs: dict[str, str]) -> None:
    """Every file into a temporary folder beside `out`, then one rename."""
    tmp = out.absolute().parent / f".{out.name}.import-{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        for name, text in outputs.items():
            (tmp / name).write_text(text, encoding="utf-8")
        if out.is_dir():
            out.rmdir()  # empty (checked before): replaced by the finished folder
        tmp.rename(out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ConfigError(f"cannot write {out}: {exc.strerror}") from None
