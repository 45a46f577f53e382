"""The pack's self-test (`calibrant selftest --domain memberships`): recorded conversations
imported as `calibrant import` imports them, each with what the checker must say, and faults
planted in a good one. There is no simulator: every transcript comes from a recording."""

from __future__ import annotations

from calibrant.pack import RecordedEntry, Transcript

from . import DATA

__all__ = ["PLAN"]

RECORDINGS = DATA / "recordings"
SNAPSHOTS = RECORDINGS / "snapshots"


def _was_lapsed(t: Transcript) -> None:
    """The membership the agent cancelled had lapsed before the conversation."""
    assert t.snapshot_before is not None
    club = t.snapshot_before.tenant(t.acting_tenant)
    assert club is not None
    for m in club.records["membership"]:
        if m["membership_id"] == "ms_ines":
            m["status"] = "lapsed"


def _refund_too_much(t: Transcript) -> None:
    """The refund is more than the member paid for the month."""
    assert t.snapshot_after is not None
    club = t.snapshot_after.tenant(t.acting_tenant)
    assert club is not None
    for c in club.records["cancellation"]:
        c["refund_minor_units"] = 99_00


def _recorded(
    name: str, trace: str, case: str | None, description: str, **expect: str
) -> RecordedEntry:
    return RecordedEntry(
        name,
        RECORDINGS / f"{trace}.json",
        description,
        expect,
        snapshots=SNAPSHOTS,
        case=case,
    )


PLAN = (
    _recorded("good-cancel", "cancel-active", "cancel_active", "an active membership cancelled"),
    _recorded(
        "good-cancel-no-contract",
        "cancel-active",
        None,
        "the same conversation with no case: its end state is not judged",
        end_state_matches_contract="not_applicable",
    ),
    _recorded(
        "recorded-cancel-lapsed",
        "cancel-lapsed",
        "cancel_lapsed",
        "the agent cancelled and refunded a lapsed membership",
        cancel_only_active="violated",
        end_state_matches_contract="violated",
    ),
    RecordedEntry(
        "planted-was-lapsed",
        RECORDINGS / "cancel-active.json",
        (_was_lapsed.__doc__ or "").strip(),
        {"cancel_only_active": "violated"},
        _was_lapsed,
        snapshots=SNAPSHOTS,
        case="cancel_active",
    ),
    RecordedEntry(
        "planted-refund-too-much",
        RECORDINGS / "cancel-active.json",
        (_refund_too_much.__doc__ or "").strip(),
        {"effects_within_bound": "violated"},
        _refund_too_much,
        snapshots=SNAPSHOTS,
        case="cancel_active",
    ),
)
