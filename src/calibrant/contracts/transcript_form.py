"""A transcript's file form read into the generic shape: a file of a pack that spells the
transcript its own way is read by that pack's form (`calibrant.contracts.forms`); another pack's
spelling in a generic file is refused, naming the generic field that holds it."""

from __future__ import annotations

from typing import Any

from pydantic.fields import FieldInfo

from . import forms
from .case import CaseContract
from .domain import refuse, unnamed_domain
from .transcript_parts import CommittedWrite

_SNAPSHOTS = ("snapshot_before", "snapshot_after")
_WRITE_TARGET = ("target_id", "version_before", "version_after")


def _read_form(data: dict[str, Any], fields: dict[str, FieldInfo]) -> dict[str, Any]:
    """A transcript's data in the generic spelling: read by its pack's form when the pack
    spells it its own way; another pack's spelling in a generic file is refused, naming the
    generic field. `fields` are the transcript's own (`Transcript.model_fields`)."""
    domain = data.get("domain")
    if domain is None:
        domain = unnamed_domain("Transcript")
        data = {**data, "domain": domain}
    form = forms.form_of(domain) if isinstance(domain, str) else None
    if form is not None and form.transcript_in is not None:
        return form.transcript_in(data)
    _case_of_the_same_domain(data, str(domain))
    own = () if form is None else tuple(form.spellings)
    return _no_other_spelling(data, str(domain), own, fields)


def _case_of_the_same_domain(data: dict[str, Any], domain: str) -> None:
    """The case copy's domain, checked before the fields are: a transcript relabelled to
    another domain is refused for that first, not for the fields its old domain spells."""
    case = data.get("case")
    if isinstance(case, dict):
        theirs, name = case.get("domain") or unnamed_domain("Transcript"), case.get("case")
    elif isinstance(case, CaseContract):
        theirs, name = case.domain, case.case
    else:
        return
    if theirs != domain:
        raise ValueError(
            f"the transcript is domain '{domain}' but its copy of case '{name}' is domain "
            f"'{theirs}'"
        )


def _no_other_spelling(
    data: dict[str, Any], domain: str, own: tuple[str, ...], fields: dict[str, FieldInfo]
) -> dict[str, Any]:
    """Refuse a field another pack's form spells (its own name for `snapshot_before`, in a
    transcript of a domain that has no such name), saying which generic field holds it."""
    t = "Transcript"

    def check(loc: tuple[int | str, ...], found: dict[str, Any]) -> list[str]:
        """The keys of `found` to drop: another pack's spelling left empty (a file calibrant
        wrote before forms existed carried them, null); any other is refused."""
        drop: list[str] = []
        for name in found:
            if name in own or name in model_fields:
                continue
            other = forms.spelled_by(name, forms.known_forms())
            if other is None or other.domain == domain:
                continue
            if found[name] is None and loc:
                drop.append(name)
                continue
            generic = other.spellings[name]
            what = (
                "carries its evaluator snapshots"
                if generic in _SNAPSHOTS
                else "names the record a write was applied over"
            )
            refuse(
                t,
                (*loc, name),
                name,
                f"a domain '{domain}' transcript {what} in {generic}; {name} is domain "
                f"'{other.domain}''s spelling",
            )
        return drop

    model_fields = fields
    check((), data)
    model_fields = CommittedWrite.model_fields
    calls = data.get("tool_calls")
    if not isinstance(calls, list):
        return data
    out: list[Any] = []
    for i, c in enumerate(calls):
        writes = c.get("writes") if isinstance(c, dict) else None
        if isinstance(writes, list):
            kept: list[Any] = []
            for j, w in enumerate(writes):
                drop = check(("tool_calls", i, "writes", j), w) if isinstance(w, dict) else []
                kept.append({k: v for k, v in w.items() if k not in drop} if drop else w)
            c = {**c, "writes": kept}
        out.append(c)
    return {**data, "tool_calls": out}
