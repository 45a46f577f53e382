"""The refund shop imports through the same path as every other pack (issue 32): its snapshot
files (LedgerSnapshot JSON, as earlier calibrants wrote them) read by its pack's snapshot format,
its calls' reads, writes, grants and messages rebuilt from its pack's roles and import rules.
Pinned before that move, on the code that still had a refund branch: every file a refunds import
writes is the same, byte for byte (calibrant's version in the provenance aside), for each form
of input the docs show — chat and OTel traces with a snapshots folder, one trace with --before
and --after, a trace missing its snapshots, a cross-tenant read, and a benchmark's trajectories
with no contract."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from hashlib import sha256
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.cli import Result

Cli = Callable[..., Result]
TRACES = "tests/data/traces"
ELIGIBLE = "cases/eligible_damaged_order.yaml"
TAU = ROOT / "examples" / "traces" / "tau-bench" / "gpt-4o-airline-excerpt.json"

# paths relative to the repository (the provenance names the trace file as it was given)
IMPORTS: dict[str, tuple[str, ...]] = {
    "examples-chat": (
        "chat", "examples/traces/chat.jsonl", "--case", ELIGIBLE,
        "--snapshots", "examples/traces/snapshots",
    ),
    "examples-otel": (
        "otel", "examples/traces/otel.json", "--case", ELIGIBLE,
        "--snapshots", "examples/traces/snapshots",
    ),
    "cross-tenant": (
        "chat", f"{TRACES}/chat/cross_tenant.jsonl", "--case", "cases/cross_tenant_lookup.yaml",
        "--snapshots", f"{TRACES}/snapshots",
    ),
    "before-after": (
        "chat", f"{TRACES}/chat/single.json", "--case", ELIGIBLE,
        "--agent-principal", "agent:support-a",
        "--before", f"{TRACES}/snapshots/conv-good/before.json",
        "--after", f"{TRACES}/snapshots/conv-good/after.json",
    ),
    "before-only": (
        "chat", f"{TRACES}/chat/single.json", "--case", ELIGIBLE,
        "--agent-principal", "agent:support-a",
        "--before", f"{TRACES}/snapshots/conv-good/before.json",
    ),
    # no snapshot and no time in the trajectories: the times come from the file's mtime, fixed
    # here on a copy (see `_stamped`)
    "tau-bench": (
        "tau-bench", TAU.name,
        "--no-contract", "--tenant", "airline", "--agent-principal", "agent:gpt-4o",
    ),
}  # fmt: skip

PINNED: dict[str, dict[str, str]] = {
    "before-after": {
        "eligible_damaged_order-import-single.json": "7d118a0c5aacb004",
    },
    "before-only": {
        "eligible_damaged_order-import-single.json": "c0782369d2d22c53",
    },
    "cross-tenant": {
        "cross_tenant_lookup-import-conv-cross-leaked.json": "8fcb9fb76b7ccef7",
        "cross_tenant_lookup-import-conv-cross-refused.json": "907b2b5faa9f505b",
    },
    "examples-chat": {
        "eligible_damaged_order-import-conv-duplicate.json": "b75ad20d8ebc2d05",
        "eligible_damaged_order-import-conv-good.json": "a68aaef520dbcef5",
        "eligible_damaged_order-import-conv-lying-tool.json": "450cedd62e9925ad",
    },
    "examples-otel": {
        "eligible_damaged_order-import-4bf92f3577b34da6a3ce929d0e0e4736.json": "4b2b8ebc68a23836",
        "eligible_damaged_order-import-7d1c4a3e9f0b4c2d8e6f5a4b3c2d1e0f.json": "b0677be0be49f44d",
    },
    "tau-bench": {
        "task30-import-task30-trial0.json": "78b3b915674c336d",
        "task39-import-task39-trial1.json": "03a5354be70fe068",
        "task49-import-task49-trial0.json": "1bc0df45d46e7e4d",
    },
}
"""sha256 (first 16 hex digits) of each file, written by the import before the one path."""


def _hashes(cli: Cli, out: Path, args: tuple[str, ...], cwd: Path = ROOT) -> dict[str, str]:
    from calibrant import __version__

    r = cli("import", args[0], args[1], "--out", str(out), *args[2:], cwd=cwd)
    assert r.code == 0, r.err
    found = {}
    for path in sorted(out.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        text = text.replace(f"calibrant-import/{__version__}:", "calibrant-import/VERSION:")
        found[path.name] = sha256(text.encode()).hexdigest()[:16]
    return found


def _stamped(folder: Path) -> None:
    """The tau-bench excerpt copied into `folder` with a fixed modification time."""
    copy = folder / TAU.name
    shutil.copyfile(TAU, copy)
    os.utime(copy, (1_700_000_000, 1_700_000_000))


@pytest.mark.parametrize("name", sorted(IMPORTS))
def test_a_refunds_import_writes_the_bytes_it_wrote_before_the_one_path(
    cli: Cli, tmp_path: Path, name: str
) -> None:
    cwd = ROOT
    if name == "tau-bench":
        _stamped(tmp_path)
        cwd = tmp_path
    assert _hashes(cli, tmp_path / "out", IMPORTS[name], cwd) == PINNED[name]


def test_a_bad_refunds_snapshot_is_one_line_naming_file_line_and_field(
    cli: Cli, tmp_path: Path
) -> None:
    """Read in the pack's snapshot format, a refunds snapshot file is refused as it was when it
    was read as a LedgerSnapshot: one line, the file, the line and the field, exit 2."""
    import json

    doc = json.loads((ROOT / TRACES / "snapshots" / "conv-good" / "before.json").read_text())
    doc["tenants"][0]["orders"][0]["paid_minor_units"] = "lots"
    bad = tmp_path / "before.json"
    bad.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    line = 1 + json.dumps(doc, indent=1).split('"lots"')[0].count("\n")
    out = tmp_path / "out"
    r = cli(
        "import", "chat", f"{TRACES}/chat/single.json", "--case", ELIGIBLE,
        "--agent-principal", "agent:support-a", "--before", str(bad), "--out", str(out),
    )  # fmt: skip
    assert r.code == 2 and not out.exists()
    assert r.err.strip().splitlines() == [
        f"calibrant: error: {bad}:{line}: field 'tenants.0.orders.0.paid_minor_units': Input "
        'should be a valid integer (got "lots"); write the snapshot in the format `calibrant '
        "schema snapshot` prints (another domain's: with --domain NAME)"
    ]
