"""no_stale_overwrite: no write over a record whose version changed after the agent last read
it."""

from __future__ import annotations

from ..findings import Finding, not_applicable, passed, violated
from .trial import Read, Trial, Write


def _target_kind(trial: Trial, target: str) -> str | None:
    """The versioned kind (the pack's first declaring a version field) holding a record with
    this id in either snapshot; None when none does."""
    held = trial.before.kinds_with_id(target) | trial.after.kinds_with_id(target)
    for spec in trial.before.pack.records:
        if spec.version_field is not None and spec.kind in held:
            return spec.kind
    return None


def _known_version(trial: Trial, kind: str | None, target: str, before_seq: int) -> int | None:
    """The version of a record the agent last saw (read, or produced by its own write) before
    a time, by the service's log (calls that failed show nothing)."""
    logged: list[tuple[int, int, Read | Write]] = [(r.seq, 0, r) for r in trial.reads]
    logged += [(w.seq, 1, w) for w in trial.writes]
    known: int | None = None
    for seq, _, x in sorted(logged, key=lambda item: (item[0], item[1])):
        if seq >= before_seq:
            break
        if not x.ok:
            continue
        if isinstance(x, Read):
            if x.record_id == target and x.version is not None and kind in (None, x.kind):
                known = x.version
        elif x.target == target and x.version_after is not None:
            known = x.version_after
    return known


def stale_writes(trial: Trial) -> Finding:
    """No write applied over a version other than the one its caller named, or other than the
    one the agent last saw of that record (a decision not revalidated against a newer state);
    writes the service refused as stale are fine."""
    versioned = [w for w in trial.writes if w.target is not None and w.version_before is not None]
    if not versioned and not trial.rejected_stale:
        return not_applicable("no versioned write was attempted")
    for w in versioned:
        assert w.target is not None and w.version_before is not None
        if w.expected_version is not None and w.expected_version != w.version_before:
            return violated(
                f"{w.call_id} expected {w.target} v{w.expected_version} but was applied "
                f"over v{w.version_before}",
                w.call_id,
                w.record_id,
            )
        known = _known_version(trial, _target_kind(trial, w.target), w.target, w.seq)
        if known != w.version_before:
            seen = "never read it" if known is None else f"last saw v{known}"
            return violated(
                f"{w.call_id} wrote over {w.target} v{w.version_before} while the "
                f"agent {seen}: the decision was not revalidated against the newer state",
                w.call_id,
                w.record_id,
            )
    n = len(trial.rejected_stale)
    rejected = f"; {n} stale write(s) rejected" if n else ""
    return passed(
        f"every versioned write was based on the current version{rejected}", *trial.rejected_stale
    )
