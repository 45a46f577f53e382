"""After release: audit a score run, and the judge's agreement with the experts over time.

`draw_audit` is the one audit operation (`calibrant audit`, POST /api/audits): it draws a sample
of a score run's transcripts (`calibrant.scoring.audit_sample`: stratified by the judge's verdict,
at most a few per case, reproducible by seed) into a workbench queue, where experts label them
like any item — blind: an item carries the transcript and its rubric, never the judge's verdict.
What the judge recorded on each item, and the probability with which the item was drawn, are
kept apart, in the summary of an `audit` run in the store.

`audit_windows` joins the audited items' expert labels with those recorded verdicts, per judge
version and time window (the window data model: `calibrant.scoring.over_time`), and
`agreement_over_time` reports each window by the calibration's statistics and gate (both in
`audit_agreement`, exported here too).

It lives with the workbench it writes to (the service's labeling tables), below the faces."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from ..contracts import Rubric, Transcript
from ..contracts.common import content_hash
from ..contracts.reports.audit import (
    AUDIT_SCHEMA_VERSION,
    AuditItem,
    AuditReport,
    AuditStratum,
    ScoreRunRef,
)
from ..errors import ConfigError
from ..scoring.audit_sample import Scored, draw_sample
from ..store import labeling as lab
from ..store.run_info import RunDetail
from ..store.runs import Runs
from ..store.service_tables import ItemRow
from .audit_agreement import ExpertLabels, agreement_over_time, audit_windows

__all__ = [
    "AuditOptions",
    "AuditResult",
    "draw_audit",
    "audit_windows",
    "agreement_over_time",
    "AUDIT_DESIGN",
    "MAX_COUNT",
    "MAX_PER_CASE",
    "MAX_SEED",
    "ExpertLabels",
    "run_cases",
]

AUDIT_DESIGN = (
    "two-phase: at most per_case items of each case kept at random, then the kept items drawn "
    "by stratum of the judge's verdict on the stratified_by criteria (proportional allocation, "
    "at least one per stratum; below one item per stratum, a systematic sample over the kept "
    "items lined up by stratum, each at count / kept); inclusion probability = case "
    "probability x stratum probability"
)
_QUEUE = re.compile(r"^[A-Za-z0-9_.:\-/@+]{1,200}$")
_LOAD = 200  # transcripts read at a time to learn their cases
MAX_SEED = 2**31 - 1
"""The largest seed: a run's seed is a 32-bit integer in every store (PostgreSQL's INTEGER)."""
MAX_COUNT = 100_000
"""The most transcripts one audit draws (far more than experts label)."""
MAX_PER_CASE = 1_000


@dataclass(frozen=True)
class AuditOptions:
    """`score_run`: a score run id (or unambiguous prefix, or `latest`); `rate` or `count`;
    `rubric_text`: the rubric's YAML, kept in the store if it does not hold the run's rubric
    yet; `dry_run`: draw and report, write nothing."""

    score_run: str
    queue: str
    seed: int = 0
    rate: float | None = None
    count: int | None = None
    per_case: int = 2
    stratify_by: tuple[str, ...] | None = None  # criteria (default: the pass/fail ones)
    rubric_text: str | None = None
    dry_run: bool = False


@dataclass(frozen=True)
class AuditResult:
    run_id: str | None  # None on a dry run
    report: AuditReport
    added: int  # new workbench items


def _check(options: AuditOptions) -> None:
    if (options.rate is None) == (options.count is None):
        raise ConfigError("audit: give --rate R or --count N (one of them)")
    if options.rate is not None and not 0 < options.rate <= 1:
        raise ConfigError(f"audit: --rate {options.rate} is not in (0, 1]")
    if options.count is not None and options.count <= 0:
        raise ConfigError(f"audit: --count {options.count} must be at least 1")
    if options.count is not None and options.count > MAX_COUNT:
        raise ConfigError(f"audit: --count {options.count} is over {MAX_COUNT}")
    if not 1 <= options.per_case <= MAX_PER_CASE:
        raise ConfigError(f"audit: --per-case {options.per_case} is not in 1..{MAX_PER_CASE}")
    if not 0 <= options.seed <= MAX_SEED:
        raise ConfigError(f"audit: --seed {options.seed} is not in 0..{MAX_SEED}")
    if not _QUEUE.match(options.queue):
        raise ConfigError(
            f"audit: --queue '{options.queue}' is not a queue name (1-200 of A-Z a-z 0-9 _ . : - "
            "/ @ +)"
        )


def _score_run(runs: Runs, ref: str) -> RunDetail:
    """The score run `ref` names: its id, an unambiguous prefix, or `latest` (the newest finished
    score run in the store)."""
    if ref == "latest":
        newest = runs.latest("score")
        if newest is None:
            raise ConfigError(
                "audit: no finished score run in the store to take as 'latest' "
                "(`calibrant score ... ` records one)"
            )
        ref = newest[0].id
    detail = runs.detail(ref)
    if detail is None or detail.kind != "score":
        raise ConfigError(
            f"audit: no score run '{ref}' in the store (`calibrant runs list --kind score`)"
        )
    if detail.status != "finished" or detail.report is None:
        raise ConfigError(f"audit: score run {detail.id} is {detail.status}, not finished")
    return detail


def _rubric(engine: Engine, rubric_hash: str, text: str | None, dry_run: bool) -> Rubric:
    """The score run's rubric: from the store, else from `text` (kept in the store unless this
    is a dry run)."""
    try:
        return lab.stored_rubric(engine, rubric_hash)[1]
    except lab.NotFound:
        pass
    if text is None:
        raise ConfigError(
            f"audit: the store holds no rubric {rubric_hash[:19]} (the score run's): give its "
            "file with --rubric, or upload it (POST /api/rubrics)"
        )
    from ..files import yaml_model_from_text

    rubric = yaml_model_from_text(Rubric, text, "rubric", "--rubric")
    if rubric.content_hash != rubric_hash:
        raise ConfigError(
            f"audit: --rubric is rubric {rubric.content_hash[:19]}, the score run judged on "
            f"{rubric_hash[:19]}"
        )
    if not dry_run:
        from .catalog import add_rubric

        add_rubric(engine, text, "audit")
    return rubric


def _reread(rows: list[Any]) -> Iterator[tuple[int, Transcript]]:
    """Each row's position and transcript, read again from its source a chunk at a time and
    checked against the hash the run recorded: a run of any size, no more than a chunk of
    transcripts in memory beside the ones the caller keeps."""
    from ..scoring.queue import chunk_refs, load_refs

    for start in range(0, len(rows), _LOAD):
        part = rows[start : start + _LOAD]
        (refs,) = list(chunk_refs(iter([r.source for r in part]), len(part)))
        for row, (source, t) in zip(part, load_refs(refs), strict=True):
            if content_hash(t) != row.transcript_hash:
                raise ConfigError(
                    f"audit: {source} changed since the score run judged it (its content hash "
                    "differs): audit a run whose transcripts are where it read them"
                )
            yield row.position, t


def run_cases(rows: list[Any]) -> dict[int, str]:
    """Each score row's case id (by its position in the run), its transcript read again and
    checked against the hash the run recorded."""
    return {p: str(t.case_id) for p, t in _reread(rows)}


def draw_audit(engine: Engine, options: AuditOptions, *, by: str) -> AuditResult:
    """Draw the audit sample into its queue and record it (see the module docstring). Every
    check comes before the first write: a refused audit writes nothing. A sample whose every
    transcript is a workbench item already is refused (the audit would add nothing to its
    queue). The new items and the audit run are written in one transaction."""
    _check(options)
    runs = Runs(engine)
    run = _score_run(runs, options.score_run)
    rubric_hash = run.rubric_hash or (run.judge.rubric_hash if run.judge else None)
    if not rubric_hash:
        raise ConfigError(f"audit: score run {run.id} records no rubric")
    if not run.judge_hash:
        raise ConfigError(f"audit: score run {run.id} records no judge")
    held = lab.Conflict(
        f"audit: queue '{options.queue}' already holds items: draw the audit into a new queue"
    )
    with Session(engine) as session:
        if session.exec(lab.in_queue(options.queue)).first() is not None:
            raise held
    rubric = _rubric(engine, rubric_hash, options.rubric_text, options.dry_run)
    known = [c.id for c in rubric.criteria]
    if options.stratify_by is None:
        criteria = [c.id for c in rubric.criteria if c.scale.kind == "binary"]
    else:
        criteria = list(options.stratify_by)
        for name in criteria:
            if name not in known:
                raise ConfigError(
                    f"audit: --stratify-by '{name}' is not a criterion of rubric "
                    f"{rubric.rubric_id} ({', '.join(known)})"
                )
    rows = runs.scores(run.id)
    if not rows:
        raise ConfigError(f"audit: score run {run.id} has no scored transcript")
    case_of = run_cases(rows)
    scored = [
        Scored(
            position=r.position,
            transcript_id=r.transcript_id,
            case_id=case_of[r.position],
            outcome=r.judge_outcome,
            labels=json.loads(r.labels),
        )
        for r in rows
    ]
    design = draw_sample(
        scored,
        criteria,
        seed=options.seed,
        rate=options.rate,
        count=options.count,
        per_case=options.per_case,
    )
    by_position = {r.position: r for r in rows}
    chosen = [d.scored.position for d in design.items]
    again = dict(_reread([by_position[p] for p in chosen]))
    drawn: list[Transcript] = [again[p] for p in chosen]
    with Session(engine) as session:
        ids = [t.transcript_id for t in drawn]
        existing = {
            row.id: row for row in session.exec(select(ItemRow).where(col(ItemRow.id).in_(ids)))
        }
    for t in drawn:
        old = existing.get(t.transcript_id)
        if old is not None and old.transcript_hash != content_hash(t):
            raise lab.Conflict(
                f"audit: workbench item '{t.transcript_id}' holds another transcript under this "
                "id (a transcript id names one transcript)"
            )
    items = []
    for d, t in zip(design.items, drawn, strict=True):
        old = existing.get(t.transcript_id)
        row = by_position[d.scored.position]
        items.append(
            AuditItem(
                item_id=t.transcript_id,
                queue=options.queue if old is None else old.queue,
                new=old is None,
                transcript_hash=row.transcript_hash,
                case_id=d.scored.case_id,
                position=d.scored.position,
                stratum=d.stratum,
                judge_outcome=d.scored.outcome,
                judge_labels=dict(d.scored.labels),
                case_probability=d.case_probability,
                stratum_probability=d.stratum_probability,
                inclusion_probability=d.inclusion_probability,
            )
        )
    report = AuditReport(
        schema_version=AUDIT_SCHEMA_VERSION,
        score_run=ScoreRunRef(
            id=run.id,
            judge_hash=run.judge_hash,
            judge_model=run.judge.model if run.judge else None,
            rubric_hash=rubric_hash,
            started_at=run.started_at,
            finished_at=run.finished_at,
            transcripts=len(rows),
        ),
        queue=options.queue,
        seed=options.seed,
        rate=options.rate,
        count=options.count,
        per_case=options.per_case,
        stratified_by=criteria,
        design=AUDIT_DESIGN,
        systematic=design.systematic,
        target=design.target,
        population=design.population,
        kept=design.kept,
        cases=design.cases,
        drawn_cases=design.drawn_cases,
        strata=[
            AuditStratum(stratum=s.name, population=s.population, kept=s.kept, drawn=s.drawn)
            for s in design.strata
        ],
        items=items,
    )
    new = [(n, t) for n, t in enumerate(drawn, start=1) if t.transcript_id not in existing]
    if options.dry_run:
        return AuditResult(None, report, len(new))
    if not new:
        queues = sorted({row.queue for row in existing.values()})
        raise lab.Conflict(
            f"audit: all {len(drawn)} transcripts drawn are workbench items already (queue "
            f"{', '.join(repr(q) for q in queues)}): the audit would add no item to queue "
            f"'{options.queue}'; draw another sample (another --seed, a larger --count) or "
            "audit another score run"
        )
    recorded: list[str] = []

    def record_run(session: Session) -> None:
        recorded.append(
            Runs.record(
                session,
                "audit",
                report.json_data(),
                seed=options.seed,
                arguments={
                    "score_run": run.id,
                    "queue": options.queue,
                    "rate": options.rate,
                    "count": options.count,
                    "per_case": options.per_case,
                },
            )
        )

    # the queue's check, under its lock, refuses a second audit drawn into it at the same
    # moment; the run is written in the same transaction as the items
    lab.upload_transcripts(
        engine,
        new,
        queue=options.queue,
        rubric_hash=rubric_hash,
        by=by,
        held=held,
        then=record_run,
    )
    return AuditResult(recorded[0], report, len(new))
