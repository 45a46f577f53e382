"""end_state_matches_contract: the records after the trial hold what the case's expected
outcomes say."""

from __future__ import annotations

import json

from pydantic import JsonValue

from ...contracts import DomainOutcome
from ...domains.records import Entry
from ..findings import Finding, passed, violated
from .trial import Trial


def _shown_value(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _field_gaps(e: Entry, want: dict[str, JsonValue]) -> list[str]:
    """What differs between a record and the fields an outcome gives for it (JSON values)."""
    got = e.record.model_dump(mode="json")
    return [
        f"{e.kind} {e.id} {name}: expected {_shown_value(value)}, found {_shown_value(found)}"
        for name, value in want.items()
        if (found := got.get(name)) != value
    ]


def _record_gaps(
    trial: Trial, kind: str, want: dict[str, JsonValue]
) -> tuple[list[str], str | None]:
    """What keeps the acting tenant's end state from holding a record of `kind` with the fields
    `want` gives (none: it holds one), and the id of the record compared."""
    spec = trial.after.pack.record(kind)
    if spec.id_field in want:
        rid = str(want[spec.id_field])
        found = trial.after.get(trial.acting, kind, rid)
        if found is None:
            return [f"{kind} {rid} is not in the end state"], None
        return _field_gaps(found, want), found.id
    candidates = [e for e in trial.after.entries(trial.acting) if e.kind == kind]
    if not candidates:
        return [f"no {kind} record in the end state"], None
    gaps = [(_field_gaps(e, want), e.id) for e in candidates]
    return min(gaps, key=lambda g: len(g[0]))


def end_state(trial: Trial, outcomes: list[DomainOutcome]) -> Finding:
    """The acting tenant's end state matches one acceptable outcome: every record an outcome
    lists (by kind, the fields given) is there with those values, and the trial created exactly
    as many records of each kind it counts (in the 'after' snapshot, not in the 'before' one,
    by the kind's id field). Violated names the closest outcome and what differed."""
    created: dict[str, list[str]] = {}
    for e in trial.after.entries(trial.acting):
        if trial.before.get(trial.acting, e.kind, e.id) is None:
            created.setdefault(e.kind, []).append(e.id)
    tried: list[tuple[int, str, list[str], list[str]]] = []
    for i, want in enumerate(outcomes, start=1):
        name = want.name or f"outcome {i}"
        gaps: list[str] = []
        ids: list[str] = []
        for kind, items in want.records.items():
            for item in items:
                miss, rid = _record_gaps(trial, kind, item)
                gaps += miss
                ids += [rid] if rid is not None else []
        for kind, count in want.created.items():
            new = created.get(kind, [])
            ids += new
            if len(new) != count:
                listed = f" ({', '.join(new)})" if new else ""
                gaps.append(f"{len(new)} {kind} record(s) created{listed}, expected {count}")
        ids = list(dict.fromkeys(ids))
        if not gaps:
            return passed(f"matches acceptable outcome '{name}'", *ids)
        tried.append((len(gaps), name, gaps, ids))
    _, name, gaps, ids = min(tried, key=lambda x: x[0])
    return violated(f"matches no acceptable outcome; closest '{name}': " + "; ".join(gaps), *ids)
