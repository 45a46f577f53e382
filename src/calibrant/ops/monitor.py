"""After release: the drift monitor over the store (`calibrant monitor`, GET /api/monitor).

`monitor_report` is the one monitor operation. For one judge version it

* takes the **baseline** from the judge's release calibration: the latest finished calibrate run
  of that version on the rubric its audited score runs judged on (the run `score --calibration
  latest` would pick), per criterion its scale, its confusion table (rule 1's prevalence
  adjustment), the judge's label shares on the gold items (shown only: rule 2 compares with the
  first `reference_windows` windows of traffic) and its kappa;
* replays every audit window of that version (`audit_windows`), oldest first, through
  :class:`calibrant.monitor.Monitor`: the window's audited cases (expert and judge label per
  item, rule 1), the judged labels of every transcript of the window's score runs, by case
  (rule 2), and the window's anchors when they were re-scored (rule 3).

The state is recomputed from the store at every look rather than persisted: the store holds
everything the e-processes read, a replay gives the same e-values each time (the processes are
deterministic in their input), and a label added or adjudicated late is counted, in the window
it belongs to, at the next look. Looking again is what an e-process is built for.

The operation's parts: `monitor_baseline` (the version and its baseline), `monitor_replay` (the
rules over the windows and the report), `monitor_anchors` (recording the anchors); their public
names are importable from here too.

**Anchors** (`record_anchors`, `calibrant monitor --anchors GOLD`: `monitor_anchors`) re-judge a
draw of the calibration's gold cases each window and record them as an ``anchors`` run, which
rule 3 reads here."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence

from sqlalchemy import Engine

from ..contracts.reports.monitor import MonitorReport
from ..monitor import Case, CriterionBaseline
from ..store.runs import Runs
from .audit import agreement_over_time, audit_windows, run_cases
from .monitor_anchors import ANCHOR_SAMPLE_BASE, anchor_runs, record_anchors
from .monitor_baseline import (
    MonitorOptions,
    Version,
    check_alpha,
    label_cases,
    monitor_version,
    release_baseline,
)
from .monitor_replay import WindowInput, audit_cases, replay

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


def monitor_report(engine: Engine, options: MonitorOptions) -> MonitorReport:
    """The monitor's report for one judge version (see the module docstring)."""
    check_alpha(options)
    v = monitor_version(engine, options.judge, options.window)
    runs = Runs(engine)
    anchors, warnings = anchor_runs(runs, v.judge_hash, options.window)
    frozen = None
    if anchors:
        first = min(anchors.values(), key=lambda a: a.record.start).record
        frozen = first.gold
        for start, a in list(anchors.items()):
            if a.record.gold != frozen:
                warnings.append(
                    f"anchors of window {start[:10]} were drawn from another gold set than the "
                    "first anchored window's: left out (the anchor set is frozen)"
                )
                del anchors[start]
        anchor_baseline = first.baseline_anchor_kappa
        # anchors recorded before issue 31 hold one release scoring and no set size
        anchor_set = {
            crit: (n, first.release_scorings or 1) for crit, n in (first.anchor_cases or {}).items()
        }
        reference = {
            crit: ref
            for crit, ref in (first.baseline_anchor_reference or {}).items()
            if ref is not None
        }
    else:
        anchor_baseline, anchor_set, reference = {}, {}, {}
    baseline = release_baseline(v.calibration, anchor_baseline, anchor_set, reference)
    over = agreement_over_time(
        engine,
        window=options.window,
        judge=v.judge_hash,
        seed=options.seed,
        n_resamples=options.n_resamples,
    )
    kappas = {
        (w.judge_version, w.start): {c.criterion: c for c in w.criteria} for w in over.windows
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
                crit: [Case(x.case, tuple(x.judge), tuple(x.expert)) for x in cases]
                for crit, cases in anchored.record.cases.items()
                if crit in baseline and baseline[crit].anchor_kappa is not None
            }
        inputs.append(
            WindowInput(
                w,
                scored=_scored(runs, w.score_runs, baseline),
                anchors=anchor_cases,
                kappas=kappas.get((w.judge_version, start), {}),
                anchors_run=None if anchored is None else anchored.run_id,
            )
        )
    return replay(v, baseline, inputs, options, frozen=frozen, warnings=warnings)


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
