"""The judge's agreement with the experts over time: `audit_windows` joins the audited items'
expert labels with the verdicts the judge recorded on them (kept in each `audit` run's summary),
per judge version and time window (the window data model: `calibrant.scoring.over_time`), and
`agreement_over_time` reports each window by the calibration's statistics and gate."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from ..agreement.intervals import proportion
from ..contracts import CANT_TELL
from ..contracts.reports.audit import (
    AGREEMENT_OVER_TIME_SCHEMA_VERSION,
    AgreementOverTimeReport,
    AgreementWindow,
    AuditReport,
    WindowCriterion,
    WindowItem,
)
from ..contracts.reports.score import ScoreReport
from ..errors import ConfigError
from ..scoring.over_time import (
    WINDOWS,
    AuditedItem,
    AuditWindow,
    window_bounds,
    window_criterion,
)
from ..store import labeling as lab
from ..store.adjudication import consensus
from ..store.runs import Runs


def _audits(runs: Runs) -> list[tuple[str, datetime, dict[str, Any]]]:
    """Every finished audit run: (id, when it was drawn, its report), oldest first."""
    out = []
    for info in runs.recent(kind="audit", limit=100_000):
        if info.status != "finished":
            continue
        detail = runs.detail(info.id)
        report = None if detail is None else detail.report
        if isinstance(report, AuditReport):
            out.append((info.id, info.started_at, report.json_data()))
        elif isinstance(report, dict):  # one this calibrant does not read as its model: as stored
            out.append((info.id, info.started_at, report))
    return sorted(out, key=lambda x: (x[1], x[0]))


def _when(text: str) -> datetime:
    return lab.utc(datetime.fromisoformat(text))


class ExpertLabels:
    """The workbench's expert labels, read once: per (item, criterion) the consensus
    (adjudicated, or agreed by two or more experts), else the one expert's label (marked
    single-expert), else none."""

    def __init__(self, engine: Engine) -> None:
        self.decided = {(x.item, x.criterion): x.label for x in consensus(engine)}
        self.given: dict[tuple[str, str], dict[str, str | int]] = defaultdict(dict)
        for x in lab.labels_of(engine):
            self.given[(x.item, x.criterion)][x.rater] = x.label

    def item(
        self,
        case_id: str,
        item_id: str,
        criterion: str,
        judge_label: str | int | None,
        *,
        inclusion_probability: float | None = None,
    ) -> AuditedItem:
        """The audited item: the experts' label beside the judge's."""
        experts = self.given.get((item_id, criterion), {})
        label = self.decided.get((item_id, criterion))
        single = False
        if label is None and len(experts) == 1:
            (only,) = experts.values()
            label, single = (None, False) if only == CANT_TELL else (only, True)
        return AuditedItem(
            case_id=case_id,
            item_id=item_id,
            expert_label=label,
            judge_label=judge_label,
            single_expert=single,
            experts=dict(experts),
            inclusion_probability=inclusion_probability,
        )


def audit_windows(
    engine: Engine, *, window: str = "week", judge: str | None = None
) -> list[AuditWindow]:
    """The audited items per judge version and window (the window of its score run's start),
    each with its expert label and the judge's recorded one; `judge`: a judge version (or
    a prefix of its hash) only. An item audited twice from the same run counts once (the
    latest audit)."""
    if window not in WINDOWS:
        raise ConfigError(f"--window '{window}' is not one of {', '.join(WINDOWS)}")
    audits = _audits(Runs(engine))
    experts_of = ExpertLabels(engine)
    rubrics: dict[str, list[str]] = {}
    groups: dict[tuple[str, datetime, datetime], dict[str, Any]] = {}
    for audit_id, _, report in audits:
        run = report["score_run"]
        version = run["judge_hash"]
        if judge is not None and not version.startswith(judge):
            continue
        start, end = window_bounds(_when(run["started_at"]), window)
        g = groups.setdefault((version, start, end), {"items": {}, "runs": [], "audits": []})
        if run["id"] not in g["runs"]:
            g["runs"].append(run["id"])
        g["audits"].append(audit_id)
        if run["rubric_hash"] not in rubrics:
            rubrics[run["rubric_hash"]] = [
                c.id for c in lab.stored_rubric(engine, run["rubric_hash"])[1].criteria
            ]
        for it in report["items"]:
            g["items"][(run["id"], it["item_id"])] = (it, rubrics[run["rubric_hash"]])
    out = []
    for (version, start, end), g in sorted(groups.items()):
        criteria: dict[str, list[AuditedItem]] = defaultdict(list)
        for (_, item_id), (it, names) in sorted(g["items"].items()):
            for c in names:
                criteria[c].append(
                    experts_of.item(
                        it["case_id"],
                        item_id,
                        c,
                        it["judge_labels"].get(c),
                        inclusion_probability=it.get("inclusion_probability"),  # old: None
                    )
                )
        out.append(
            AuditWindow(version, start, end, dict(criteria), tuple(g["runs"]), tuple(g["audits"]))
        )
    return out


def agreement_over_time(
    engine: Engine,
    *,
    window: str = "week",
    judge: str | None = None,
    seed: int = 0,
    n_resamples: int = 2000,
) -> AgreementOverTimeReport:
    """Each window of `audit_windows` by the calibration's statistics and gate, with the pass
    rates of the window's score runs corrected by the judge's errors on its audit."""
    runs = Runs(engine)
    windows = audit_windows(engine, window=window, judge=judge)
    out = []
    latest: dict[str, str] = {}
    for w in windows:
        found = [runs.detail(r) for r in w.score_runs]
        details = [d for d in found if d is not None]
        rubric_hash = details[0].rubric_hash if details else None
        rubric = lab.stored_rubric(engine, rubric_hash)[1] if rubric_hash else None
        judge_fields = details[0].judge if details else None
        model = None if judge_fields is None else judge_fields.model
        scored = [d.report for d in details if isinstance(d.report, ScoreReport)]
        criteria = []
        for c in rubric.criteria if rubric else []:
            counts = [x.counts for r in scored for x in r.criteria if x.criterion == c.id]
            passed = sum(int(k.get("pass", 0)) for k in counts)
            judged = passed + sum(int(k.get("fail", 0)) for k in counts)
            items = w.criteria.get(c.id, [])
            binary = c.scale.kind == "binary"
            part = window_criterion(
                c,
                items,
                seed=seed,
                n_resamples=n_resamples,
                judged=(passed, judged) if binary else None,
            )
            criteria.append(
                WindowCriterion(
                    **{name: getattr(part, name) for name in part.model_fields_set},
                    gate_status=part.gate.status,
                    pass_rate_judged=proportion(passed, judged).as_figure() if binary else None,
                    items=[
                        WindowItem(
                            case_id=it.case_id,
                            item_id=it.item_id,
                            expert_label=it.expert_label,
                            judge_label=it.judge_label,
                            single_expert=it.single_expert,
                            inclusion_probability=it.inclusion_probability,
                        )
                        for it in items
                    ],
                )
            )
        start = w.start.isoformat()
        latest[w.judge_version] = max(latest.get(w.judge_version, start), start)
        out.append(
            AgreementWindow(
                judge_version=w.judge_version,
                judge_model=model,
                start=start,
                end=w.end.isoformat(),
                score_runs=list(w.score_runs),
                audits=list(w.audits),
                criteria=criteria,
            )
        )
    return AgreementOverTimeReport(
        schema_version=AGREEMENT_OVER_TIME_SCHEMA_VERSION,
        window=window,
        seed=seed,
        n_resamples=n_resamples,
        windows=out,
        latest=latest,
    )
