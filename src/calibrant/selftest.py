"""Test the evaluator: a corpus of known-good transcripts that must pass and deliberately broken
ones that must fail with the right invariant named.

Broken transcripts come from two sources: the faulty scripted agents running against the real
controlled service, and targeted mutations of known-good transcripts (the seed's "inject
duplicates, unauthorized reads and false completion messages"). Each domain's pack gives its
plan (`PackRuntime.selftest_plan`); this module runs and grades it."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from .contracts import CaseContract, Outcome, SafetyVerdict, Transcript
from .domains import default_domain, same_domain
from .domains import runtime as domain_runtime
from .errors import ConfigError
from .files import expand_paths, load_case
from .safety import check_transcript

__all__ = ["CorpusEntry", "build_corpus", "grade", "selftest_target"]


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
    runtime gives the plan (`PackRuntime.selftest_plan`) and runs each trial. A case the plan
    names that `cases_dir` lacks, or a case of another domain, is one line (ConfigError).
    `domain` defaults to the domain of commands that name none (`default_domain()`)."""
    domain = domain or default_domain()
    cases: dict[str, CaseContract] = {}
    for path in expand_paths([cases_dir], suffixes=(".yaml",)):
        case = load_case(path)
        same_domain(path, case.domain, expected=domain, expected_from="the self-test's domain")
        cases[case.case] = case
    runtime = domain_runtime(domain)
    plan = list(runtime.selftest_plan())
    if not plan:
        raise ConfigError(f"domain pack '{domain}' has no self-test plan")
    missing = sorted({e.case for e in plan} - set(cases))
    if missing:
        raise ConfigError(
            f"{cases_dir}: the self-test of domain '{domain}' needs the case(s) "
            f"{', '.join(missing)}, not found there"
        )
    scratch = Path(tempfile.mkdtemp(prefix="calibrant-selftest-"))
    out: list[CorpusEntry] = []
    try:
        for e in plan:
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
