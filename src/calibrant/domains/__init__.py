"""Domain packs: what a pack declares (its records and the roles of their fields, its rubrics,
cases and gold set, its reference agents and fault points), how installed packs are found
(entry points of the group `calibrant.domains`), and the rule that domains are never mixed.

The core reads packs through these declarations only; it never imports a pack by name."""

from .mixing import same_domain
from .pack import (
    ApprovalGate,
    AuditSpec,
    Bound,
    Confirmation,
    DomainPack,
    DomainPackError,
    EffectSpec,
    GrantSpec,
    MoneyField,
    RecordSpec,
    SnapshotSpec,
    WorkItem,
)
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
    "Confirmation",
    "EffectSpec",
    "GrantSpec",
    "PackAgent",
    "PackInvariant",
    "PackRuntime",
    "ENTRY_POINT_GROUP",
    "BrokenPack",
    "Discovery",
    "DomainPack",
    "DomainPackError",
    "InstalledPack",
    "MoneyField",
    "RecordSpec",
    "SelftestEntry",
    "SnapshotSpec",
    "UnknownDomain",
    "WorkItem",
    "available",
    "broken",
    "discover",
    "get",
    "refresh",
    "runtime",
    "same_domain",
]
