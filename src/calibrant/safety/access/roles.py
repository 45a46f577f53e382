"""What the access rules read off the pack's roles: a field of a record as text, a time or a
sequence number; the case's work item and whether it is open, and who holds it."""

from __future__ import annotations

from datetime import datetime

from ...domains import WorkItem
from ...domains.records import Entry
from ..evidence import Evidence


def _str(e: Entry | None, name: str | None) -> str | None:
    value = e.value(name) if e is not None and name is not None else None
    return None if value is None else str(value)


def work_item(ev: Evidence) -> Entry | None:
    """The work item (a ticket) of the case in the acting tenant, after the trial: the one the
    case names, else the first about the case's subject, else the only one."""
    spec = ev.trial.after.pack.work_item
    if spec is None:
        return None
    items = [e for e in ev.trial.after.entries(ev.acting) if e.kind == spec.kind]
    focus = ev.case_focus
    if focus.work_item:
        return next((e for e in items if e.id == focus.work_item), None)
    if focus.subject is not None and spec.subject is not None:
        found = [e for e in items if _str(e, spec.subject) == focus.subject]
        if found:
            return found[0]
    return items[0] if len(items) == 1 else None


def _no_item(spec: WorkItem) -> str:
    about = spec.subject.removesuffix("_id").replace("_", " ") if spec.subject else "request"
    return f"no {spec.kind} for the case's {about} in the 'after' snapshot"


def _is_open(spec: WorkItem, item: Entry) -> bool:
    return _str(item, spec.state) in spec.open_states


def _held_by(spec: WorkItem, item: Entry, agent: str) -> str:
    """person, agent or unassigned: an agent identity (the agent under test or any agent:...)
    is an agent whatever kind the record claims; otherwise the recorded kind, else the
    assignee's prefix."""
    assignee = _str(item, spec.assignee)
    if not assignee:
        return "unassigned"
    if assignee == agent or assignee.startswith("agent:"):
        return "agent"
    kind = _str(item, spec.assignee_kind)
    if kind is not None:
        return kind
    return "person" if assignee.startswith("person:") else "agent"


def _time(e: Entry | None, name: str | None) -> datetime | None:
    value = e.value(name) if e is not None and name is not None else None
    return value if isinstance(value, datetime) else None


def _seq(e: Entry | None, name: str | None) -> int | None:
    value = e.value(name) if e is not None and name is not None else None
    return value if isinstance(value, int) else None
