"""Installing domain packs the way pip does, for tests: a `NAME.dist-info` folder (METADATA +
entry_points.txt) in a folder on sys.path is a distribution `importlib.metadata` finds, with
its `calibrant.domains` entry points. Nothing is mocked: the registry's real discovery reads it."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from calibrant.domains import ENTRY_POINT_GROUP, refresh

__all__ = [
    "write_distribution",
    "refunds_fallback",
    "on_path",
    "installed",
    "transcript_of_domain",
    "case_of_domain",
]


def write_distribution(
    folder: Path, name: str, entry_points_: dict[str, str], *, version: str = "0.1"
) -> Path:
    """Write `folder/NAME-VERSION.dist-info` declaring `entry_points_` (entry name ->
    "module:object") in the calibrant.domains group; returns `folder`."""
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = [f"[{ENTRY_POINT_GROUP}]"] + [f"{k} = {v}" for k, v in entry_points_.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def on_path(folder: Path) -> None:
    """Put `folder` on sys.path (and on PYTHONPATH, for child processes) and look again."""
    sys.path.append(str(folder))
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(folder) if not old else old + os.pathsep + str(folder)
    refresh()


@cache
def refunds_fallback() -> Path | None:
    """The refund shop's entry point is declared in domains/refunds/pyproject.toml; an
    environment installed before it was (an older editable install) lacks it. Then: a folder
    holding a distribution that declares only `refunds = calibrant_refunds:pack`; None when the
    installed metadata already has it (CI installs fresh: this is a no-op there)."""
    if any(ep.name == "refunds" for ep in entry_points(group=ENTRY_POINT_GROUP)):
        return None
    folder = Path(tempfile.mkdtemp(prefix="calibrant-refunds-ep-"))
    atexit.register(shutil.rmtree, folder, True)
    return write_distribution(
        folder, "calibrant_refunds_entry_point", {"refunds": "calibrant_refunds:pack"}
    )


@contextmanager
def installed(folder: Path) -> Iterator[None]:
    """Packs written under `folder` (modules + dist-info) installed for the block: on sys.path
    and PYTHONPATH, found by the registry; removed afterwards, with the modules they imported."""
    before = set(sys.modules)
    old = os.environ.get("PYTHONPATH")
    on_path(folder)
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
        for name in set(sys.modules) - before:
            if str(getattr(sys.modules[name], "__file__", "") or "").startswith(str(folder)):
                del sys.modules[name]
        refresh()


# TenantSnapshot's lists and the kind of record each holds (the refund shop's snapshot)
_KINDS = {
    "customers": "customer",
    "orders": "order",
    "refunds": "refund",
    "tickets": "ticket",
    "approvals": "approval",
    "permissions": "permission",
    "policies": "policy",
    "audit_log": "audit",
}
_WRITE_FIELDS = {
    "order_id": "target_id",
    "order_version_before": "version_before",
    "order_version_after": "version_after",
}


def case_of_domain(case: dict[str, Any], domain: str) -> dict[str, Any]:
    """A refunds case (as parsed from its YAML) as a case of `domain` in the generic form:
    the fixture's tenant with no records, each outcome by name only."""
    out = {**case, "domain": domain, "fixture": {"tenant": case["fixture"]["tenant"]}}
    expected = case.get("expected")
    if expected is not None:
        many = expected if isinstance(expected, list) else [expected]
        names = [{"name": e.get("name") or "outcome"} for e in many]
        out["expected"] = names if isinstance(expected, list) else names[0]
    return out


def transcript_of_domain(doc: dict[str, Any], domain: str) -> dict[str, Any]:
    """A refunds transcript (as parsed from its JSON) as a transcript of `domain` in the
    generic form: its ledger snapshots as snapshots of records by kind, its writes naming their
    target in the generic fields, its copy of the case converted too."""
    out = {**doc, "domain": domain}
    for old, new in (("ledger_before", "snapshot_before"), ("ledger_after", "snapshot_after")):
        snap = out.pop(old, None)
        if snap is None:
            continue
        tenants = [
            {
                "tenant_id": t["tenant_id"],
                "name": t["name"],
                "records": {kind: t.get(field, []) for field, kind in _KINDS.items()},
            }
            for t in snap["tenants"]
        ]
        out[new] = {**snap, "tenants": tenants}
    calls = []
    for call in out.get("tool_calls", []):
        writes = [
            {_WRITE_FIELDS.get(k, k): v for k, v in w.items() if v is not None}
            for w in call.get("writes", [])
        ]
        calls.append({**call, "writes": writes})
    out["tool_calls"] = calls
    if out.get("case"):
        out["case"] = case_of_domain(out["case"], domain)
    return out
