"""`calibrant import`, written once: trace files -> one transcript per trace in a new folder,
written all or nothing (a temporary folder renamed into place)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pydantic import ValidationError

from ..contracts import CaseContract, DomainSnapshot, Transcript
from ..domains import DomainPack, UnknownDomain, default_domain
from ..domains import get as get_pack
from ..errors import ConfigError, InputError
from ..harness.runner import transcript_filename
from ..paths import component_problem, inside
from .builder import build_transcript
from .cases import Cases
from .chat import parse_chat
from .model import Assumption, ImportedTrace, ImportOptions, ImportResult, ParsedTrace, TraceTurn
from .otel import parse_otel
from .snapshots import read_domain_snapshot
from .tau import parse_tau

__all__ = ["import_traces"]


def _snapshots(
    options: ImportOptions, trace: ParsedTrace, count: int, pack: DomainPack
) -> tuple[DomainSnapshot | None, DomainSnapshot | None, dict[str, str]]:
    found: dict[str, DomainSnapshot | None] = {}
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
            path = _snapshot_path(options.snapshots, trace, which)
        else:
            path = None
        if path is not None and path.is_file():
            found[which] = read_domain_snapshot(pack, path)
        else:
            found[which] = None
            missing[which] = f"no {path}" if path is not None else "no --snapshots or --" + which
    return found["before"], found["after"], missing


def _snapshot_path(folder: Path, trace: ParsedTrace, which: str) -> Path:
    """`folder/<trace id>/<which>.json`: the trace id is one folder name, and the file (links
    resolved) stays inside `folder`; an id that would reach elsewhere is one InputError."""
    problem = component_problem(trace.trace_id)
    if problem is not None:
        raise InputError(
            trace.where,
            f"trace id {trace.trace_id!r} {problem}: with --snapshots it names one folder "
            f"of {folder}; give the trace an id that is a plain folder name",
        )
    path = folder / trace.trace_id / f"{which}.json"
    if path.exists() and not inside(folder, path):
        raise InputError(
            trace.where,
            f"trace id {trace.trace_id!r}: {path} leads outside --snapshots {folder} (a link); "
            "put its snapshots inside that folder",
        )
    return path


def _build(
    options: ImportOptions,
    trace: ParsedTrace,
    case: CaseContract | None,
    count: int,
    pack: DomainPack,
) -> Transcript:
    before, after, missing = _snapshots(options, trace, count, pack)
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
        pack=pack,
    )


def _pack(options: ImportOptions, cases: list[CaseContract]) -> tuple[str, DomainPack]:
    """The transcripts' domain (--domain, else the cases', else the default domain: the pack
    that reads files naming none) and its installed pack."""
    domain = options.domain or (cases[0].domain if cases else default_domain())
    for case in cases:
        if case.domain != domain:
            flag = f"--case {options.case}" if options.case else f"--cases {options.cases}"
            said = "(--domain)" if options.domain else f"(case '{cases[0].case}')"
            raise ConfigError(
                f"{flag}: case '{case.case}' is domain '{case.domain}', not '{domain}' "
                f"{said}; import each domain's traces on their own"
            )
    try:
        pack = get_pack(domain).pack
    except UnknownDomain as exc:
        raise ConfigError(f"--domain {domain}: {exc}") from None
    given = [f"--{w}" for w in ("snapshots", "before", "after") if getattr(options, w)]
    if pack.snapshot is None and given:
        raise ConfigError(
            f"--domain {domain}: domain pack '{domain}' declares no snapshot format, so "
            f"{' and '.join(given)} cannot be read; import without them (its records then "
            "stay unknown: harness_error)"
        )
    return domain, pack


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
    if options.domain is not None:
        _pack(options, [])  # an unknown domain is refused before any file is read
    cases = Cases.load(options)
    domain, pack = _pack(options, cases.given)
    parse = {"chat": parse_chat, "otel": parse_otel, "tau-bench": parse_tau}[options.format]
    traces = [t for p in options.paths for t in parse(p)]
    if not traces:
        raise ConfigError("no trace found in the given files; give the files your traces are in")
    ids: dict[str, str] = {}
    outputs: dict[str, str] = {}
    written: list[ImportedTrace] = []
    for trace in traces:
        if trace.trace_id in ids:
            raise InputError(
                trace.where,
                f"trace id {trace.trace_id} repeats (first in {ids[trace.trace_id]}); give each "
                "trace its own id",
            )
        ids[trace.trace_id] = trace.where
        choice = cases.choose(trace)
        _tool_call_text(options, trace)
        try:
            t = _build(options, trace, choice.case, len(traces), pack)
            if choice.waived is not None:
                t.end_state_not_judged = choice.waived
        except ValidationError as exc:  # a value the transcript contract refuses
            err = exc.errors(include_url=False)[0]
            where = ".".join(str(x) for x in err["loc"])
            raise InputError(
                trace.where,
                f"{err['msg']} (transcript field {where}); correct that value in the trace, "
                "its case or its snapshots",
            ) from None
        name = transcript_filename(t.transcript_id)
        if name in outputs:
            raise InputError(
                trace.where,
                f"two traces would both be written as {name}; give the traces ids that differ "
                "by more than case",
            )
        try:
            outputs[name] = t.model_dump_json(indent=1) + "\n"
        except ValueError:  # text no file can hold: a lone surrogate (from the case, say)
            raise InputError(
                trace.where,
                "its transcript would hold a lone surrogate escape (such as \\ud83d), which is "
                "not a character: write the text of the trace, case and snapshots as UTF-8",
            ) from None
        written.append(
            ImportedTrace(
                trace_id=trace.trace_id,
                transcript_id=t.transcript_id,
                file=name,
                source=trace.where,
                missing_snapshots=[
                    which
                    for which, snap in (
                        ("before", t.snapshot_before),
                        ("after", t.snapshot_after),
                    )
                    if snap is None
                ],
                case_id=t.case_id,
                contract=choice.waived is None,
            )
        )
    _write_folder(options.out, outputs)
    return ImportResult(
        format=options.format,
        domain=domain,
        out=str(options.out),
        files_read=len(options.paths),
        transcripts=written,
        assumptions=_assumptions(traces),
    )


def _tool_call_text(options: ImportOptions, trace: ParsedTrace) -> None:
    """Text sent beside a tool call: whether the customer saw it is the import's setting; it is
    listed among the import's assumptions."""
    beside = [ev for ev in trace.events if isinstance(ev, TraceTurn) and ev.with_tool_call]
    if not beside:
        return
    if options.tool_call_text == "hidden":
        for ev in beside:
            ev.seen_by_customer = False
        trace.assume(TEXT_HIDDEN, len(beside))
    else:
        trace.assume(TEXT_SHOWN, len(beside))


TEXT_SHOWN = (
    "text the agent sent in the same message as a tool call was seen by the customer "
    "(--tool-call-text shown: it counts as said to the customer)"
)
TEXT_HIDDEN = (
    "text the agent sent in the same message as a tool call was not seen by the customer "
    "(--tool-call-text hidden: kept, marked seen_by_customer false)"
)


def _assumptions(traces: list[ParsedTrace]) -> list[Assumption]:
    """Every assumption the traces needed, with how often and for which traces."""
    found: dict[str, tuple[int, list[str]]] = {}
    for trace in traces:
        for what, times in trace.assumptions.items():
            count, ids = found.get(what, (0, []))
            found[what] = (count + times, [*ids, trace.trace_id])
    return [Assumption(what=w, times=n, traces=ids) for w, (n, ids) in found.items()]


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
