"""What goes into the drift monitor and what comes out of it: a window's cases, the release
baseline of a criterion, the settings (each rule's alpha and threshold), and the status of each
rule and criterion after a window. :mod:`calibrant.monitor.monitor` holds the rules that read
and write them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from calibrant.agreement.gate import GateSettings
from calibrant.contracts.reports.monitor import RuleOut, ShiftReferenceOut
from calibrant.contracts.reports.monitor_parts import CriterionStatusOut, MonitorStatusOut

from .eprocess import agreement_weights
from .state_data import BaselineState

__all__ = [
    "Case",
    "CriterionBaseline",
    "CriterionStatus",
    "MonitorSettings",
    "MonitorStatus",
    "Rule",
    "RuleStatus",
    "Verdict",
    "Window",
]

_GATE = GateSettings()

Verdict = Literal["ok", "below_gate", "judge_changed", "product_changed", "shift_unexplained"]
Rule = Literal["agreement", "shift", "anchors"]


@dataclass(frozen=True)
class Case:
    """One case of a window: the judge's label per item and, for audited and anchor cases, the
    experts' (consensus) label per item, in the same order. Labels are on the criterion's
    scale: items the judge abstained on or that either side found not applicable are left out,
    as the gate leaves them out of kappa."""

    case: str
    judge: tuple[str, ...]
    expert: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Window:
    """One time window (e.g. a week): per criterion, the audited cases, the scored cases'
    judged labels, and the anchor cases re-scored by the current judge. A criterion missing from
    a part leaves that rule where it was."""

    name: str
    audit: Mapping[str, Sequence[Case]] = field(default_factory=dict)
    scored: Mapping[str, Sequence[Case]] = field(default_factory=dict)
    anchors: Mapping[str, Sequence[Case]] = field(default_factory=dict)


@dataclass(frozen=True)
class CriterionBaseline:
    """What the release measured for one criterion.

    ``labels``: the scale (ordered low to high when ``ordinal``); ``judged_shares``: the
    release run's judged label shares, one per label, each case counted once; ``anchor_kappa``:
    the released judge's case-weighted kappa on the anchor cases
    (:func:`~calibrant.monitor.eprocess.case_weighted_kappa`), ``None`` without anchors."""

    labels: tuple[str, ...]
    judged_shares: tuple[float, ...]
    ordinal: bool = False
    anchor_kappa: float | None = None
    confusion: tuple[tuple[float, ...], ...] | None = None
    anchor_cases: int | None = None
    anchor_scorings: int = 1
    anchor_reference: tuple[float, ...] | None = None  # release anchors' share sums + cases

    def state(self) -> BaselineState:
        return BaselineState(
            labels=list(self.labels),
            judged_shares=list(self.judged_shares),
            ordinal=self.ordinal,
            anchor_kappa=self.anchor_kappa,
            confusion=None if self.confusion is None else [list(r) for r in self.confusion],
            anchor_cases=self.anchor_cases,
            anchor_scorings=self.anchor_scorings,
            anchor_reference=None if self.anchor_reference is None else list(self.anchor_reference),
        )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CriterionBaseline:
        """The baseline of `state().json_data()`."""
        anchor = d.get("anchor_kappa")
        conf = d.get("confusion")
        size = d.get("anchor_cases")
        return cls(
            labels=tuple(str(x) for x in d["labels"]),
            judged_shares=tuple(float(x) for x in d["judged_shares"]),
            ordinal=bool(d.get("ordinal", False)),
            anchor_kappa=None if anchor is None else float(anchor),
            confusion=None if conf is None else tuple(tuple(float(x) for x in r) for r in conf),
            anchor_cases=None if size is None else int(size),
            anchor_scorings=int(d.get("anchor_scorings", 1)),
            anchor_reference=None
            if d.get("anchor_reference") is None
            else tuple(float(x) for x in d["anchor_reference"]),
        )

    def expected_kappa(self, prevalence: Sequence[float]) -> float | None:
        """The released judge's kappa at the experts' label shares ``prevalence``: its release
        answer rates given each expert label (the confusion's rows) at those shares; ``None``
        without a confusion table or where chance agreement is 1."""
        if self.confusion is None:
            return None
        k = len(self.labels)
        w = agreement_weights(k, ordinal=self.ordinal)
        rows = []
        for r in self.confusion:
            n = sum(r)
            rows.append([1 / k] * k if n <= 0 else [x / n for x in r])
        joint = [[prevalence[e] * rows[e][j] for j in range(k)] for e in range(k)]
        p_o = sum(joint[e][j] * w[j][e] for e in range(k) for j in range(k))
        a = [sum(joint[e][j] for e in range(k)) for j in range(k)]
        p_e = sum(a[j] * w[j][e] * prevalence[e] for e in range(k) for j in range(k))
        return None if p_e >= 1 - 1e-12 else (p_o - p_e) / (1 - p_e)

    def release_prevalence(self) -> list[float] | None:
        """The experts' label shares on the release gold (the confusion's row sums)."""
        if self.confusion is None:
            return None
        sums = [sum(r) for r in self.confusion]
        total = sum(sums)
        return None if total <= 0 else [x / total for x in sums]


@dataclass(frozen=True)
class MonitorSettings:
    """``alpha``: each rule's false-alarm bound over the monitor's whole life (one criterion);
    ``gate_kappa``: the bar of rule 1 (the gate's ``min_lower``); ``anchor_tolerance``: how far
    the anchors' kappa may fall below its release value before rule 3 calls the judge changed
    (the gate's margin); ``memory``: windows that set the next bet."""

    alpha: float = 0.05
    gate_kappa: float = _GATE.min_lower
    anchor_tolerance: float = _GATE.margin
    memory: int = 4
    reference_windows: int = 4
    min_anchor_cases: int = 10

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must lie in (0, 1), got {self.alpha}")
        if self.memory < 1:
            raise ValueError(f"memory must be at least 1 window, got {self.memory}")
        if self.reference_windows < 1:
            raise ValueError(
                f"reference_windows must be at least 1 window, got {self.reference_windows}"
            )
        if self.min_anchor_cases < 2:
            raise ValueError(f"min_anchor_cases must be at least 2, got {self.min_anchor_cases}")

    @property
    def shift_delta(self) -> float:
        """The part of alpha the shift rule spends on its reference windows' sampling error."""
        return self.alpha / 2

    @property
    def shift_threshold(self) -> float:
        return 1 / (self.alpha - self.shift_delta)

    @property
    def anchor_threshold(self) -> float:
        """Rule 3's kappa test: half of the rule's alpha (its label-share test has the other)."""
        return 2 / self.alpha

    @property
    def anchor_shift_delta(self) -> float:
        return self.alpha / 4

    @property
    def anchor_shift_threshold(self) -> float:
        """Rule 3's label-share test: alpha/4 on the release scorings' error, alpha/4 here."""
        return 1 / (self.alpha / 2 - self.anchor_shift_delta)

    @property
    def threshold(self) -> float:
        return 1 / self.alpha


@dataclass(frozen=True)
class RuleStatus:
    e_value: float  # capped at exp(LOG_E_CAP) ≈ 1e299: finite, JSON-safe
    log_e: float  # its natural log, never capped
    threshold: float
    alarm: bool  # reached the threshold in this window or an earlier one
    fired_at: str | None  # the window it first reached it in
    windows: int  # windows that entered the e-value
    cases: int

    def typed(self) -> RuleOut:
        """This rule's status as the monitor report's part."""
        return RuleOut(
            e_value=self.e_value,
            log_e=self.log_e,
            threshold=self.threshold,
            alarm=self.alarm,
            fired_at=self.fired_at,
            windows=self.windows,
            cases=self.cases,
        )


@dataclass(frozen=True)
class CriterionStatus:
    criterion: str
    verdicts: tuple[Verdict, ...]  # ("ok",) when no rule has fired
    reasons: tuple[str, ...]
    agreement: RuleStatus
    shift: RuleStatus
    anchors: RuleStatus | None
    window_kappa_statistic: float | None  # mean T of the audit's pairs this window, ∝ κ - bar
    judged_shares: dict[str, float] | None  # this window's scored cases, case-weighted
    baseline_shares: dict[str, float]
    agreement_bar: float | None = None  # rule 1's bar this window (lowered for prevalence)
    anchors_held: RuleStatus | None = None  # the anchors ruling out a judge change
    anchors_shift: RuleStatus | None = None  # the judge's label shares on the anchors moved
    shift_reference: ShiftReferenceOut | None = None  # rule 2's reference windows, cases, shares

    @property
    def alarm(self) -> bool:
        return self.verdicts != ("ok",)

    def typed(self) -> CriterionStatusOut:
        """This criterion's status as data."""
        return CriterionStatusOut(
            criterion=self.criterion,
            alarm=self.alarm,
            verdicts=list(self.verdicts),
            reasons=list(self.reasons),
            agreement=self.agreement.typed(),
            shift=self.shift.typed(),
            anchors=None if self.anchors is None else self.anchors.typed(),
            window_kappa_statistic=self.window_kappa_statistic,
            judged_shares=self.judged_shares,
            baseline_shares=self.baseline_shares,
            agreement_bar=self.agreement_bar,
            anchors_held=None if self.anchors_held is None else self.anchors_held.typed(),
            anchors_shift=None if self.anchors_shift is None else self.anchors_shift.typed(),
            shift_reference=self.shift_reference,
        )


@dataclass(frozen=True)
class MonitorStatus:
    window: str
    index: int  # 1 for the first window
    criteria: dict[str, CriterionStatus]

    @property
    def alarm(self) -> bool:
        return any(c.alarm for c in self.criteria.values())

    def typed(self) -> MonitorStatusOut:
        """Every criterion's status after this window, as data."""
        return MonitorStatusOut(
            window=self.window,
            index=self.index,
            alarm=self.alarm,
            criteria={k: c.typed() for k, c in self.criteria.items()},
        )
