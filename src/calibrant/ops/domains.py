"""`domains list` and `domains show`, written once: the installed domain packs as a typed report
(their records and roles, data folders counted, agents, fault points) and the entry points that
gave no pack."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..contracts.reports import DomainEntry, DomainsReport
    from ..contracts.reports.domains import DataFolder
    from ..domains import InstalledPack

__all__ = ["list_domains", "show_domain"]


def _yaml_files(folder: Path) -> DataFolder:
    from ..contracts.reports.domains import DataFolder

    if not folder.is_dir():
        return DataFolder(path=str(folder), exists=False, count=None, problem=None)
    count = sum(1 for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    return DataFolder(path=str(folder), exists=True, count=count, problem=None)


def _gold_items(folder: Path) -> DataFolder:
    from ..contracts.reports.domains import DataFolder
    from ..errors import CalibrantError
    from ..gold import read_manifest

    manifest = folder / "manifest.yaml"
    if not manifest.is_file():
        problem = None if not folder.is_dir() else "no manifest.yaml"
        return DataFolder(path=str(folder), exists=folder.is_dir(), count=None, problem=problem)
    try:
        items = read_manifest(manifest)
    except CalibrantError as exc:  # a broken manifest is said, not fatal to the listing
        return DataFolder(path=str(folder), exists=True, count=None, problem=str(exc))
    return DataFolder(path=str(folder), exists=True, count=len(items), problem=None)


def _entry(installed: InstalledPack) -> DomainEntry:
    from ..contracts.reports.domains import DomainEntry, RecordEntry, RoleField

    pack = installed.pack
    return DomainEntry(
        name=pack.name,
        title=pack.title,
        version=pack.version,
        description=pack.description,
        entry_point=installed.entry_point,
        distribution=installed.distribution,
        records=[
            RecordEntry(
                kind=r.kind,
                model=f"{r.model.__module__}.{r.model.__qualname__}",
                roles=[RoleField(role=role, field=name) for role, name in r.roles()],
            )
            for r in pack.records
        ],
        rubrics=_yaml_files(pack.rubrics),
        cases=_yaml_files(pack.cases),
        gold=None if pack.gold is None else _gold_items(pack.gold),
        correct_agent=pack.correct_agent,
        faulty_agents=list(pack.faulty_agents),
        fault_points=list(pack.fault_points),
    )


def list_domains() -> DomainsReport:
    """Every installed pack, by name, and every entry point that gave none."""
    from ..contracts.reports import DOMAINS_SCHEMA_VERSION, DomainsReport
    from ..contracts.reports.domains import BrokenEntry
    from ..domains import available, broken

    return DomainsReport(
        schema_version=DOMAINS_SCHEMA_VERSION,
        domains=[_entry(p) for p in available()],
        broken=[
            BrokenEntry(entry_point=b.entry_point, distribution=b.distribution, reason=b.reason)
            for b in broken()
        ],
    )


def show_domain(name: str) -> DomainsReport:
    """The pack of domain `name` alone (an unknown or broken one: UnknownDomain, one line)."""
    from ..contracts.reports import DOMAINS_SCHEMA_VERSION, DomainsReport
    from ..domains import get

    return DomainsReport(
        schema_version=DOMAINS_SCHEMA_VERSION, domains=[_entry(get(name))], broken=[]
    )
