"""`domains list` and `domains show` in a terminal: tables that fit 80 columns."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..contracts.reports import DomainEntry, DomainsReport
from ..contracts.reports.domains import DataFolder
from .fit import fit

__all__ = ["domains_table", "domain_detail"]


def _count(folder: DataFolder | None) -> str:
    if folder is None:
        return "none"
    if folder.count is None:
        return "missing" if not folder.exists else "unreadable"
    return str(folder.count)


def domains_table(console: Console, report: DomainsReport) -> RenderableType:
    """One row per installed pack: name, title, version and how much it ships."""
    if not report.domains:
        return Text("No domain pack is installed.")
    table = Table(title="Installed domain packs", title_justify="left")
    for col in ("name", "title", "version"):
        table.add_column(col)
    for col in ("records", "cases", "rubrics", "gold items"):
        table.add_column(col, justify="right")
    for d in report.domains:
        table.add_row(
            escape(d.name),
            escape(d.title),
            escape(d.version),
            str(len(d.records)),
            _count(d.cases),
            _count(d.rubrics),
            _count(d.gold),
        )
    return fit(console, table)


def _folder(folder: DataFolder | None, what: str) -> str:
    if folder is None:
        return f"{what}: none"
    if folder.count is None:
        state = "missing" if not folder.exists else (folder.problem or "unreadable")
        return f"{what}: {folder.path} ({state})"
    return f"{what}: {folder.path} ({folder.count})"


def domain_detail(console: Console, d: DomainEntry) -> RenderableType:
    """One pack: what it is, its records with their roles, agents, fault points, folders."""
    head = Text.assemble((d.name, "bold"), f" — {d.title}, version {d.version}")
    source = d.entry_point + (f" ({d.distribution})" if d.distribution else "")
    records = Table(title="Records and the roles of their fields", title_justify="left")
    for col in ("kind", "model", "roles"):
        records.add_column(col)
    for r in d.records:
        roles: dict[str, list[str]] = {}
        for rf in r.roles:
            roles.setdefault(rf.role, []).append(rf.field)
        cell = "\n".join(f"{role}: {', '.join(names)}" for role, names in roles.items())
        records.add_row(escape(r.kind), escape(r.model.rsplit(".", 1)[-1]), escape(cell))
    faulty = ", ".join(d.faulty_agents) or "none"
    lines = [
        head,
        Text(d.description),
        Text(f"entry point: {source}"),
        Text(""),
        fit(console, records),
        Text(""),
        Text(f"correct agent: {d.correct_agent or 'none'}"),
        Text(f"faulty agents: {faulty}"),
        Text(f"fault points: {', '.join(d.fault_points) or 'none'}"),
        Text(""),
        Text(_folder(d.rubrics, "rubrics")),
        Text(_folder(d.cases, "cases")),
        Text(_folder(d.gold, "gold items")),
    ]
    return Group(*lines)
