"""A criterion's status after a window: each rule's e-value and alarm (an alarm stays raised,
naming the window it fired in), the verdicts they add up to (below the gate, judge changed,
product changed, shift unexplained) and the reasons, in words."""

from __future__ import annotations

import math

from calibrant.contracts.reports.monitor import ShiftReferenceOut

from .eprocess import KappaEProcess, ShiftEProcess
from .model import CriterionStatus, MonitorSettings, RuleStatus, Verdict
from .state import _Criterion


def _rule(
    settings: MonitorSettings,
    c: _Criterion,
    rule: str,
    e: KappaEProcess | ShiftEProcess,
    now: str,
    threshold: float | None = None,
) -> RuleStatus:
    threshold = settings.threshold if threshold is None else threshold
    if rule not in c.fired and e.log_e >= math.log(threshold) - 1e-12:
        c.fired[rule] = now
    return RuleStatus(
        e_value=e.e_value,
        log_e=e.log_e,
        threshold=threshold,
        alarm=rule in c.fired,
        fired_at=c.fired.get(rule),
        windows=e.windows,
        cases=e.cases,
    )


def _status(
    s: MonitorSettings,
    name: str,
    c: _Criterion,
    now: str,
    t: float | None,
    scored: list[tuple[int, ...]] | None,
    bar: float,
) -> CriterionStatus:
    b = c.baseline
    labels = b.labels
    agreement = _rule(s, c, "agreement", c.agreement, now)
    shift = (
        _rule(s, c, "shift", c.shift, now, s.shift_threshold)
        if c.shift.ready
        else RuleStatus(
            e_value=1.0,
            log_e=0.0,
            threshold=s.shift_threshold,
            alarm="shift" in c.fired,
            fired_at=c.fired.get("shift"),
            windows=0,
            cases=0,
        )
    )
    anchors = (
        None if c.anchors is None else _rule(s, c, "anchors", c.anchors, now, s.anchor_threshold)
    )
    held = None if c.held is None else _rule(s, c, "held", c.held, now)
    moved = (
        None
        if c.anchor_shift is None
        else _rule(s, c, "anchor_shift", c.anchor_shift, now, s.anchor_shift_threshold)
    )
    verdicts: list[Verdict] = []
    reasons: list[str] = []
    if b.anchor_kappa is not None and c.anchors is None:
        reasons.append(
            f"anchors not used: the anchor set has {b.anchor_cases} case(s), fewer than the "
            f"minimum {s.min_anchor_cases}: the judge-or-product rule is undecided"
        )
    judge_moved = (anchors is not None and anchors.alarm) or (moved is not None and moved.alarm)
    if anchors is not None and anchors.alarm:
        reasons.append(
            f"judge changed: the anchors' kappa is below its release value "
            f"{c.baseline.anchor_kappa:.2f} - {s.anchor_tolerance:.2f} with confidence "
            f"(e-value {anchors.e_value:.3g} ≥ {anchors.threshold:g}, since window "
            f"'{anchors.fired_at}'); only the judge moves the anchors"
        )
    if moved is not None and moved.alarm:
        reasons.append(
            f"judge changed: its label shares on the anchors moved from the release "
            f"scorings' beyond both samples' error (e-value {moved.e_value:.3g} ≥ "
            f"{moved.threshold:g}, since window '{moved.fired_at}'); only the judge moves "
            "the anchors"
        )
    if judge_moved:
        verdicts.append("judge_changed")
    if agreement.alarm:
        verdicts.append("below_gate")
        reasons.append(
            f"agreement below the gate: the audited cases' kappa is below {bar:.2f} "
            f"with confidence (e-value {agreement.e_value:.3g} ≥ {agreement.threshold:g}, "
            f"since window '{agreement.fired_at}')"
        )
    if bar < s.gate_kappa - 0.005:
        reasons.append(
            f"prevalence: the experts' label shares in the recent audits moved from the "
            f"release's; at them the released judge's expected kappa is lower by "
            f"{s.gate_kappa - bar:.2f}, so rule 1's bar is {bar:.2f} instead of "
            f"{s.gate_kappa:.2f} (a drop that prevalence alone explains is not an alarm)"
        )
    if not c.shift.ready:
        reasons.append(
            f"label shift: collecting the reference ({c.shift.reference_seen} of "
            f"{c.shift.reference_windows} windows, {c.shift.reference_cases} cases): rule 2 "
            "compares later windows with these"
        )
    if shift.alarm:
        what = (
            f"the judged label shares moved from the reference windows' beyond both "
            f"samples' error (e-value {shift.e_value:.3g} ≥ {shift.threshold:g}, since "
            f"window '{shift.fired_at}')"
        )
        if anchors is None:
            verdicts.append("shift_unexplained")
            reasons.append(f"label shift: {what}; no anchors to tell judge from product")
        elif judge_moved:
            reasons.append(f"label shift too: {what}, with the judge changed")
        elif (
            held is not None
            and held.alarm
            and anchors.log_e < math.log(anchors.threshold) / 2
            and (moved is None or moved.log_e < math.log(moved.threshold) / 2)
        ):  # ruled out, and the evidence for a changed judge is not under way either
            verdicts.append("product_changed")
            reasons.append(
                f"product changed: {what}, and the anchors rule out a judge change of "
                f"{s.anchor_tolerance:.2f} in kappa (e-value {held.e_value:.3g} ≥ "
                f"{held.threshold:g} since the shift began)"
            )
        else:
            verdicts.append("shift_unexplained")
            reasons.append(
                f"label shift: {what}; the anchors cannot yet rule out a judge change of "
                f"{s.anchor_tolerance:.2f} in kappa (e-value "
                f"{1.0 if held is None else held.e_value:.3g} < {s.threshold:g}): "
                "judge or product is undecided"
            )
    shares = None
    if scored:
        k = len(labels)
        sums = [0.0] * k
        for codes in scored:
            for code in codes:
                sums[code] += 1 / len(codes)
        shares = {labels[i]: sums[i] / len(scored) for i in range(k)}
    return CriterionStatus(
        criterion=name,
        verdicts=tuple(verdicts) or ("ok",),
        reasons=tuple(reasons),
        agreement=agreement,
        shift=shift,
        anchors=anchors,
        window_kappa_statistic=t,
        judged_shares=shares,
        baseline_shares=dict(zip(labels, c.baseline.judged_shares, strict=True)),
        agreement_bar=bar,
        anchors_held=held,
        anchors_shift=moved,
        shift_reference=ShiftReferenceOut(
            windows=c.shift.reference_seen,
            of=c.shift.reference_windows,
            cases=c.shift.reference_cases,
            shares=None
            if (ref := c.shift.reference_shares()) is None
            else dict(zip(labels, ref, strict=True)),
        ),
    )
