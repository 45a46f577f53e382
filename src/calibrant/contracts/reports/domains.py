"""`calibrant domains list|show --json`: the installed domain packs, each with its records and
the roles of their fields, its data folders, reference agents and fault points, and the entry
points that gave no usable pack."""

from __future__ import annotations

from pydantic import Field

from .base import Report, Strict, version_field

DOMAINS_SCHEMA_VERSION = 1

__all__ = [
    "DOMAINS_SCHEMA_VERSION",
    "RoleField",
    "RecordEntry",
    "DataFolder",
    "DomainEntry",
    "BrokenEntry",
    "DomainsReport",
]


class RoleField(Strict):
    role: str = Field(
        description="id, tenant, protected, person_name, address, money, currency, "
        "currency_of, quantity, version, operation_id, key, state or customer_text."
    )
    field: str = Field(description="The field of the record's model that plays it.")


class RecordEntry(Strict):
    kind: str = Field(description="Record kind, e.g. order.")
    model: str = Field(description="The pydantic model, as module.Class.")
    roles: list[RoleField] = Field(description="Every role declared, in a stable order.")


class DataFolder(Strict):
    path: str = Field(description="Where the pack keeps it (absolute).")
    exists: bool = Field(description="Whether the folder is there (a pack may ship without it).")
    count: int | None = Field(
        description="YAML files (rubrics, cases) or manifest items (gold); null when missing "
        "or unreadable."
    )
    problem: str | None = Field(default=None, description="Why it could not be counted.")


class DomainEntry(Strict):
    name: str = Field(description="The domain's name: what files name in `domain`.")
    title: str
    version: str
    description: str
    entry_point: str = Field(description="The entry point that declares it (name = module:obj).")
    distribution: str | None = Field(description="The distribution that declares it, version.")
    records: list[RecordEntry]
    rubrics: DataFolder
    cases: DataFolder
    gold: DataFolder | None = Field(description="Its gold set; null: the pack has none.")
    correct_agent: str | None = Field(description="The scripted agent that does it right.")
    faulty_agents: list[str] = Field(description="Scripted agents with planted faults.")
    fault_points: list[str] = Field(description="Named points where a trial's faults fire.")


class BrokenEntry(Strict):
    entry_point: str
    distribution: str | None
    reason: str = Field(description="Why no pack could be loaded from it, in one line.")


class DomainsReport(Report):
    """The installed domain packs (`domains show NAME`: just that one) and broken entry points."""

    KIND = "domains"
    VERSION = DOMAINS_SCHEMA_VERSION

    schema_version: int = version_field(DOMAINS_SCHEMA_VERSION)
    domains: list[DomainEntry]
    broken: list[BrokenEntry] = Field(default_factory=list)
