"""After release: the drift monitor over the store (`calibrant monitor`, GET /api/monitor).

`monitor_report` is the one monitor operation. For one judge version it

* takes the **baseline** from the judge's release calibration: the latest finished calibrate run
  of that version on the rubric its audited score runs judged on (the run `score --calibration
  latest` would pick), per criterion its scale, the judge's label shares on the gold items (the
  calibration's confusion columns, half a count added per label so that no share is 0) and its
  kappa;
* replays every audit window of that version (`audit_windows`), oldest first, through
  :class:`calibrant.monitor.Monitor`: the window's audited cases (expert and judge label per
  item, rule 1), the judged labels of every transcript of the window's score runs, by case
  (rule 2), and the window's anchors when they were re-scored (rule 3).

The state is recomputed from the store at every look rather than persisted: the store holds
everything the e-processes read, a replay gives the same e-values each time (the processes are
deterministic in their input), and a label added or adjudicated late is counted, in the window
it belongs to, at the next look. Looking again is what an e-process is built for.

**Anchors** (`record_anchors`, `calibrant monitor --anchors GOLD`): the frozen anchor set is the
calibration's gold set (its split), each case with its items' consensus labels; the released
judge's kappa on it comes from the calibration's own judgments (sample 0 in the judgment cache).
For each audit window not yet anchored, ``per_window`` cases are drawn with replacement
(:func:`calibrant.monitor.draw_anchors`, seeded by the window's first day) and their items are
judged again by the current judge through the judge runner every command uses, under a sample
number of the window's own (``ANCHOR_SAMPLE_BASE`` + the window's first day, counted from
2000-01-01): the cache cannot hand back the release answer, and a second look reuses the
window's answers instead of asking again. The labels are recorded as an ``anchors`` run of the
store, which is what the monitor (and the service, which calls no model here) reads. A window
is anchored when it is first looked at with ``--anchors``: look every window."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from ..calibration.explain import ABSTAIN
from ..contracts import NOT_APPLICABLE
from ..contracts.reports import checked
from ..errors import ConfigError
from ..monitor import (
    Case,
    CriterionBaseline,
    Monitor,
    MonitorSettings,
    Window,
    anchor_kappa,
    draw_anchors,
)
from ..scoring.over_time import WINDOWS, AuditWindow
from ..store.runs import Runs
from ..store.versions import latest_calibrate_run
from .audit import _audits, agreement_over_time, audit_windows, run_cases

__all__ = [
    "ANCHOR_SAMPLE_BASE",
    "MonitorOptions",
    "Version",
    "WindowInput",
    "audit_cases",
    "check_alpha",
    "label_cases",
    "monitor_report",
    "monitor_version",
    "record_anchors",
    "release_baseline",
    "replay",
]

ANCHOR_SAMPLE_BASE = 1_000_000
_EPOCH = date(2000, 1, 1)
_SKIP = {NOT_APPLICABLE, *ABSTAIN}
RULE_OF = {
    "below_gate": "agreement",
    "judge_changed": "anchors",
    "product_changed": "shift",
    "shift_unexplained": "shift",
}


@dataclass(frozen=True)
class MonitorOptions:
    """`judge`: a judge version (its hash or a prefix; None: the one version audited);
    `window`: day, week or month; `alpha`: each rule's false-alarm bound over the monitor's
    life; `seed`, `n_resamples`: the per-window kappa intervals (agreement over time)."""

    judge: str | None = None
    window: str = "week"
    alpha: float = 0.05
    seed: int = 0
    n_resamples: int = 2000


@dataclass(frozen=True)
class Version:
    judge_hash: str
    rubric_hash: str
    calibration_run: str
    calibration: dict[str, Any]


def monitor_version(engine: Engine, judge: str | None, window: str = "week") -> Version:
    """The judge version monitored and its release calibration; one clear error otherwise."""
    if window not in WINDOWS:
        raise ConfigError(f"monitor: --window '{window}' is not one of {', '.join(WINDOWS)}")
    runs = Runs(engine)
    audited: dict[str, str] = {}  # judge hash -> rubric hash of its audited runs
    for _, _, report in _audits(runs):
        run = report["score_run"]
        audited.setdefault(run["judge_hash"], run["rubric_hash"])
    if judge is not None:
        found = [v for v in audited if v.startswith(judge) or v.partition(":")[2].startswith(judge)]
        if not found:
            calibrated = any(
                (i.judge_hash or "").startswith(judge)
                for i in runs.recent(kind="calibrate", limit=100_000)
            )
            if calibrated:
                raise ConfigError(
                    f"monitor: judge version '{judge}' has no audit in the store yet "
                    "(`calibrant audit RUN --queue NAME --rate R`)"
                )
            known = ", ".join(v[:19] for v in audited) or "none"
            raise ConfigError(
                f"monitor: unknown judge version '{judge}' (judge versions audited: {known})"
            )
        if len(found) > 1:
            raise ConfigError(
                f"monitor: --judge '{judge}' names {len(found)} judge versions: give more of "
                "its hash"
            )
        version = found[0]
    elif not audited:
        raise ConfigError(
            "monitor: no audit in the store yet (`calibrant audit RUN --queue NAME --rate R`)"
        )
    elif len(audited) > 1:
        raise ConfigError(
            "monitor: several judge versions are audited ("
            + ", ".join(v[:19] for v in audited)
            + "): give --judge VERSION"
        )
    else:
        (version,) = audited
    rubric_hash = audited[version]
    found_cal = latest_calibrate_run(runs, version, rubric_hash)
    if found_cal is None:
        raise ConfigError(
            f"monitor: judge version {version[:19]} has no finished calibration in the store on "
            "the rubric it scored with: the monitor starts from the release calibration "
            "(`calibrant calibrate`)"
        )
    info, report = found_cal
    return Version(version, rubric_hash, info.id, report)


def _labels(c: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(x) for x in c["scale"] if str(x) not in _SKIP)


def release_baseline(
    calibration: Mapping[str, Any], anchor: Mapping[str, float | None]
) -> dict[str, CriterionBaseline]:
    out = {}
    for c in calibration["criteria"]:
        labels = _labels(c)
        if len(labels) < 2:
            continue
        conf = c["confusion"]
        cols = [str(x) for x in conf["columns_judge"]]
        counts = [0.0] * len(labels)
        for row in conf["counts"]:
            for col_label, n in zip(cols, row, strict=True):
                if col_label in labels:
                    counts[labels.index(col_label)] += n
        total = sum(counts) + 0.5 * len(labels)
        out[c["criterion"]] = CriterionBaseline(
            labels=labels,
            judged_shares=tuple((n + 0.5) / total for n in counts),
            ordinal=c["level"] == "ordinal",
            anchor_kappa=anchor.get(c["criterion"]),
        )
    return out


def label_cases(
    pairs: Iterable[tuple[str, str | int | None, str | int | None]],
    labels: Sequence[str],
    *,
    expert: bool,
) -> list[Case]:
    """(case, judge label, expert label) rows as cases, in case-id order (not the labels')."""
    by_case: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for case, judge, exp in pairs:
        j = "" if judge is None else str(judge)
        e = "" if exp is None else str(exp)
        if j not in labels or (expert and e not in labels):
            continue  # abstained, not applicable, failed, or no expert label yet
        by_case[case].append((j, e))
    return [
        Case(
            case,
            tuple(j for j, _ in rows),
            tuple(e for _, e in rows) if expert else None,
        )
        for case, rows in sorted(by_case.items())
    ]


def _scored(
    runs: Runs, score_runs: Sequence[str], criteria: Mapping[str, CriterionBaseline]
) -> dict[str, list[Case]]:
    """The judged labels of every transcript of the window's score runs, by case."""
    rows_by_crit: dict[str, list[tuple[str, str | int | None, None]]] = defaultdict(list)
    for run_id in score_runs:
        rows = runs.scores(run_id)
        case_of = run_cases(rows)
        for r in rows:
            labels = json.loads(r.labels)
            for crit in criteria:
                rows_by_crit[crit].append((case_of[r.position], labels.get(crit), None))
    return {
        crit: label_cases(rows_by_crit[crit], b.labels, expert=False)
        for crit, b in criteria.items()
    }


def _day(start: datetime) -> int:
    return (start.astimezone(UTC).date() - _EPOCH).days


def _anchor_runs(runs: Runs, version: str, window: str) -> dict[str, dict[str, Any]]:
    """The recorded anchors of this judge version for `window` windows, by window start (the
    latest record of a window wins)."""
    out: dict[str, dict[str, Any]] = {}
    for info in sorted(runs.recent(kind="anchors", limit=100_000), key=lambda i: i.started_at):
        if info.status != "finished" or info.judge_hash != version:
            continue
        detail = runs.get(info.id)
        report = None if detail is None else detail.get("report")
        if isinstance(report, dict) and report.get("window") == window:
            out[report["start"]] = {**report, "run_id": info.id}
    return out


@dataclass(frozen=True)
class WindowInput:
    """One window as the monitor reads it: the audited items (expert and judge label), the
    scored cases' judged labels and the anchor cases, per criterion; `kappas`: per criterion
    the window's agreement (`window_criterion`'s kappa, n and gate status), for the report."""

    window: AuditWindow
    scored: Mapping[str, Sequence[Case]]
    anchors: Mapping[str, Sequence[Case]]
    kappas: Mapping[str, Mapping[str, Any]]
    anchors_run: str | None = None


def monitor_report(engine: Engine, options: MonitorOptions) -> dict[str, Any]:
    """The monitor's report for one judge version (see the module docstring)."""
    check_alpha(options)
    v = monitor_version(engine, options.judge, options.window)
    runs = Runs(engine)
    anchors = _anchor_runs(runs, v.judge_hash, options.window)
    frozen = None
    warnings: list[str] = []
    if anchors:
        first = min(anchors.values(), key=lambda a: a["start"])
        frozen = first["gold"]
        for start, a in list(anchors.items()):
            if a["gold"] != frozen:
                warnings.append(
                    f"anchors of window {start[:10]} were drawn from another gold set than the "
                    "first anchored window's: left out (the anchor set is frozen)"
                )
                del anchors[start]
        anchor_baseline = first["baseline_anchor_kappa"]
    else:
        anchor_baseline = {}
    baseline = release_baseline(v.calibration, anchor_baseline)
    over = agreement_over_time(
        engine,
        window=options.window,
        judge=v.judge_hash,
        seed=options.seed,
        n_resamples=options.n_resamples,
    )
    kappas = {
        (w["judge_version"], w["start"]): {c["criterion"]: c for c in w["criteria"]}
        for w in over["windows"]
    }
    inputs = []
    for w in audit_windows(engine, window=options.window, judge=v.judge_hash):
        if w.judge_version != v.judge_hash:
            continue
        start = w.start.isoformat()
        anchored = anchors.get(start)
        anchor_cases = {}
        if anchored is not None:
            anchor_cases = {
                crit: [Case(x["case"], tuple(x["judge"]), tuple(x["expert"])) for x in cases]
                for crit, cases in anchored["cases"].items()
                if crit in baseline and baseline[crit].anchor_kappa is not None
            }
        inputs.append(
            WindowInput(
                w,
                scored=_scored(runs, w.score_runs, baseline),
                anchors=anchor_cases,
                kappas=kappas.get((w.judge_version, start), {}),
                anchors_run=None if anchored is None else anchored["run_id"],
            )
        )
    return replay(v, baseline, inputs, options, frozen=frozen, warnings=warnings)


def check_alpha(options: MonitorOptions) -> None:
    if not 0 < options.alpha < 1:
        raise ConfigError(f"monitor: --alpha {options.alpha} is not in (0, 1)")


def audit_cases(w: AuditWindow, baseline: Mapping[str, CriterionBaseline]) -> dict[str, list[Case]]:
    """The window's audited items as rule 1's cases, per criterion."""
    return {
        crit: label_cases(
            ((it.case_id, it.judge_label, it.expert_label) for it in items),
            baseline[crit].labels,
            expert=True,
        )
        for crit, items in w.criteria.items()
        if crit in baseline
    }


def replay(
    v: Version,
    baseline: Mapping[str, CriterionBaseline],
    inputs: Sequence[WindowInput],
    options: MonitorOptions,
    *,
    frozen: Mapping[str, Any] | None,
    warnings: list[str],
    verdicts: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The windows, oldest first, through the monitor's rules from the release baseline, and
    the report (`verdicts`: the recorded verdicts file the judge's labels came from)."""
    settings = MonitorSettings(alpha=options.alpha)
    monitor = Monitor(dict(baseline), settings)
    windows_out = []
    last = None
    for x in inputs:
        w = x.window
        audit = audit_cases(w, baseline)
        status = monitor.update(
            Window(
                name=w.start.isoformat()[:10],
                audit={k: c for k, c in audit.items() if c},
                scored={k: c for k, c in x.scored.items() if c and k in baseline},
                anchors={k: c for k, c in x.anchors.items() if c and k in baseline},
            )
        )
        last = status
        windows_out.append(
            _window(w, status.to_dict(), x.kappas, x.anchors, x.anchors_run, baseline)
        )
    if last is None:
        raise ConfigError(f"monitor: judge version {v.judge_hash[:19]} has no audit window")
    alarms = []
    for name, c in last.criteria.items():
        for verdict in c.verdicts:
            if verdict == "ok":
                continue
            rule = getattr(c, RULE_OF[verdict])
            alarms.append(
                {
                    "criterion": name,
                    "rule": RULE_OF[verdict],
                    "verdict": verdict,
                    "fired_at": rule.fired_at,
                    "e_value": rule.e_value,
                }
            )
    return checked(
        "monitor",
        {
            "schema_version": 1,
            "judge_version": v.judge_hash,
            "judge_model": (v.calibration.get("judge") or {}).get("model"),
            "rubric_hash": v.rubric_hash,
            "calibration_run": v.calibration_run,
            "window": options.window,
            "settings": {
                "alpha": settings.alpha,
                "threshold": settings.threshold,
                "gate_kappa": settings.gate_kappa,
                "anchor_tolerance": settings.anchor_tolerance,
                "memory": settings.memory,
                "seed": options.seed,
                "n_resamples": options.n_resamples,
            },
            "baseline": {
                name: {
                    "labels": list(b.labels),
                    "judged_shares": dict(zip(b.labels, b.judged_shares, strict=True)),
                    "ordinal": b.ordinal,
                    "release_kappa": _release_kappa(v.calibration, name),
                    "anchor_kappa": b.anchor_kappa,
                }
                for name, b in baseline.items()
            },
            "anchors_gold": None if frozen is None else dict(frozen),
            "verdicts": None if verdicts is None else dict(verdicts),
            "windows": windows_out,
            "alarm": bool(alarms),
            "alarms": alarms,
            "status": {name: list(c.verdicts) for name, c in last.criteria.items()},
            "reasons": {name: list(c.reasons) for name, c in last.criteria.items()},
            "warnings": warnings,
        },
    )


def _release_kappa(calibration: Mapping[str, Any], criterion: str) -> float | None:
    for c in calibration["criteria"]:
        if c["criterion"] == criterion:
            est = (c.get("judge_vs_consensus") or {}).get("estimate")
            return None if est is None else float(est)
    return None


def _window(
    w: AuditWindow,
    status: Mapping[str, Any],
    per: Mapping[str, Mapping[str, Any]],
    anchor_cases: Mapping[str, Sequence[Case]],
    anchors_run: str | None,
    baseline: Mapping[str, CriterionBaseline],
) -> dict[str, Any]:
    start = w.start.isoformat()
    criteria = []
    for name, s in status["criteria"].items():
        k = per.get(name) or {}
        kappa = k.get("kappa") or {}
        ci = kappa.get("ci")
        cases = anchor_cases.get(name) or []
        criteria.append(
            {
                "criterion": name,
                "kappa": kappa.get("estimate"),
                "kappa_ci": None if not ci else [float(ci[0]), float(ci[1])],
                "n_items": k.get("n_items", 0),
                "n_cases": k.get("n_cases", 0),
                "gate_status": k.get("gate_status"),
                "anchor_kappa": anchor_kappa(cases, baseline[name]) if cases else None,
                "anchor_cases": len(cases),
                **{
                    key: s[key]
                    for key in (
                        "alarm",
                        "verdicts",
                        "reasons",
                        "agreement",
                        "shift",
                        "anchors",
                        "judged_shares",
                    )
                },
            }
        )
    return {
        "name": start[:10],
        "start": start,
        "end": w.end.isoformat(),
        "score_runs": list(w.score_runs),
        "audits": list(w.audits),
        "anchors_run": anchors_run,
        "alarm": bool(status["alarm"]),
        "criteria": criteria,
    }


# ---- anchors --------------------------------------------------------------------------------


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
) -> list[str]:
    """Re-score anchors for each audit window of `config`'s judge version not yet anchored (see
    the module docstring); returns the anchors runs recorded."""
    from ..contracts import content_hash
    from ..gold import load_gold
    from ..judge.runner import judge_transcripts
    from ..store import Store

    if per_window < 2:
        raise ConfigError(f"monitor: --per-window {per_window} must be at least 2")
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

    at_release = cases_of(case_ids, {i: release[(hashes[i], 0)] for i in g.items})
    baseline_kappa = {
        crit: anchor_kappa(cases, baseline[crit]) if cases else None
        for crit, cases in at_release.items()
    }
    gold_ref = {"root": str(gold.resolve()), "split": split, "hashes": g.hashes}
    runs = Runs(engine)
    done = _anchor_runs(runs, v.judge_hash, window)
    recorded = []
    for w in audit_windows(engine, window=window, judge=v.judge_hash):
        start = w.start.isoformat()
        if w.judge_version != v.judge_hash or start in done:
            continue
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
            result = judge_transcripts(
                [g.transcripts[i] for i in wanted],
                rubric=rubric,
                config=config,
                store=store,
                concurrency=concurrency,
                policy=policy,
                hashes=[hashes[i] for i in wanted],
                first_sample=sample,
            )
        except BaseException:
            runs.finish(run_id, {"error": "the anchors' judging stopped"}, status="failed")
            raise
        answers = dict(zip(wanted, result.judgments, strict=True))
        cases = cases_of(drawn, answers)
        runs.finish(
            run_id,
            {
                "schema_version": 1,
                "judge_version": v.judge_hash,
                "window": window,
                "start": start,
                "end": w.end.isoformat(),
                "sample_index": sample,
                "seed": seed,
                "per_window": per_window,
                "drawn": drawn,
                "model_calls": result.model_calls,
                "gold": gold_ref,
                "baseline_anchor_kappa": baseline_kappa,
                "cases": {
                    crit: [
                        {"case": c.case, "judge": list(c.judge), "expert": list(c.expert or ())}
                        for c in cs
                    ]
                    for crit, cs in cases.items()
                },
            },
        )
        recorded.append(run_id)
    return recorded
