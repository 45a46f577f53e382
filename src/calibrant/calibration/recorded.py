"""Recorded verdicts: a judge that runs elsewhere (Inspect, promptfoo, DeepEval, a team's own
pipeline), measured by calibrant's statistics without calibrant ever calling it.

A verdicts file is CSV (header `item,criterion,label,judge_version`, optionally `rationale` and
`judged_at`) or JSONL (one object per line with the same keys); `judged_at` is when the judge gave
the verdict (ISO 8601 date or date and time, UTC unless it names its offset), which `calibrant
monitor --verdicts` needs to put each verdict in its window (an item may then come back once per
window: anchors re-judged week after week); Inspect eval logs and promptfoo result files are
turned into the same rows by `inspect_log` and `promptfoo_results`. Every row is checked the way
expert labels are (`labels.py`): an item the gold set lacks, a criterion the rubric lacks, a label
off the criterion's scale (its levels, `not_applicable` where the criterion allows it, and the
judge's abstention `insufficient_evidence`), an (item, criterion) given twice, a missing column,
a second judge version in one file — each is one InputError naming the file, the line and the
field. A gold item of the split without a row, or a criterion without one, counts as the judge
abstaining (insufficient_evidence): against coverage, exactly as in the gate."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..contracts import (
    INSUFFICIENT_EVIDENCE,
    CriterionJudgment,
    JudgeConfig,
    Judgment,
    Rubric,
    content_hash,
)
from ..contracts.reports.base import RecordedVerdicts
from ..errors import InputError
from ..gold import GoldSet, read_manifest
from .verdict_files import (
    COLUMNS,
    FORMATS,
    _uploaded,
    read_verdicts,
    verdicts_csv,
    verdicts_jsonl,
)
from .verdict_files import OPTIONAL as OPTIONAL
from .verdict_rows import (
    ImportMapping,
    RecordedVerdict,
    Where,
    dotted,
    parse_json,
    source_moment,
)

__all__ = [
    "COLUMNS",
    "FORMATS",
    "NO_ROW",
    "ImportMapping",
    "RecordedJudge",
    "RecordedVerdict",
    "Where",
    "check_verdicts",
    "dotted",
    "load_recorded",
    "parse_json",
    "read_verdicts",
    "source_moment",
    "verdict_judgment",
    "verdicts_jsonl",
    "verdicts_csv",
]

NO_ROW = "no recorded verdict"
"""The rationale of an abstention calibrant fills in where the file has no row."""


def check_verdicts(
    rows: Sequence[RecordedVerdict],
    *,
    rubric: Rubric,
    items: Collection[str] | None,
    gold_name: str = "the gold set",
    window: Callable[[datetime], str] | None = None,
) -> str:
    """Refuse, at its row, what labels files may not hold either; returns the judge version
    (one per file). `items`: every item of the gold set (`gold_name` in errors), any split
    (None: any item, as production verdicts are). `window` (the monitor's): every row needs
    `judged_at`, and an item has one verdict per criterion per window (of `judged_at`)."""
    criteria = {c.id: c for c in rubric.criteria}
    first = rows[0]
    seen: dict[tuple[str, str, str], RecordedVerdict] = {}
    for r in rows:
        if r.judge_version != first.judge_version:
            raise r.where.error(
                f"a second judge version '{r.judge_version}' (the file began with "
                f"'{first.judge_version}' at {_at(first)}): one judge version per file",
                field="judge_version",
            )
        if items is not None and r.item not in items:
            raise r.where.error(f"item '{r.item}' is not in {gold_name}", field="item")
        c = criteria.get(r.criterion)
        if c is None:
            raise r.where.error(
                f"criterion '{r.criterion}' is not in rubric {rubric.rubric_id} "
                f"(criteria: {', '.join(criteria)})",
                field="criterion",
            )
        allowed = [*c.allowed_labels(), INSUFFICIENT_EVIDENCE]
        if r.label not in allowed or isinstance(r.label, bool):
            raise r.where.error(
                f"label {r.label!r} is not on the scale of '{c.id}' "
                f"(allowed: {', '.join(repr(v) for v in allowed)})",
                field="label",
            )
        when = ""
        if window is not None:
            if r.judged_at is None:
                raise r.where.error(
                    "required field is missing: the monitor puts each verdict in the window of "
                    "its judged_at",
                    field="judged_at",
                )
            when = window(r.judged_at)
        before = seen.get((r.item, r.criterion, when))
        if before is not None:
            raise r.where.error(
                f"item '{r.item}' has a second verdict on '{r.criterion}'"
                + (f" in the window from {when}" if when else "")
                + f" (first at {_at(before)})",
                field="item",
            )
        seen[(r.item, r.criterion, when)] = r
    return first.judge_version


def _at(r: RecordedVerdict) -> str:
    return f"line {r.where.line}" if r.where.line is not None else dotted(r.where.fields["item"])


@dataclass(frozen=True)
class RecordedJudge:
    """A judge known only by its recorded verdicts, checked against a rubric and a gold set."""

    version: str
    source: Path
    fmt: str
    sha256: str
    rubric: Rubric
    rows: tuple[RecordedVerdict, ...]

    @property
    def config(self) -> JudgeConfig:
        """Its identity in the store and the reports: the version and the rubric."""
        return JudgeConfig(
            model=f"recorded/{self.version}",
            prompt_template_version="recorded",
            rubric_hash=self.rubric.content_hash,
        )

    def judgments(self, gold: GoldSet) -> dict[str, Judgment]:
        """One judgment per gold item of the split; no row is an abstention."""
        config, now = self.config, datetime.now(UTC)
        by = {(r.item, r.criterion): r for r in self.rows}
        out = {}
        for i in gold.item_ids:
            answers = []
            for c in self.rubric.criteria:
                r = by.get((i, c.id))
                answers.append(
                    CriterionJudgment(
                        criterion=c.id,
                        label=INSUFFICIENT_EVIDENCE if r is None else r.label,
                        rationale=NO_ROW if r is None else r.rationale,
                    )
                )
            out[i] = verdict_judgment(config, gold, i, answers, now)
        return out

    def section(self, gold: GoldSet) -> RecordedVerdicts:
        """What the report says of the file: where it came from, what it covered."""
        in_split = [r for r in self.rows if r.item in gold.items]
        with_rows = {r.item for r in in_split}
        without = sorted(set(gold.items) - with_rows)
        gaps = len(with_rows) * len(self.rubric.criteria) - len(in_split)
        missing = len(without) * len(self.rubric.criteria) + gaps
        return RecordedVerdicts(
            judge_version=self.version,
            file=str(self.source),
            format=self.fmt,
            sha256=self.sha256,
            rows=len(self.rows),
            rows_in_split=len(in_split),
            items_with_verdicts=len(with_rows),
            items_without_verdict=without,
            verdicts_missing=missing,
            note=(
                f"{missing} (item, criterion) pair(s) of the gold split have no row in "
                f"{self.source.name} ({len(without)} item(s) without any): each counts as the "
                "judge abstaining (insufficient_evidence), against coverage as in the gate."
                if missing
                else f"every gold item of the split has a row per criterion in {self.source.name}."
            ),
        )


def verdict_judgment(
    config: JudgeConfig,
    gold: GoldSet,
    item: str,
    answers: list[CriterionJudgment],
    created_at: datetime,
) -> Judgment:
    """A verdict no model call produced (recorded elsewhere, or planted): the judgment of gold
    item `item` by `config` with these answers."""
    return Judgment(
        transcript_id=item,
        transcript_hash=content_hash(gold.transcripts[item]),
        judge_hash=config.hash,
        judge=config,
        sample_index=0,
        outcome="verdict",
        criteria=answers,
        attempts=0,
        latency_ms=0.0,
        created_at=created_at,
    )


def load_recorded(
    path: Path,
    *,
    rubric: Rubric,
    gold: Path,
    fmt: str = "auto",
    mapping: ImportMapping | None = None,
    text: str | None = None,
) -> RecordedJudge:
    """Read and check a verdicts file against the rubric and every item of the gold set at
    `gold` (any split); nothing is recorded or written. `text`: the file's content, uploaded
    (CSV or JSONL), `path` its name (errors and the report name it)."""
    manifest = gold / "manifest.yaml"
    if not manifest.exists():
        raise InputError(manifest, "no gold manifest here")
    items = read_manifest(manifest)
    if text is None:
        kind, rows = read_verdicts(path, fmt, mapping)
        data = path.read_bytes()
    else:
        kind, rows = _uploaded(path, text, fmt)
        data = text.encode()
    version = check_verdicts(rows, rubric=rubric, items=items, gold_name=str(manifest))
    digest = hashlib.sha256(data).hexdigest()
    return RecordedJudge(version, path, kind, f"sha256:{digest}", rubric, tuple(rows))
