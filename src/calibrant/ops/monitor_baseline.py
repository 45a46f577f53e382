"""The monitor's start: the judge version watched, its release calibration, and the release
baseline the monitor's rules compare each window with (per criterion its scale, the judge's
label shares on the gold items, half a count added per label so that no share is 0, shown only,
the confusion table and its kappa); `label_cases` turns (case, judge label, expert label)
rows into the rules' cases."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from ..calibration.explain import ABSTAIN
from ..contracts import NOT_APPLICABLE
from ..errors import ConfigError
from ..monitor import Case, CriterionBaseline
from ..scoring.over_time import WINDOWS
from ..store.runs import Runs
from ..store.versions import latest_calibrate_run
from .audit_agreement import _audits

__all__ = [
    "MonitorOptions",
    "Version",
    "check_alpha",
    "label_cases",
    "monitor_version",
    "release_baseline",
]

_SKIP = {NOT_APPLICABLE, *ABSTAIN}


@dataclass(frozen=True)
class MonitorOptions:
    """`judge`: a judge version (its hash or a prefix; None: the one version audited);
    `window`: day, week or month; `alpha`: each rule's false-alarm bound over the monitor's
    life; `seed`, `n_resamples`: the per-window kappa intervals (agreement over time);
    `reference_windows`: the first windows of traffic, rule 2's reference; `min_anchor_cases`:
    the smallest anchor set (in cases) rule 3 runs on."""

    judge: str | None = None
    window: str = "week"
    alpha: float = 0.05
    seed: int = 0
    n_resamples: int = 2000
    reference_windows: int = 4
    min_anchor_cases: int = 10


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


def check_alpha(options: MonitorOptions) -> None:
    if not 0 < options.alpha < 1:
        raise ConfigError(f"monitor: --alpha {options.alpha} is not in (0, 1)")
    if options.reference_windows < 1:
        raise ConfigError(
            f"monitor: --reference-windows {options.reference_windows} must be at least 1"
        )
    if options.min_anchor_cases < 2:
        raise ConfigError(
            f"monitor: --min-anchor-cases {options.min_anchor_cases} must be at least 2"
        )


def _labels(c: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(x) for x in c["scale"] if str(x) not in _SKIP)


def release_baseline(
    calibration: Mapping[str, Any],
    anchor: Mapping[str, float | None],
    anchor_set: Mapping[str, tuple[int, int]] | None = None,
    anchor_reference: Mapping[str, Sequence[float]] | None = None,
) -> dict[str, CriterionBaseline]:
    """Per criterion: the scale, the judge's label shares on the gold items (half a count added
    per label; shown, no rule's null), the calibration's confusion table (consensus × judge,
    rule 1's prevalence adjustment) and the anchors' release kappa; `anchor_set`: per criterion
    (cases in the anchor set, release scorings), unknown for anchors recorded before them."""
    out = {}
    for c in calibration["criteria"]:
        labels = _labels(c)
        if len(labels) < 2:
            continue
        conf = c["confusion"]
        cols = [str(x) for x in conf["columns_judge"]]
        rows = [str(x) for x in conf.get("rows_consensus") or ()]
        counts = [0.0] * len(labels)
        table = [[0.0] * len(labels) for _ in labels]
        for n_row, row in enumerate(conf["counts"]):
            for col_label, n in zip(cols, row, strict=True):
                if col_label in labels:
                    counts[labels.index(col_label)] += n
                    if n_row < len(rows) and rows[n_row] in labels:
                        table[labels.index(rows[n_row])][labels.index(col_label)] += n
        total = sum(counts) + 0.5 * len(labels)
        size, scorings = (anchor_set or {}).get(c["criterion"], (None, 1))
        out[c["criterion"]] = CriterionBaseline(
            labels=labels,
            judged_shares=tuple((n + 0.5) / total for n in counts),
            ordinal=c["level"] == "ordinal",
            anchor_kappa=anchor.get(c["criterion"]),
            confusion=tuple(tuple(r) for r in table) if rows and sum(map(sum, table)) else None,
            anchor_cases=size,
            anchor_scorings=scorings,
            anchor_reference=None
            if (ref := (anchor_reference or {}).get(c["criterion"])) is None
            else tuple(float(x) for x in ref),
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
