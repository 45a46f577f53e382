"""The drift monitor's report as text (`calibrant monitor`): one line per fact, unwrapped, for a
pipeline's log (and grep)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..contracts.reports.monitor import MonitorReport, WindowCriterionOut

__all__ = ["monitor_lines"]


def _criterion_line(c: WindowCriterionOut) -> str:
    k = "undefined" if c.kappa is None else f"{c.kappa:.2f}"
    if c.kappa_ci:
        k += f" [{c.kappa_ci[0]:.2f}, {c.kappa_ci[1]:.2f}]"
    rules = (("agreement", c.agreement), ("shift", c.shift), ("anchors", c.anchors))
    e = ", ".join(f"{r} {rule.e_value:.3g}" for r, rule in rules if rule is not None)
    return f"  {c.criterion}: kappa {k} (n={c.n_items}), e-values {e}: " + ", ".join(c.verdicts)


def monitor_lines(report: MonitorReport) -> list[str]:
    """The judge and its release calibration, the recorded verdicts read (if any), each window's
    criteria with kappa and e-values, the alarms (or none), their reasons and the warnings."""
    out = [
        f"judge {report.judge_version[:19]} ({report.judge_model}), release calibration "
        f"{report.calibration_run[:12]}; alarm at e-value >= {report.settings.threshold:g}"
    ]
    v = report.verdicts
    if v:
        out.append(
            f"recorded verdicts {v.file} ({v.rows} rows, {v.audited_items} audited "
            f"items, {v.anchor_rows} anchor rows)"
        )
    for w in report.windows:
        out.append(f"{report.window} {w.name}:")
        out += [_criterion_line(c) for c in w.criteria]
    if not report.alarms:
        out.append("no drift alarm")
    out += [
        f"DRIFT {a.criterion}: {a.verdict} (rule {a.rule}, since {a.fired_at}, "
        f"e-value {a.e_value:.3g})"
        for a in report.alarms
    ]
    for name, reasons in (report.reasons or {}).items():
        out += [f"why {name}: {r}" for r in reasons]
    out += [f"warning: {w}" for w in report.warnings]
    return out
