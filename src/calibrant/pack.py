"""Everything a domain pack imports from calibrant, in one module: `from calibrant.pack import ...`.

A pack declares its business (`DomainPack`: its records and the roles of their fields, its
cases, rubrics and gold set), may run its domain (`PackRuntime`: agents, trials, tools), states
the rules only its business has (`pack_invariant`, read through `Evidence`) and tests the
checker on its own transcripts (`SelftestEntry` for a trial it runs, `RecordedEntry` for a
conversation it recorded). A pack with no simulator is built from this module alone: its
runtime is an `ImportOnlyRuntime`, its transcripts come from `calibrant import`
(`import_traces`, or the steps `parse_chat`, `read_snapshot`, `build_transcript`), its
self-test imports its recordings. docs/domains.md walks through each part;
examples/import_only_pack is a whole pack that imports nothing else of calibrant.

**What is public, and how it changes.** Every name in this module's `__all__`, with the
fields, parameters and methods its own docstring documents, is calibrant's promise to packs.
calibrant's other modules are its own and change without notice: a pack that reaches into them
may break on any release. A public name is removed or changed incompatibly only after it has
been deprecated for one minor version (it keeps working and warns with a
`DeprecationWarning` naming what replaces it), and never in a patch release; new names and
new optional parameters may come in any minor version. Files are another promise: a file a
pack's users wrote (a transcript, a case, a snapshot) names its `schema_version`, and a version
calibrant once wrote keeps loading and hashing the same; a change to a file's shape is a new
`schema_version`, read beside the old ones.

Importing this module imports nothing else: each name is loaded on first use (see
`calibrant.lazy`), so a pack's `__init__` that declares its records costs no more than
the parts it uses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from calibrant.lazy import lazy_exports

if TYPE_CHECKING:
    from .contracts import (
        CaseContract,
        DomainFixture,
        DomainOutcome,
        DomainSnapshot,
        DomainTenant,
        NotificationAttempt,
        RecordRef,
        ToolCall,
        Transcript,
        Turn,
    )
    from .domains import (
        ENTRY_POINT_GROUP,
        AgentCall,
        ApprovalGate,
        AuditSpec,
        Bound,
        CaseFocus,
        Confirmation,
        DomainPack,
        DomainPackError,
        EffectSpec,
        EvidenceItem,
        GrantSpec,
        ImportOnlyRuntime,
        JudgePhrasing,
        MoneyField,
        PackAgent,
        PackInvariant,
        PackRuntime,
        PublishedName,
        RecordedEntry,
        RecordSpec,
        SelftestEntry,
        SnapshotSpec,
        UntrustedText,
        WorkItem,
        declared,
    )
    from .domains.conform import tenant_snapshot
    from .engine import (
        AgentCrash,
        Caller,
        Recorder,
        ToolBox,
        evaluator_snapshot,
        notification_sink,
    )
    from .errors import ConfigError, InputError
    from .files import load_case, load_transcript
    from .harness.agents.base import Usage
    from .harness.cases import fault_tool_problems
    from .harness.checkpoint import CheckpointStore
    from .harness.runner import (
        MAX_RESUMES,
        converse,
        operation_ids,
        transcript_filename,
        trial_metrics,
        trial_provenance,
        trial_transcript,
    )
    from .harness.service_trial import run_service_trial
    from .importers import ImportOptions, ImportResult, build_transcript, import_traces
    from .importers.chat import parse_chat
    from .importers.otel import parse_otel
    from .importers.snapshots import read_domain_snapshot
    from .importers.tau import parse_tau
    from .safety import Evidence, Finding, check_transcript
    from .safety.registry import (
        PackRule,
        harness_error,
        not_applicable,
        pack_invariant,
        passed,
        violated,
    )
    from .selftest import CorpusEntry, build_corpus, check_entry, created_records, edit_records

_HOME = {
    # the declaration: records and the roles of their fields, what the generic rules read
    "DomainPack": "domains",
    "DomainPackError": "domains",
    "RecordSpec": "domains",
    "SnapshotSpec": "domains",
    "MoneyField": "domains",
    "EffectSpec": "domains",
    "Bound": "domains",
    "ApprovalGate": "domains",
    "Confirmation": "domains",
    "GrantSpec": "domains",
    "AuditSpec": "domains",
    "WorkItem": "domains",
    "CaseFocus": "domains",
    "PublishedName": "domains",
    "JudgePhrasing": "domains",
    "EvidenceItem": "domains",
    "UntrustedText": "domains",
    "ENTRY_POINT_GROUP": "domains",
    "declared": "domains",
    # the files a pack's users write and calibrant reads
    "Transcript": "contracts",
    "Turn": "contracts",
    "ToolCall": "contracts",
    "RecordRef": "contracts",
    "NotificationAttempt": "contracts",
    "CaseContract": "contracts",
    "DomainFixture": "contracts",
    "DomainOutcome": "contracts",
    "DomainSnapshot": "contracts",
    "DomainTenant": "contracts",
    "load_case": "files",
    "load_transcript": "files",
    "tenant_snapshot": "domains.conform",
    "ConfigError": "errors",
    "InputError": "errors",
    # the runtime: what runs a pack's domain (or says it runs none)
    "PackRuntime": "domains",
    "PackAgent": "domains",
    "AgentCall": "domains",
    "PackInvariant": "domains",
    "ImportOnlyRuntime": "domains",
    "Caller": "engine",
    "Recorder": "engine",
    "ToolBox": "engine",
    "AgentCrash": "engine",
    "evaluator_snapshot": "engine",
    "notification_sink": "engine",
    "Usage": "harness.agents.base",
    "CheckpointStore": "harness.checkpoint",
    "fault_tool_problems": "harness.cases",
    "converse": "harness.runner",
    "MAX_RESUMES": "harness.runner",
    "operation_ids": "harness.runner",
    "transcript_filename": "harness.runner",
    "trial_metrics": "harness.runner",
    "trial_provenance": "harness.runner",
    "trial_transcript": "harness.runner",
    "run_service_trial": "harness.service_trial",
    # a pack's own invariants
    "Evidence": "safety",
    "Finding": "safety",
    "check_transcript": "safety",
    "PackRule": "safety.registry",
    "pack_invariant": "safety.registry",
    "passed": "safety.registry",
    "violated": "safety.registry",
    "not_applicable": "safety.registry",
    "harness_error": "safety.registry",
    # the self-test
    "SelftestEntry": "domains",
    "RecordedEntry": "domains",
    "CorpusEntry": "selftest",
    "build_corpus": "selftest",
    "check_entry": "selftest",
    "edit_records": "selftest",
    "created_records": "selftest",
    # importing recorded conversations
    "ImportOptions": "importers",
    "ImportResult": "importers",
    "import_traces": "importers",
    "build_transcript": "importers",
    "parse_chat": "importers.chat",
    "parse_otel": "importers.otel",
    "parse_tau": "importers.tau",
    "read_domain_snapshot": "importers.snapshots",
}
_getattr, __dir__ = lazy_exports("calibrant", globals(), _HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'calibrant.pack' has no attribute {name!r}")
    return _getattr(name)


__all__ = [
    "AgentCall",
    "AgentCrash",
    "ApprovalGate",
    "AuditSpec",
    "Bound",
    "build_corpus",
    "build_transcript",
    "Caller",
    "CaseContract",
    "CaseFocus",
    "check_entry",
    "check_transcript",
    "CheckpointStore",
    "ConfigError",
    "created_records",
    "Confirmation",
    "converse",
    "CorpusEntry",
    "declared",
    "DomainFixture",
    "DomainOutcome",
    "DomainPack",
    "DomainPackError",
    "DomainSnapshot",
    "DomainTenant",
    "edit_records",
    "EffectSpec",
    "ENTRY_POINT_GROUP",
    "evaluator_snapshot",
    "Evidence",
    "EvidenceItem",
    "fault_tool_problems",
    "Finding",
    "GrantSpec",
    "harness_error",
    "import_traces",
    "ImportOnlyRuntime",
    "ImportOptions",
    "ImportResult",
    "InputError",
    "JudgePhrasing",
    "load_case",
    "load_transcript",
    "MAX_RESUMES",
    "MoneyField",
    "not_applicable",
    "notification_sink",
    "NotificationAttempt",
    "operation_ids",
    "pack_invariant",
    "PackAgent",
    "PackInvariant",
    "PackRule",
    "PackRuntime",
    "parse_chat",
    "parse_otel",
    "parse_tau",
    "passed",
    "PublishedName",
    "read_domain_snapshot",
    "RecordedEntry",
    "Recorder",
    "RecordRef",
    "RecordSpec",
    "run_service_trial",
    "SelftestEntry",
    "SnapshotSpec",
    "tenant_snapshot",
    "ToolBox",
    "ToolCall",
    "Transcript",
    "transcript_filename",
    "trial_metrics",
    "trial_provenance",
    "trial_transcript",
    "Turn",
    "UntrustedText",
    "Usage",
    "violated",
    "WorkItem",
]
