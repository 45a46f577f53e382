"""The drift monitor's report (`calibrant monitor`, GET /api/monitor): one judge version's audit
windows replayed through the anytime-valid rules of `calibrant.monitor`, from its release
calibration."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import GateStatus, Report, Strict, version_field

MONITOR_SCHEMA_VERSION = 1

Verdict = Literal["ok", "below_gate", "judge_changed", "product_changed", "shift_unexplained"]


class MonitorSettingsOut(Strict):
    alpha: float = Field(description="Each rule's false-alarm bound over the monitor's life.")
    threshold: float = Field(description="The e-value that raises an alarm (1 / alpha).")
    gate_kappa: float = Field(description="Rule 1's bar: the gate's min_lower.")
    anchor_tolerance: float = Field(description="Rule 3: how far the anchors' kappa may fall.")
    memory: int = Field(description="Windows that set the next bet.")
    reference_windows: int | None = Field(
        default=None,
        description="Rule 2's reference: the first windows of traffic (null in reports written "
        "before rule 2 had one: it compared with the gold shares).",
    )
    min_anchor_cases: int | None = Field(
        default=None, description="Rule 3 runs only on an anchor set of at least this many cases."
    )
    shift_threshold: float | None = Field(
        default=None,
        description="Rule 2's alarm e-value, 1 / (alpha - alpha/2): half of alpha is spent on "
        "its reference windows' own sampling error.",
    )
    seed: int
    n_resamples: int


class BaselineOut(Strict):
    labels: list[str]
    judged_shares: dict[str, float] = Field(
        description="The judge's label shares on the calibration's gold items (shown; rule 2 "
        "compares with its reference windows of traffic)."
    )
    ordinal: bool
    release_kappa: float | None = Field(description="The calibration's kappa (judge vs consensus).")
    anchor_kappa: float | None = Field(
        description="The released judge's case-weighted kappa on the anchor set, pooled over its "
        "release scorings; null: no anchors."
    )
    anchor_cases: int | None = Field(
        default=None, description="Cases in the anchor set; null: not recorded (older anchors)."
    )
    anchor_scorings: int | None = Field(
        default=None, description="Times the released judge scored the anchor set at release."
    )


class RuleOut(Strict):
    e_value: float = Field(
        description="The rule's e-value, capped at about 1e299 (a lasting change drives it past "
        "what a float holds); log_e carries the exact value."
    )
    log_e: float | None = Field(
        default=None,
        description="The e-value's natural log, never capped (null in reports written before "
        "it was recorded).",
    )
    threshold: float
    alarm: bool = Field(description="Reached the threshold in this window or an earlier one.")
    fired_at: str | None = Field(description="The window it first reached it in.")
    windows: int
    cases: int


class ShiftReferenceOut(Strict):
    windows: int = Field(description="Reference windows taken.")
    of: int = Field(description="Reference windows wanted.")
    cases: int = Field(description="Scored cases in them.")
    shares: dict[str, float] | None = Field(description="Their judged label shares, by case.")


class WindowCriterionOut(Strict):
    criterion: str
    kappa: float | None = Field(description="The window's kappa (agreement over time).")
    kappa_ci: list[float] | None = Field(description="Its case-clustered 95% interval.")
    n_items: int
    n_cases: int
    gate_status: GateStatus | None
    anchor_kappa: float | None = Field(description="Case-weighted kappa on the window's anchors.")
    anchor_cases: int
    alarm: bool
    verdicts: list[Verdict]
    reasons: list[str]
    agreement: RuleOut = Field(description="Rule 1: agreement below the gate.")
    shift: RuleOut = Field(description="Rule 2: judged label shares moved.")
    anchors: RuleOut | None = Field(description="Rule 3: the anchors moved (null: no anchors).")
    judged_shares: dict[str, float] | None = Field(
        description="The window's judged label shares, case-weighted."
    )
    agreement_bar: float | None = Field(
        default=None,
        description="Rule 1's bar in this window: the gate's, lowered by the drop in the released "
        "judge's expected kappa that the audits' expert label shares (prevalence) explain.",
    )
    anchors_held: RuleOut | None = Field(
        default=None,
        description="The anchors ruling out a judge change of the tolerance's size, counted "
        "from where the shift's evidence is under way; a shift is product_changed only once "
        "this has fired, shift_unexplained before.",
    )
    anchors_shift: RuleOut | None = Field(
        default=None,
        description="Rule 3's second test: the judge's label shares on the anchors against the "
        "release scorings' (two-sample, as rule 2); it also says judge_changed.",
    )
    shift_reference: ShiftReferenceOut | None = Field(
        default=None, description="Rule 2's reference windows so far."
    )


class MonitorWindow(Strict):
    name: str = Field(description="The window's first day.")
    start: str
    end: str
    score_runs: list[str]
    audits: list[str]
    anchors_run: str | None = Field(description="The anchors run re-scored for this window.")
    alarm: bool
    criteria: list[WindowCriterionOut]


class Alarm(Strict):
    criterion: str
    rule: Literal["agreement", "shift", "anchors"]
    verdict: Verdict
    fired_at: str | None
    e_value: float


class AnchorsGold(Strict):
    """The frozen anchor set: the gold folder, its split and its hashes."""

    root: str
    split: str | None
    hashes: dict[str, str]


class MonitoredVerdicts(Strict):
    """The recorded verdicts file a judge that runs elsewhere was monitored from."""

    file: str
    format: str
    sha256: str
    rows: int
    judge_version: str
    queues: list[str]
    audited_items: int
    anchor_rows: int


class MonitorReport(Report):
    """One judge version after release: per window and criterion kappa, e-values and alarms."""

    KIND = "monitor"
    VERSION = MONITOR_SCHEMA_VERSION

    schema_version: int = version_field(MONITOR_SCHEMA_VERSION)
    judge_version: str
    judge_model: str | None
    rubric_hash: str
    calibration_run: str = Field(description="The release calibration (the baseline).")
    window: str = Field(description="day, week (from Monday) or month, UTC.")
    settings: MonitorSettingsOut
    baseline: dict[str, BaselineOut]
    anchors_gold: AnchorsGold | None = Field(
        description="The frozen anchor set (gold folder, split, hashes); null: no anchors."
    )
    verdicts: MonitoredVerdicts | None = Field(
        default=None,
        description="A judge that runs elsewhere (`monitor --verdicts`): the recorded verdicts "
        "file its labels came from (file, format, sha256, rows, judge version, queues, the "
        "release calibration's verdicts file); null: the store's judgments.",
    )
    windows: list[MonitorWindow]
    alarm: bool
    alarms: list[Alarm]
    status: dict[str, list[Verdict]] = Field(description="Per criterion, after the last window.")
    reasons: dict[str, list[str]]
    warnings: list[str]
