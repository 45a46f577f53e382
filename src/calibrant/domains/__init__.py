"""Domain packs: what a pack declares (its records and the roles of their fields, its rubrics,
cases and gold set, its reference agents and fault points), how installed packs are found
(entry points of the group `calibrant.domains`), and the rule that domains are never mixed.

The core reads packs through these declarations only; it never imports a pack by name."""

from .defaults import PackData, default_domain, default_gold, default_rubric, pack_data
from .importing import ImportRules
from .mixing import same_domain
from .pack import (
    ApprovalGate,
    AuditSpec,
    Bound,
    CaseDraft,
    CaseFocus,
    Confirmation,
    DomainPack,
    DomainPackError,
    EffectSpec,
    GrantSpec,
    MoneyField,
    PublishedName,
    RecordSpec,
    SnapshotSpec,
    WorkItem,
)
from .phrasing import NEUTRAL, EvidenceItem, JudgePhrasing, UntrustedText
from .records import TrialEnd
from .registry import (
    ENTRY_POINT_GROUP,
    BrokenPack,
    Discovery,
    InstalledPack,
    UnknownDomain,
    available,
    broken,
    discover,
    get,
    refresh,
    runtime,
)
from .runtime import AgentCall, PackAgent, PackInvariant, PackRuntime, SelftestEntry

__all__ = [
    "AgentCall",
    "ApprovalGate",
    "AuditSpec",
    "Bound",
    "CaseDraft",
    "CaseFocus",
    "Confirmation",
    "EffectSpec",
    "GrantSpec",
    "ImportRules",
    "PackAgent",
    "PackInvariant",
    "PackRuntime",
    "default_domain",
    "ENTRY_POINT_GROUP",
    "BrokenPack",
    "Discovery",
    "DomainPack",
    "DomainPackError",
    "EvidenceItem",
    "InstalledPack",
    "JudgePhrasing",
    "MoneyField",
    "NEUTRAL",
    "PackData",
    "PublishedName",
    "RecordSpec",
    "SelftestEntry",
    "SnapshotSpec",
    "TrialEnd",
    "UnknownDomain",
    "UntrustedText",
    "WorkItem",
    "available",
    "broken",
    "default_gold",
    "default_rubric",
    "discover",
    "get",
    "pack_data",
    "refresh",
    "runtime",
    "same_domain",
]
