"""The drift monitor for a judge that runs elsewhere (`calibrant monitor --verdicts FILE`).

The judge's labels come from a recorded verdicts file (`calibration.recorded`: the reader and
the checks of `calibrate --verdicts`), the experts' from the store's workbench, and the rules,
baseline and report from `ops.monitor` — the same replay, fed differently:

* **the file**: rows item, criterion, label, judge_version and ``judged_at`` (when the judge
  answered; required here). A row belongs to the window (day, ISO week from Monday, or month,
  UTC) of its ``judged_at``; an item has one verdict per criterion per window (an anchor item
  comes back window after window). Any item may appear: the rows of a window are the judged
  population of rule 2 (label shift), by case.
* **audited items** (rule 1): the file's items that are workbench items (of the ``queues``
  given; default any queue), their experts' labels as in `agreement-over-time` (consensus, else
  one expert's label); their case is the transcript's. An item the store does not hold counts
  as its own case in rule 2.
* **anchors** (rule 3, with ``anchors``, the calibration's gold folder): the file's rows on that
  folder's items of the calibration's split are anchors, not traffic: grouped by the manifest's
  case and read against the gold consensus. The pipeline re-judges a random draw of the anchor
  cases (or all of them) every window. The released judge's kappa on the anchors comes from the
  release calibration's own verdicts file (`calibrate --verdicts` records its path and SHA-256),
  read again and checked unchanged.
* **baseline**: the latest finished calibration of the file's judge version (``recorded/VERSION``
  on the rubric) — `calibrant calibrate --verdicts RELEASE_FILE`.

Nothing is written to the store: the report is computed from the file and the store at every
look, as the store-side monitor is."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from ..calibration.recorded import RecordedJudge, RecordedVerdict, check_verdicts, read_verdicts
from ..contracts import Rubric
from ..contracts.reports.monitor import AnchorsGold, MonitoredVerdicts, MonitorReport
from ..errors import ConfigError
from ..monitor import Case, CriterionBaseline, anchor_kappa, anchor_reference
from ..scoring.over_time import WINDOWS, AuditedItem, AuditWindow, window_bounds, window_criterion
from ..store.runs import Runs
from ..store.service_tables import ItemRow
from ..store.versions import latest_calibrate_run
from .audit import ExpertLabels
from .monitor import (
    MonitorOptions,
    Version,
    WindowInput,
    check_alpha,
    label_cases,
    release_baseline,
    replay,
)

__all__ = ["read_monitored", "recorded_monitor_report"]


def _start(window: str) -> Callable[[datetime], str]:
    """A moment's window, named by its first instant (ISO 8601, UTC)."""
    return lambda moment: window_bounds(moment, window)[0].isoformat()


def read_monitored(path: Path, *, rubric: Rubric, window: str, fmt: str = "auto") -> RecordedJudge:
    """The verdicts file read and checked as `calibrate --verdicts` reads it, each row with its
    `judged_at`, one verdict per item and criterion per window; nothing is written."""
    if window not in WINDOWS:
        raise ConfigError(f"monitor: --window '{window}' is not one of {', '.join(WINDOWS)}")
    kind, rows = read_verdicts(path, fmt)
    version = check_verdicts(rows, rubric=rubric, items=None, window=_start(window))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return RecordedJudge(version, path, kind, f"sha256:{digest}", rubric, tuple(rows))


def _version(engine: Engine, judge: RecordedJudge) -> Version:
    config = judge.config
    found = latest_calibrate_run(Runs(engine), config.hash, judge.rubric.content_hash)
    if found is None:
        raise ConfigError(
            f"monitor: judge '{judge.version}' ({judge.source}) has no finished calibration in "
            f"the store on rubric {judge.rubric.rubric_id}: the monitor starts from the release "
            "calibration (`calibrant calibrate --verdicts RELEASE_FILE`)"
        )
    info, report = found
    return Version(config.hash, judge.rubric.content_hash, info.id, report)


def _release_rows(
    engine: Engine, v: Version, judge: RecordedJudge
) -> dict[tuple[str, str], RecordedVerdict]:
    """The release calibration's verdicts (its file read again, checked unchanged), by
    item and criterion."""
    detail = Runs(engine).detail(v.calibration_run)
    # the verdicts file `calibrate` recorded in its arguments (JSON: {"file", "sha256"})
    found = None if detail is None else detail.arguments.get("verdicts")
    source = found if isinstance(found, dict) else {}
    path = Path(str(source.get("file", "")))
    if not source or not path.is_file():
        raise ConfigError(
            f"monitor: --anchors needs the released judge's answers on the anchors: release "
            f"calibration {v.calibration_run[:12]} read "
            f"{source.get('file') or 'no verdicts file'}, which is not there any more"
        )
    digest = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != source.get("sha256"):
        raise ConfigError(
            f"monitor: {path} changed since release calibration {v.calibration_run[:12]} read "
            "it (its SHA-256 differs): the anchors' release kappa needs the file it measured"
        )
    _, rows = read_verdicts(path)
    check_verdicts(rows, rubric=judge.rubric, items=None)
    return {(r.item, r.criterion): r for r in rows}


def _anchor_set(
    engine: Engine, v: Version, judge: RecordedJudge, gold: Path
) -> tuple[
    dict[str, tuple[str, dict[str, str]]],
    dict[str, float | None],
    AnchorsGold,
    dict[str, tuple[int, int]],
    dict[str, tuple[float, ...]],
]:
    """The frozen anchors: per gold item its case and consensus labels; the released judge's
    kappa on them per criterion; the gold folder's reference for the report."""
    from ..gold import load_gold

    split = v.calibration.get("split")
    g = load_gold(gold, split=None if split in (None, "all") else split)
    g.validate(judge.rubric)
    consensus: dict[str, dict[str, str]] = defaultdict(dict)
    for x in g.consensus:
        if x.item in g.items:
            consensus[x.item][x.criterion] = str(x.label)
    items = {i: (g.items[i].case, consensus[i]) for i in sorted(g.items)}
    release = _release_rows(engine, v, judge)
    baseline = release_baseline(v.calibration, {})
    at_release = {
        crit: _anchor_cases([(i, release.get((i, crit))) for i in items], items, crit, b.labels)
        for crit, b in baseline.items()
    }
    kappas = {
        crit: anchor_kappa(cases, baseline[crit]) if cases else None
        for crit, cases in at_release.items()
    }
    if not any(at_release.values()):
        raise ConfigError(
            f"monitor: --anchors {gold}: the release calibration's verdicts label none of its "
            "items: calibrate this judge on this gold set"
        )
    ref = AnchorsGold(root=str(gold.resolve()), split=split, hashes=g.hashes)
    # one release scoring: the release calibration's verdicts file holds one verdict an item
    sizes = {crit: (len({c.case for c in cases}), 1) for crit, cases in at_release.items()}
    shares = {
        crit: anchor_reference(cases, baseline[crit]) for crit, cases in at_release.items() if cases
    }
    return items, kappas, ref, sizes, shares


def _anchor_cases(
    rows: Sequence[tuple[str, RecordedVerdict | None]],
    items: Mapping[str, tuple[str, dict[str, str]]],
    crit: str,
    labels: Sequence[str],
) -> list[Case]:
    return label_cases(
        ((items[i][0], None if r is None else r.label, items[i][1].get(crit)) for i, r in rows),
        labels,
        expert=True,
    )


def _workbench_cases(engine: Engine, names: set[str], queues: Sequence[str]) -> dict[str, str]:
    """The file's items the workbench holds (in `queues`, if given): item -> case id."""
    out: dict[str, str] = {}
    wanted = sorted(names)
    with Session(engine) as session:
        for start in range(0, len(wanted), 500):
            query = select(ItemRow).where(col(ItemRow.id).in_(wanted[start : start + 500]))
            if queues:
                query = query.where(col(ItemRow.queue).in_(list(queues)))
            for row in session.exec(query):
                out[row.id] = str(json.loads(row.payload)["case_id"])
    return out


def recorded_monitor_report(
    engine: Engine,
    options: MonitorOptions,
    judge: RecordedJudge,
    *,
    anchors: Path | None = None,
    queues: Sequence[str] = (),
) -> MonitorReport:
    """The monitor's report for the judge of a verdicts file read by `read_monitored` (see the
    module docstring)."""
    check_alpha(options)
    v = _version(engine, judge)
    anchor_items: dict[str, tuple[str, dict[str, str]]] = {}
    frozen = None
    anchor_kappas: dict[str, float | None] = {}
    anchor_set: dict[str, tuple[int, int]] = {}
    reference: dict[str, tuple[float, ...]] = {}
    if anchors is not None:
        anchor_items, anchor_kappas, frozen, anchor_set, reference = _anchor_set(
            engine, v, judge, anchors
        )
    baseline = release_baseline(v.calibration, anchor_kappas, anchor_set, reference)
    traffic = {r.item for r in judge.rows if r.item not in anchor_items}
    cases = _workbench_cases(engine, traffic, queues)
    experts = ExpertLabels(engine)
    criteria = {c.id: c for c in judge.rubric.criteria}
    by_window: dict[str, list[RecordedVerdict]] = defaultdict(list)
    start_of = _start(options.window)
    for r in judge.rows:
        assert r.judged_at is not None  # read_monitored required it
        by_window[start_of(r.judged_at)].append(r)
    inputs = []
    for key in sorted(by_window):
        rows = by_window[key]
        start, end = window_bounds(datetime.fromisoformat(key), options.window)
        audited: dict[str, list[AuditedItem]] = defaultdict(list)
        judged: dict[str, list[tuple[str, str | int | None, None]]] = defaultdict(list)
        anchor_rows: dict[str, list[tuple[str, RecordedVerdict | None]]] = defaultdict(list)
        for r in rows:
            if r.item in anchor_items:
                anchor_rows[r.criterion].append((r.item, r))
                continue
            judged[r.criterion].append((cases.get(r.item, r.item), r.label, None))
            if r.item in cases:
                audited[r.criterion].append(
                    experts.item(cases[r.item], r.item, r.criterion, r.label)
                )
        window = AuditWindow(v.judge_hash, start, end, dict(audited))
        kappas = {}
        for name, items in audited.items():
            c = criteria[name]
            counts = [str(lab) for _, lab, _ in judged[name]]
            part = window_criterion(
                c,
                items,
                seed=options.seed,
                n_resamples=options.n_resamples,
                judged=(counts.count("pass"), counts.count("pass") + counts.count("fail"))
                if c.scale.kind == "binary"
                else None,
            )
            kappas[name] = part
        inputs.append(
            WindowInput(
                window,
                scored={
                    crit: label_cases(judged[crit], b.labels, expert=False)
                    for crit, b in baseline.items()
                },
                anchors=_window_anchors(anchor_rows, anchor_items, baseline),
                kappas=kappas,
            )
        )
    warnings = []
    if not cases:
        warnings.append(
            f"no item of {judge.source.name} is a workbench item"
            + (f" of queue(s) {', '.join(queues)}" if queues else "")
            + ": no audited item, rule 1 (agreement below the gate) has nothing to read"
        )
    verdicts = MonitoredVerdicts(
        file=str(judge.source),
        format=judge.fmt,
        sha256=judge.sha256,
        rows=len(judge.rows),
        judge_version=judge.version,
        queues=list(queues),
        audited_items=len(cases),
        anchor_rows=sum(1 for r in judge.rows if r.item in anchor_items),
    )
    return replay(v, baseline, inputs, options, frozen=frozen, warnings=warnings, verdicts=verdicts)


def _window_anchors(
    rows: Mapping[str, Sequence[tuple[str, RecordedVerdict | None]]],
    items: Mapping[str, tuple[str, dict[str, str]]],
    baseline: Mapping[str, CriterionBaseline],
) -> dict[str, list[Case]]:
    return {
        crit: _anchor_cases(rows[crit], items, crit, b.labels)
        for crit, b in baseline.items()
        if b.anchor_kappa is not None and rows.get(crit)
    }
