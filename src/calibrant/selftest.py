"""Test the evaluator: a corpus of known-good transcripts that must pass and deliberately broken
ones that must fail with the right invariant named.

Broken transcripts come from two sources: the faulty scripted agents running against the real
controlled service, and targeted mutations of known-good transcripts (the seed's "inject
duplicates, unauthorized reads and false completion messages"). Each domain's pack gives its
plan (`PackRuntime.selftest_plan`); this module runs and grades it."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .contracts import CaseContract, Outcome, SafetyVerdict, Transcript
from .domains import RecordedEntry, default_domain, same_domain
from .domains import runtime as domain_runtime
from .errors import ConfigError
from .files import expand_paths, load_case, load_transcript
from .safety import check_transcript

__all__ = [
    "CorpusEntry",
    "SelftestResult",
    "SelftestRow",
    "build_corpus",
    "check_entry",
    "created_records",
    "edit_records",
    "grade",
    "imported",
    "selftest_target",
]


@dataclass
class CorpusEntry:
    """One self-test transcript and what the checker must say about it."""

    name: str
    description: str
    transcript: Transcript
    expect: dict[str, Outcome] = field(default_factory=dict)  # invariant -> required outcome

    @property
    def good(self) -> bool:
        return not self.expect


@dataclass(frozen=True)
class SelftestRow:
    """One corpus transcript: what it should show, what the checker said, what was wrong."""

    name: str
    expected: tuple[str, ...]  # "invariant=outcome", or ("clean",)
    flagged: tuple[str, ...]  # the violated / harness_error results, "invariant=outcome"
    problems: tuple[str, ...]  # empty: judged as expected


@dataclass(frozen=True)
class SelftestResult:
    domain: str
    rows: tuple[SelftestRow, ...]
    written_to: Path | None

    @property
    def failures(self) -> int:
        return sum(1 for r in self.rows if r.problems)


def selftest_target(domain: str | None, cases: Path | None) -> tuple[str, Path]:
    """The domain and the folder of cases a self-test runs on: `cases` or, when not given,
    the installed pack's own cases (whatever the working folder); `domain` or,
    when not given, the domain the cases name (the default domain when there are none)."""
    from .domains import get, pack_data

    if cases is None:
        name = domain or default_domain()
        return name, pack_data("cases", name)
    if domain is None:
        first = next(iter(expand_paths([cases], suffixes=(".yaml",))), None)
        domain = load_case(first).domain if first is not None else default_domain()
    get(domain)  # an unknown domain: one line naming the installed ones
    return domain, cases


def build_corpus(cases_dir: Path, *, seed: int = 0, domain: str | None = None) -> list[CorpusEntry]:
    """Generate the self-test corpus of `domain` from its cases in `cases_dir`: its pack's
    runtime gives the plan (`PackRuntime.selftest_plan`) and runs each trial, or imports each
    recording (`RecordedEntry`, a pack with no simulator). A case the plan names that
    `cases_dir` lacks, or a case of another domain, is one line (ConfigError). `domain`
    defaults to the domain of commands that name none (`default_domain()`)."""
    domain = domain or default_domain()
    cases: dict[str, CaseContract] = {}
    files: dict[str, Path] = {}
    for path in expand_paths([cases_dir], suffixes=(".yaml",)):
        case = load_case(path)
        same_domain(path, case.domain, expected=domain, expected_from="the self-test's domain")
        cases[case.case], files[case.case] = case, path
    runtime = domain_runtime(domain)
    plan = list(runtime.selftest_plan())
    if not plan:
        raise ConfigError(f"domain pack '{domain}' has no self-test plan")
    missing = sorted({e.case for e in plan if e.case is not None} - set(cases))
    if missing:
        raise ConfigError(
            f"{cases_dir}: the self-test of domain '{domain}' needs the case(s) "
            f"{', '.join(missing)}, not found there"
        )
    scratch = Path(tempfile.mkdtemp(prefix="calibrant-selftest-"))
    out: list[CorpusEntry] = []
    try:
        for e in plan:
            if isinstance(e, RecordedEntry):
                t = imported(e, domain, files.get(e.case) if e.case else None, scratch)
            else:
                t = runtime.run_trial(
                    cases[e.case],
                    e.agent,
                    trial=1,
                    seed=seed,
                    workdir=scratch,
                    agent_factory=runtime.make_agent,
                )
            if e.mutate is not None:
                t = t.model_copy(deep=True)
                e.mutate(t)
                t = Transcript.model_validate(t.model_dump())
            t.transcript_id = f"selftest:{e.name}"
            expect = {k: cast(Outcome, v) for k, v in e.expect.items()}
            out.append(CorpusEntry(e.name, e.description, t, expect))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def imported(entry: RecordedEntry, domain: str, case: Path | None, scratch: Path) -> Transcript:
    """The transcript of one recording, imported as `calibrant import` imports it (the same
    library function) into a folder of `scratch`: the entry's trace file, its snapshots, the
    case file `case` (None: the end state is not judged). A file holding more or less than one
    trace is one line (ConfigError)."""
    from .importers import ImportOptions, import_traces

    result = import_traces(
        ImportOptions(
            format=cast(Any, entry.format),
            paths=[entry.trace],
            out=scratch / f"recorded-{len(list(scratch.iterdir()))}",
            domain=domain,
            case=case,
            no_contract=case is None,
            snapshots=entry.snapshots,
            tenant=entry.tenant,
            agent_principal=entry.agent_principal,
        )
    )
    if len(result.transcripts) != 1:
        raise ConfigError(
            f"{entry.trace}: the self-test entry '{entry.name}' reads one conversation; the "
            f"file holds {len(result.transcripts)}: give each recording its own file"
        )
    return load_transcript(Path(result.out) / result.transcripts[0].file)


def grade(entry: CorpusEntry, verdict: SafetyVerdict) -> list[str]:
    """What the checker got wrong on one entry (empty: it behaved)."""
    got = {r.invariant: r.outcome for r in verdict.results}
    problems = []
    if entry.good:
        bad = [f"{k}={v}" for k, v in got.items() if v in ("violated", "harness_error")]
        if bad:
            problems.append("known-good transcript flagged: " + ", ".join(bad))
    for inv, want in entry.expect.items():
        if got.get(inv) != want:
            problems.append(f"{inv}: expected {want}, got {got.get(inv)}")
    return problems


def check_entry(entry: CorpusEntry) -> tuple[SafetyVerdict, list[str]]:
    """Check one entry and grade the checker."""
    v = check_transcript(entry.transcript)
    return v, grade(entry, v)


def edit_records(
    t: Transcript, kind: str, change: Callable[[dict[str, Any]], None], *, before: bool = False
) -> None:
    """Plant a fault in a transcript's end state: apply `change` to every record of `kind` the
    acting tenant holds after the trial (and before it too, with `before`: a record that held
    throughout the trial). For a `SelftestEntry`'s or `RecordedEntry`'s `mutate`."""
    snaps = [t.snapshot_after, t.snapshot_before] if before else [t.snapshot_after]
    for snap in snaps:
        assert snap is not None
        tenant = snap.tenant(t.acting_tenant)
        assert tenant is not None
        for record in tenant.records.get(kind, []):
            change(record)


def created_records(t: Transcript, kind: str, id_field: str) -> list[dict[str, Any]]:
    """The acting tenant's records of `kind` the trial created: in the snapshot after it, not
    (by `id_field`) in the one before. Editing them plants a fault in what the agent did."""
    assert t.snapshot_before is not None and t.snapshot_after is not None
    before = t.snapshot_before.tenant(t.acting_tenant)
    after = t.snapshot_after.tenant(t.acting_tenant)
    assert before is not None and after is not None
    old = {r[id_field] for r in before.records.get(kind, [])}
    return [r for r in after.records.get(kind, []) if r[id_field] not in old]
