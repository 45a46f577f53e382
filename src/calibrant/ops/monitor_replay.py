"""The monitor's replay: the windows, oldest first, through :class:`calibrant.monitor.Monitor`
from the release baseline, and the report (a `MonitorReport`): per window the agreement, the
anchors' kappa and each rule's state, then the alarms."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..contracts.reports.audit import WindowCriterion
from ..contracts.reports.monitor import (
    MONITOR_SCHEMA_VERSION,
    Alarm,
    AnchorsGold,
    BaselineOut,
    MonitoredVerdicts,
    MonitorReport,
    MonitorSettingsOut,
    MonitorWindow,
    WindowCriterionOut,
)
from ..contracts.reports.monitor_parts import MonitorStatusOut, WindowAgreement
from ..errors import ConfigError
from ..monitor import Case, CriterionBaseline, Monitor, MonitorSettings, Window, anchor_kappa
from ..scoring.over_time import AuditWindow
from .monitor_baseline import MonitorOptions, Version, label_cases

__all__ = ["RULE_OF", "WindowInput", "audit_cases", "replay"]

RULE_OF: dict[str, Literal["agreement", "shift", "anchors"]] = {
    "below_gate": "agreement",
    "judge_changed": "anchors",
    "product_changed": "shift",
    "shift_unexplained": "shift",
}


@dataclass(frozen=True)
class WindowInput:
    """One window as the monitor reads it: the audited items (expert and judge label), the
    scored cases' judged labels and the anchor cases, per criterion; `kappas`: per criterion
    the window's agreement (`window_criterion`'s kappa, n and gate status), for the report."""

    window: AuditWindow
    scored: Mapping[str, Sequence[Case]]
    anchors: Mapping[str, Sequence[Case]]
    kappas: Mapping[str, WindowAgreement | WindowCriterion]
    anchors_run: str | None = None


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
    frozen: AnchorsGold | None,
    warnings: list[str],
    verdicts: MonitoredVerdicts | None = None,
) -> MonitorReport:
    """The windows, oldest first, through the monitor's rules from the release baseline, and
    the report (`verdicts`: the recorded verdicts file the judge's labels came from)."""
    settings = MonitorSettings(
        alpha=options.alpha,
        reference_windows=options.reference_windows,
        min_anchor_cases=options.min_anchor_cases,
    )
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
        windows_out.append(_window(w, status.typed(), x.kappas, x.anchors, x.anchors_run, baseline))
    if last is None:
        raise ConfigError(f"monitor: judge version {v.judge_hash[:19]} has no audit window")
    alarms = []
    for name, c in last.criteria.items():
        for verdict in c.verdicts:
            if verdict == "ok":
                continue
            rule = getattr(c, RULE_OF[verdict])
            if verdict == "judge_changed" and not rule.alarm and c.anchors_shift is not None:
                rule = c.anchors_shift  # the judge's label shares on the anchors moved
            alarms.append(
                Alarm(
                    criterion=name,
                    rule=RULE_OF[verdict],
                    verdict=verdict,
                    fired_at=rule.fired_at,
                    e_value=rule.e_value,
                )
            )
    return MonitorReport(
        schema_version=MONITOR_SCHEMA_VERSION,
        judge_version=v.judge_hash,
        judge_model=(v.calibration.get("judge") or {}).get("model"),
        rubric_hash=v.rubric_hash,
        calibration_run=v.calibration_run,
        window=options.window,
        settings=MonitorSettingsOut(
            alpha=settings.alpha,
            threshold=settings.threshold,
            gate_kappa=settings.gate_kappa,
            anchor_tolerance=settings.anchor_tolerance,
            memory=settings.memory,
            reference_windows=settings.reference_windows,
            min_anchor_cases=settings.min_anchor_cases,
            shift_threshold=settings.shift_threshold,
            seed=options.seed,
            n_resamples=options.n_resamples,
        ),
        baseline={
            name: BaselineOut(
                labels=list(b.labels),
                judged_shares=dict(zip(b.labels, b.judged_shares, strict=True)),
                ordinal=b.ordinal,
                release_kappa=_release_kappa(v.calibration, name),
                anchor_kappa=b.anchor_kappa,
                anchor_cases=b.anchor_cases,
                anchor_scorings=b.anchor_scorings,
            )
            for name, b in baseline.items()
        },
        anchors_gold=frozen,
        verdicts=verdicts,
        windows=windows_out,
        alarm=bool(alarms),
        alarms=alarms,
        status={name: list(c.verdicts) for name, c in last.criteria.items()},
        reasons={name: list(c.reasons) for name, c in last.criteria.items()},
        warnings=warnings,
    )


def _release_kappa(calibration: Mapping[str, Any], criterion: str) -> float | None:
    for c in calibration["criteria"]:
        if c["criterion"] == criterion:
            est = (c.get("judge_vs_consensus") or {}).get("estimate")
            return None if est is None else float(est)
    return None


def _window(
    w: AuditWindow,
    status: MonitorStatusOut,
    per: Mapping[str, WindowAgreement | WindowCriterion],
    anchor_cases: Mapping[str, Sequence[Case]],
    anchors_run: str | None,
    baseline: Mapping[str, CriterionBaseline],
) -> MonitorWindow:
    start = w.start.isoformat()
    criteria = []
    for name, s in status.criteria.items():
        k = per.get(name)
        kappa = None if k is None else k.kappa
        ci = None if kappa is None else kappa.ci
        cases = anchor_cases.get(name) or []
        criteria.append(
            WindowCriterionOut(
                criterion=name,
                kappa=None if kappa is None else kappa.estimate,
                kappa_ci=None if not ci else [float(ci[0]), float(ci[1])],
                n_items=0 if k is None else k.n_items,
                n_cases=0 if k is None else k.n_cases,
                gate_status=None if k is None else k.gate.status,
                anchor_kappa=anchor_kappa(cases, baseline[name]) if cases else None,
                anchor_cases=len(cases),
                alarm=s.alarm,
                verdicts=s.verdicts,
                reasons=s.reasons,
                agreement=s.agreement,
                shift=s.shift,
                anchors=s.anchors,
                judged_shares=s.judged_shares,
                agreement_bar=s.agreement_bar,
                anchors_held=s.anchors_held,
                anchors_shift=s.anchors_shift,
                shift_reference=s.shift_reference,
            )
        )
    return MonitorWindow(
        name=start[:10],
        start=start,
        end=w.end.isoformat(),
        score_runs=list(w.score_runs),
        audits=list(w.audits),
        anchors_run=anchors_run,
        alarm=status.alarm,
        criteria=criteria,
    )
