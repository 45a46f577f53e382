"""Domain packs: what a pack declares (its records and the roles of their fields, its rubrics,
cases and gold set, its reference agents and fault points), how installed packs are found
(entry points of the group `calibrant.domains`), and the rule that domains are never mixed.

The core reads packs through these declarations only; it never imports a pack by name."""

from .mixing import same_domain
from .pack import DomainPack, DomainPackError, MoneyField, RecordSpec, SnapshotSpec
from .phrasing import NEUTRAL, EvidenceItem, JudgePhrasing, UntrustedText
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
    "PackAgent",
    "PackInvariant",
    "PackRuntime",
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
    "RecordSpec",
    "SelftestEntry",
    "SnapshotSpec",
    "UnknownDomain",
    "UntrustedText",
    "available",
    "broken",
    "discover",
    "get",
    "refresh",
    "runtime",
    "same_domain",
]
