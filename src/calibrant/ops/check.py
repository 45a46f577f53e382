"""`check`, written once: transcripts against the deterministic safety invariants, one verdict
each, with totals per invariant; the run is recorded (`runs list`) when a store is given. The
command line keeps how the verdicts are shown (tables, --json, --jsonl)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CalibrantError
from .common import Hooks, OpResult, record_finished

if TYPE_CHECKING:
    from ..contracts import SafetyVerdict
    from ..contracts.reports import CheckReport  # noqa: F401 (the result's model)
    from ..paths import FileList
    from ..reports.safety import SafetyTotals
    from ..store import Store

__all__ = ["CheckHooks", "CheckOptions", "CheckResult", "check"]


@dataclass(frozen=True)
class CheckOptions:
    """Transcripts (files or folders at `paths`) checked against the case contract at `case`
    (None: the copy embedded in each transcript)."""

    paths: tuple[Path, ...]
    case: Path | None = None


@dataclass(frozen=True)
class CheckHooks(Hooks):
    """`on_inputs(files)`: the transcript files found and the case read (before any check);
    `on_verdict(verdict)`: each transcript's verdict, in order (not kept by the operation:
    memory stays flat)."""

    on_inputs: Callable[[FileList], None] | None = None
    on_verdict: Callable[[SafetyVerdict], None] | None = None


@dataclass(frozen=True)
class CheckResult(OpResult["CheckReport"]):
    """The run ("" when not recorded), its summary report, the files read and the totals."""

    KIND = "check"

    files: FileList | None = None
    totals: SafetyTotals | None = field(default=None, compare=False)


def check(store: Store | None, options: CheckOptions, hooks: Hooks | None = None) -> CheckResult:
    """Check every transcript; a bad file stops the run (nothing recorded)."""
    from ..domains import same_domain
    from ..files import expand_paths, load_case, load_transcript
    from ..reports.safety import SafetyTotals
    from ..safety import check_transcript

    files = expand_paths(list(options.paths), suffixes=(".json",))
    if not files:
        raise CalibrantError(f"no transcript (*.json) found in the given paths; {files.summary()}")
    contract = load_case(options.case) if options.case is not None else None
    on_verdict = hooks.on_verdict if isinstance(hooks, CheckHooks) else None
    if isinstance(hooks, CheckHooks) and hooks.on_inputs is not None:
        hooks.on_inputs(files)
    totals = SafetyTotals()
    for f in files:
        t = load_transcript(f)
        if contract is not None:  # one domain per run: the case's
            same_domain(f, t.domain, expected=contract.domain, expected_from=f"case {options.case}")
        v = check_transcript(t, contract=contract, source=str(f))
        totals.add(v)
        if on_verdict is not None:
            on_verdict(v)
    summary = {
        **totals.doc().json_data(),
        "files": {"read": len(files), "skipped": len(files.skipped)},
    }
    run_id = ""
    if store is not None:
        arguments = {"paths": list(options.paths), "case": options.case}
        run_id = record_finished(store, "check", summary, arguments=arguments)
        (hooks or Hooks()).run(run_id)
    return CheckResult(
        run_id=run_id, report=CheckResult.model_of(summary), files=files, totals=totals
    )
