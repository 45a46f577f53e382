"""A benchmark's records, on the pack's own service: the shop seeded from tau-bench's or
tau2-bench's retail database (only the records a conversation or a task touches), and writes
applied to it — a trace's committed writes (the after-snapshot of an imported trace) or a
task's expected actions (the end state a case contract states).

The benchmark's database is read in its layout: `{users, orders, products}` keyed by id (tau2's
`db.json`; tau-bench's three files `users.json`, `orders.json`, `products.json` put together).
Writes are applied by the pack's tools, called as the shop's agent, at the logical instant the
importer gives the call (`calibrant import` numbers a trace's turns and calls from the
before-snapshot's seq plus one), with the trace's call id: the records they create name the
call, so the import ties each write to its call."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlmodel import Session

from calibrant.engine.tables import Meta
from calibrant.pack import Caller, DomainSnapshot

from .cases import Fixture
from .policy import WRITE_TOOLS
from .runtime import domain_snapshot
from .service import AGENT, SHOP, TOOLS, build_service
from .world import World, world_from

__all__ = [
    "Replayed",
    "Step",
    "committed",
    "load_db",
    "replay",
    "subset",
    "tool_arguments",
]

_TOKEN = re.compile(r"[#A-Za-z0-9_@.\-]+")


def load_db(path: Path) -> dict[str, Any]:
    """tau2's `db.json`, or a folder holding tau-bench's `users.json`, `orders.json` and
    `products.json`: the database as `{users, orders, products}`."""
    if path.is_dir():
        return {
            k: json.loads((path / f"{k}.json").read_text(encoding="utf-8"))
            for k in ("users", "orders", "products")
        }
    return json.loads(path.read_text(encoding="utf-8"))


def _tokens(values: Iterable[Any]) -> set[str]:
    out: set[str] = set()
    for v in values:
        if isinstance(v, str):
            out |= set(_TOKEN.findall(v))
        elif isinstance(v, dict):
            out |= _tokens(v.values())
        elif isinstance(v, list):
            out |= _tokens(v)
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out.add(str(v))
    return out


def subset(db: dict[str, Any], mentioned: Iterable[Any]) -> dict[str, Any]:
    """The records of `db` a conversation or a task touches: the customers whose user id,
    email or order it names, all their orders, and the products of those orders and of the
    items and products it names (the catalogue's other products are left out)."""
    words = _tokens(mentioned)
    users, orders, products = db["users"], db["orders"], db["products"]
    emails = {u["email"]: uid for uid, u in users.items()}
    keep = {w for w in words if w in users} | {emails[w] for w in words if w in emails}
    named = {o for o in orders if o in words or o.removeprefix("#") in words}
    keep |= {orders[o]["user_id"] for o in named}
    order_ids = {o for o, x in orders.items() if x["user_id"] in keep}
    items = {i["product_id"] for o in order_ids for i in orders[o]["items"]}
    for pid, p in products.items():
        if pid in words or words & set(p["variants"]):
            items.add(pid)
    return {
        "users": {u: users[u] for u in sorted(keep)},
        "orders": {o: orders[o] for o in sorted(order_ids)},
        "products": {p: products[p] for p in sorted(items)},
    }


@dataclass(frozen=True)
class Step:
    """One write to apply: the tool and its arguments as the benchmark wrote them, the call id
    the transcript gives it, and the place of the call among the trace's turns and calls (from
    1: its logical instant is the before-snapshot's seq plus this)."""

    tool: str
    arguments: dict[str, Any]
    call_id: str
    place: int


@dataclass
class Replayed:
    before: DomainSnapshot
    after: DomainSnapshot
    refused: list[tuple[str, str]] = field(default_factory=list)  # (call id, why)


def tool_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """The benchmark's arguments as the pack's tools take them: a list of item ids is one
    comma-separated string."""
    return {k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in args.items()}


def committed(result: Any) -> bool:
    """Whether the benchmark's tool answered a write as done: its answer is not an error
    (tau-bench and tau2-bench answer a refused call with text starting 'Error')."""
    if isinstance(result, dict):
        return "error" not in result
    return not (isinstance(result, str) and result.strip().lower().startswith("error"))


def _set_clock(svc: Any, seq: int) -> None:
    with Session(svc.engine) as s:
        row = s.get(Meta, "seq")
        assert row is not None
        row.value = str(seq)
        s.add(row)
        s.commit()


def replay(
    world: World | dict[str, Any], steps: Sequence[Step], workdir: Path, *, events: int
) -> Replayed:
    """The shop of `world` before, and after applying `steps` each at its instant; `events`
    is the trace's number of turns and calls (the after-snapshot is taken after the last).
    A step the pack's service refuses is listed with its reason (the benchmark had it done)."""
    if isinstance(world, dict):
        world = world_from(world)
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "replay.sqlite"
    path.unlink(missing_ok=True)
    svc = build_service(path, Fixture(), world)
    try:
        before = domain_snapshot(svc)
        base = before.seq
        refused: list[tuple[str, str]] = []
        caller = Caller(AGENT, SHOP)
        for step in steps:
            if step.tool not in WRITE_TOOLS:
                continue
            _set_clock(svc, base + step.place - 1)
            try:
                handled = TOOLS.run(
                    svc, step.tool, caller, step.call_id, tool_arguments(step.arguments)
                )
            except (KeyError, TypeError, ValueError) as exc:  # arguments the tool cannot read
                refused.append((step.call_id, f"{step.tool}: arguments not read ({exc!r})"))
                continue
            if handled.error:
                refused.append((step.call_id, f"{step.tool}: {json.dumps(handled.response)}"))
        _set_clock(svc, max(svc.now(), base + events))
        after = domain_snapshot(svc)
    finally:
        svc.engine.dispose()
    return Replayed(before=before, after=after, refused=refused)


EFFECT_KINDS = ("order_action", "refund", "payment")
"""The records a change creates: how many of each a case's end state counts."""


def end_state(before: DomainSnapshot, after: DomainSnapshot) -> dict[str, Any]:
    """What changed from `before` to `after` in the shop, as a case's acceptable end state
    (`DomainOutcome`): each record that changed, by its id and the state fields that changed;
    each record created, by its state fields (not its id, which another run numbers
    differently); and how many records of each effect kind were created."""
    from . import RECORDS  # the pack's declarations (the package imports this module lazily)

    def by_kind(snap: DomainSnapshot) -> dict[str, dict[str, dict[str, Any]]]:
        shop = next(t for t in snap.tenants if t.tenant_id == SHOP)
        return {
            spec.kind: {str(r[spec.id_field]): r for r in shop.records.get(spec.kind, [])}
            for spec in RECORDS
        }

    old, new = by_kind(before), by_kind(after)
    records: dict[str, list[dict[str, Any]]] = {}
    created: dict[str, int] = {k: 0 for k in EFFECT_KINDS}
    for spec in RECORDS:
        fields = [*spec.state_fields, *(m.amount for m in spec.money_fields)]
        for rid, rec in new[spec.kind].items():
            was = old[spec.kind].get(rid)
            if was is None:
                if spec.kind in created:
                    created[spec.kind] += 1
                records.setdefault(spec.kind, []).append({f: rec[f] for f in fields})
            elif changed := {f: rec[f] for f in fields if rec.get(f) != was.get(f)}:
                records.setdefault(spec.kind, []).append({spec.id_field: rid, **changed})
    return {"records": records, "created": created}


def snapshot_file(snap: DomainSnapshot) -> dict[str, Any]:
    """`snap` in the pack's snapshot file format (`calibrant schema snapshot --domain
    retail`): the envelope, and each tenant a `RetailSnapshot`."""
    from . import RECORDS, pack

    spec = pack().snapshot
    assert spec is not None
    lists = spec.lists(RECORDS)
    return {
        "taken_by": snap.taken_by,
        "seq": snap.seq,
        "taken_at": snap.taken_at.isoformat(),
        "tenants": [
            {
                "tenant_id": t.tenant_id,
                "name": t.name,
                **{name: t.records.get(kind.kind, []) for name, kind in lists},
            }
            for t in snap.tenants
        ],
    }
