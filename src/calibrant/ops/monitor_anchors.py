"""The monitor's anchors, re-judged after release.

`record_anchors` (`calibrant monitor --anchors GOLD`): the frozen anchor set is the
calibration's gold set (its split), each case with its items' consensus labels; the released
judge's kappa on it is pooled over ``release_scorings`` scorings of the whole set: the
calibration's own judgments (sample 0 in the judgment cache) and ``release_scorings - 1`` more
(samples ``RELEASE_SAMPLE_BASE`` + 1, + 2, ..., judged once and cached), so a judge whose answers
vary on re-scoring is measured as such at release. The run records the set's size in cases.
For each audit window not yet anchored, ``per_window`` cases are drawn with replacement
(:func:`calibrant.monitor.draw_anchors`, seeded by the window's first day) and their items are
judged again by the current judge through the judge runner every command uses, under a sample
number of the window's own (``ANCHOR_SAMPLE_BASE`` + the window's first day, counted from
2000-01-01): the cache cannot hand back the release answer, and a second look reuses the
window's answers instead of asking again. The labels are recorded as an ``anchors`` run of the
store (its summary an :class:`~calibrant.contracts.reports.monitor_parts.AnchorRecord`), which is
what the monitor (and the service, which calls no model here) reads. A window is anchored when it
is first looked at with ``--anchors``: look every window. A stored record that cannot be read as
an anchors record (one a newer calibrant wrote, or one changed by hand) is left out, and said so
in one line naming its run: the monitor warns, and ``--anchors`` anchors its window again."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError
from sqlalchemy import Engine

from ..contracts.reports.monitor import AnchorsGold
from ..contracts.reports.monitor_parts import (
    ANCHORS_SCHEMA_VERSION,
    AnchorCaseLabels,
    AnchorRecord,
)
from ..errors import ConfigError
from ..monitor import Case, anchor_kappa, anchor_reference, draw_anchors
from ..store.runs import Runs
from .audit import audit_windows
from .monitor_baseline import label_cases, monitor_version, release_baseline

__all__ = [
    "ANCHOR_SAMPLE_BASE",
    "RELEASE_SAMPLE_BASE",
    "AnchorRun",
    "anchor_runs",
    "record_anchors",
]

ANCHOR_SAMPLE_BASE = 1_000_000
RELEASE_SAMPLE_BASE = 900_000  # the release's extra scorings of the anchors: + 1, + 2, ...
_EPOCH = date(2000, 1, 1)


def _day(start: datetime) -> int:
    return (start.astimezone(UTC).date() - _EPOCH).days


class AnchorRun(NamedTuple):
    """A recorded window's anchors: the ``anchors`` run and its record."""

    run_id: str
    record: AnchorRecord


def anchor_runs(runs: Runs, version: str, window: str) -> tuple[dict[str, AnchorRun], list[str]]:
    """The recorded anchors of this judge version for `window` windows, by window start (the
    latest record of a window wins), and one line for each finished anchors run of the version
    whose record cannot be read (left out)."""
    out: dict[str, AnchorRun] = {}
    unreadable: list[str] = []
    for info in sorted(runs.recent(kind="anchors", limit=100_000), key=lambda i: i.started_at):
        if info.status != "finished" or info.judge_hash != version:
            continue
        detail = runs.detail(info.id)
        report = None if detail is None else detail.report  # an anchors run's: JSON as stored
        if not isinstance(report, dict) or report.get("window") != window:
            continue
        try:
            record = AnchorRecord.model_validate(report)
        except ValidationError as exc:
            unreadable.append(_unreadable(info.id, report, exc))
            continue
        out[record.start] = AnchorRun(info.id, record)
    return out, unreadable


def _unreadable(run_id: str, report: dict[str, Any], exc: ValidationError) -> str:
    """One line: the anchors run that cannot be read, its window and why."""
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err["loc"])
    why = f"{where}: {err['msg']}" if where else str(err["msg"]).removeprefix("Value error, ")
    start = report.get("start")
    of = f" of window {start[:10]}" if isinstance(start, str) else ""
    return f"anchors run {run_id}{of} left out, its record cannot be read: {why}"


def record_anchors(
    engine: Engine,
    *,
    gold: Path,
    config: Any,
    rubric: Any,
    window: str = "week",
    per_window: int = 20,
    seed: int = 0,
    concurrency: int = 4,
    policy: Any = None,
    release_scorings: int = 3,
) -> list[str]:
    """Re-score anchors for each audit window of `config`'s judge version not yet anchored (see
    the module docstring); returns the anchors runs recorded."""
    from ..contracts import content_hash
    from ..gold import load_gold
    from ..judge.on_gold import judge_gold, judge_gold_samples
    from ..store import Store

    if per_window < 2:
        raise ConfigError(f"monitor: --per-window {per_window} must be at least 2")
    if release_scorings < 1:
        raise ConfigError(f"monitor: --anchor-scorings {release_scorings} must be at least 1")
    v = monitor_version(engine, config.hash, window)
    if rubric.content_hash != v.rubric_hash:
        raise ConfigError(
            f"monitor: the judge's rubric {rubric.content_hash[:19]} is not the one its audited "
            f"runs judged on ({v.rubric_hash[:19]})"
        )
    split = v.calibration.get("split")
    g = load_gold(gold, split=None if split in (None, "all") else split)
    g.validate(rubric)
    consensus: dict[str, dict[str, str]] = defaultdict(dict)
    for x in g.consensus:
        if x.item in g.items:
            consensus[x.item][x.criterion] = str(x.label)
    items_of: dict[str, list[str]] = defaultdict(list)
    for item in sorted(g.items):
        items_of[g.items[item].case].append(item)
    case_ids = sorted(items_of)
    hashes = {item: content_hash(t) for item, t in g.transcripts.items()}
    resolved = (config, rubric, policy, concurrency)
    store = Store(engine)
    release = store.final_many(v.judge_hash, hashes.values())
    missing = [item for item in sorted(g.items) if (hashes[item], 0) not in release]
    if missing:
        raise ConfigError(
            f"monitor: --anchors {gold}: the store holds no judgment of gold item {missing[0]} "
            f"by judge version {v.judge_hash[:19]} (and {len(missing) - 1} more): the anchors' "
            "release kappa comes from the calibration's judgments; calibrate this judge on "
            "this gold set"
        )
    baseline = release_baseline(v.calibration, {})

    def cases_of(drawn: Sequence[str], labels: Mapping[str, Any]) -> dict[str, list[Case]]:
        out: dict[str, list[Case]] = {}
        for crit, b in baseline.items():
            rows = []
            for n, case in enumerate(drawn):
                for item in items_of[case]:
                    rows.append(
                        (f"{n:04d}:{case}", labels[item].label(crit), consensus[item].get(crit))
                    )
            out[crit] = label_cases(rows, b.labels, expert=True)
        return out

    runs = Runs(engine)
    done, _ = anchor_runs(runs, v.judge_hash, window)  # an unreadable window is anchored again
    pending = [
        w
        for w in audit_windows(engine, window=window, judge=v.judge_hash)
        if w.judge_version == v.judge_hash and w.start.isoformat() not in done
    ]
    if not pending:
        return []
    # the release scorings: the calibration's own (sample 0) and `release_scorings - 1` more of
    # the whole set, so the anchors' release kappa carries the judge's run-to-run variation
    scorings = [{i: release[(hashes[i], 0)] for i in g.items}]
    for extra in range(1, release_scorings):
        scorings.append(
            judge_gold(
                resolved,
                g,
                store=store,
                hashes=hashes,
                first_sample=RELEASE_SAMPLE_BASE + extra,
            )
        )
    pooled: dict[str, list[Case]] = defaultdict(list)
    for n, answers in enumerate(scorings):
        for crit, scored in cases_of(case_ids, answers).items():
            pooled[crit].extend(Case(f"{n}:{c.case}", c.judge, c.expert) for c in scored)
    baseline_kappa = {
        crit: anchor_kappa(pooled[crit], baseline[crit]) if pooled[crit] else None
        for crit in baseline
    }
    shares = {
        crit: list(anchor_reference(pooled[crit], baseline[crit])) if pooled[crit] else None
        for crit in baseline
    }
    anchor_cases = {crit: len({c.case.split(":", 2)[2] for c in pooled[crit]}) for crit in baseline}
    gold_ref = AnchorsGold(root=str(gold.resolve()), split=split, hashes=g.hashes)
    recorded = []
    for w in pending:
        start = w.start.isoformat()
        day = _day(w.start)
        drawn = draw_anchors(case_ids, per_window, seed=seed, window=day)
        wanted = sorted({item for case in drawn for item in items_of[case]})
        sample = ANCHOR_SAMPLE_BASE + day
        run_id = runs.start(
            "anchors",
            judge=config,
            seed=seed,
            arguments={"window": window, "start": start, "per_window": per_window},
        )
        try:
            result = judge_gold_samples(
                resolved, g, store=store, items=wanted, hashes=hashes, first_sample=sample
            )
        except BaseException:
            runs.finish(run_id, {"error": "the anchors' judging stopped"}, status="failed")
            raise
        answers = result.first()
        cases = cases_of(drawn, answers)
        record = AnchorRecord(
            schema_version=ANCHORS_SCHEMA_VERSION,
            judge_version=v.judge_hash,
            window=window,
            start=start,
            end=w.end.isoformat(),
            sample_index=sample,
            seed=seed,
            per_window=per_window,
            drawn=drawn,
            model_calls=result.run.model_calls,
            gold=gold_ref,
            baseline_anchor_kappa=baseline_kappa,
            release_scorings=release_scorings,
            anchor_cases=anchor_cases,
            baseline_anchor_reference=shares,
            cases={
                crit: [
                    AnchorCaseLabels(case=c.case, judge=list(c.judge), expert=list(c.expert or ()))
                    for c in cs
                ]
                for crit, cs in cases.items()
            },
        )
        runs.finish(run_id, record.json_data())
        recorded.append(run_id)
    return recorded
