"""The drift monitor's page (`calibrant monitor --html FILE`, the service's /monitor): per
criterion a time series of the judge's kappa with the experts on each window's audited items,
its 95% interval as a band, the gate's bar as a dashed line, the anchors' kappa beside it, and a
marker where a rule raised its alarm. Inline SVG, no script."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..contracts.reports.monitor import MonitorReport, RuleOut, WindowCriterionOut

__all__ = ["monitor_page", "kappa_series_svg"]

KAPPA = "#175cd3"
BAND = "#b2ddff"
ANCHOR = "#6941c6"
ALARM = "#b42318"
GRID = "#e4e7ec"
INK = "#475467"
RULE_WORD = {"agreement": "below gate", "shift": "label shift", "anchors": "anchors moved"}


def _rules(c: WindowCriterionOut) -> tuple[tuple[str, RuleOut | None], ...]:
    return (("agreement", c.agreement), ("shift", c.shift), ("anchors", c.anchors))


def kappa_series_svg(report: MonitorReport, criterion: str) -> str:
    """One criterion over the report's windows (see the module docstring)."""
    windows = report.windows
    rows = [next(c for c in w.criteria if c.criterion == criterion) for w in windows]
    gate = float(report.settings.gate_kappa)
    w, h, left, right, top, bottom = 720, 260, 48, 16, 30, 44
    n = len(windows)

    def x(i: int) -> float:
        return left + (w - left - right) * ((i + 0.5) / max(n, 1))

    def y(v: float) -> float:  # kappa axis from -1 to 1
        return top + (1.0 - max(-1.0, min(1.0, v))) / 2.0 * (h - top - bottom)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
        f'aria-label="kappa per window for {escape(criterion)}, with 95% CI, gate and alarms">'
    ]
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        parts.append(
            f'<line x1="{left}" y1="{y(tick):.1f}" x2="{w - right}" y2="{y(tick):.1f}" '
            f'stroke="{GRID}"/><text x="{left - 6}" y="{y(tick) + 4:.1f}" font-size="11" '
            f'text-anchor="end" fill="{INK}">{tick:g}</text>'
        )
    # the interval band: a polygon over the windows with an interval, split where one is missing
    run: list[tuple[int, list[float]]] = []
    for i, r in enumerate([*rows, None]):
        ci = None if r is None else r.kappa_ci
        if ci is not None:
            run.append((i, ci))
            continue
        if run:
            if len(run) == 1:
                ((j, (lo, hi)),) = run
                parts.append(
                    f'<rect x="{x(j) - 6:.1f}" y="{y(hi):.1f}" width="12" '
                    f'height="{max(1.0, y(lo) - y(hi)):.1f}" fill="{BAND}"/>'
                )
            else:
                upper = " ".join(f"{x(j):.1f},{y(hi):.1f}" for j, (_, hi) in run)
                lower = " ".join(f"{x(j):.1f},{y(lo):.1f}" for j, (lo, _) in reversed(run))
                parts.append(f'<polygon points="{upper} {lower}" fill="{BAND}"/>')
            run = []
    parts.append(
        f'<line x1="{left}" y1="{y(gate):.1f}" x2="{w - right}" y2="{y(gate):.1f}" '
        f'stroke="{ALARM}" stroke-dasharray="5 4"><title>gate bar {gate:g}</title></line>'
    )
    # the anchors first (dashed), the audited kappa on top
    for key, colour, shape in (("anchor_kappa", ANCHOR, "square"), ("kappa", KAPPA, "circle")):
        values = [r.anchor_kappa if key == "anchor_kappa" else r.kappa for r in rows]
        points = [(i, v) for i, v in enumerate(values) if v is not None]
        if len(points) > 1:
            line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in points)
            dash = ' stroke-dasharray="6 3"' if key == "anchor_kappa" else ""
            parts.append(
                f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>'
            )
        for i, v in points:
            tip = f"{windows[i].name}: {'anchors ' if key != 'kappa' else ''}kappa {v:.2f}"
            if shape == "circle":
                parts.append(
                    f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="4" fill="{colour}">'
                    f"<title>{escape(tip)}</title></circle>"
                )
            else:
                parts.append(
                    f'<rect x="{x(i) - 4:.1f}" y="{y(v) - 4:.1f}" width="8" height="8" '
                    f'fill="{colour}"><title>{escape(tip)}</title></rect>'
                )
    for i, r in enumerate(rows):
        fired = [
            name
            for name, rule in _rules(r)
            if rule is not None and rule.fired_at == windows[i].name
        ]
        if fired:
            what = ", ".join(RULE_WORD[f] for f in fired)
            cx = x(i)
            parts.append(
                f'<path class="alarm" d="M{cx:.1f},4 l7,12 h-14 z" fill="{ALARM}">'
                f"<title>alarm in {escape(windows[i].name)}: {escape(what)}</title></path>"
                f'<text x="{cx + (10 if cx < w / 2 else -10):.1f}" y="15" font-size="11" '
                f'text-anchor="{"start" if cx < w / 2 else "end"}" fill="{ALARM}">'
                f"{escape(what)}</text>"
            )
        parts.append(
            f'<text x="{x(i):.1f}" y="{h - bottom + 16}" font-size="11" text-anchor="middle" '
            f'fill="{INK}">{escape(windows[i].name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _legend() -> str:
    keys = [
        f'<span><i style="background:{KAPPA};border-radius:50%"></i> kappa, audited items</span>',
        f'<span><i style="background:{BAND}"></i> its 95% interval (cases resampled)</span>',
        f'<span><i style="background:{ANCHOR}"></i> kappa on the anchors (dashed)</span>',
        f'<span><i style="border-top:2px dashed {ALARM};height:0"></i> gate bar</span>',
        f'<span style="color:{ALARM}">&#9650;</span> <span>a rule raised its alarm</span>',
    ]
    return '<p class="legend">' + " ".join(keys) + "</p>"


def _rules_table(report: MonitorReport, criterion: str) -> str:
    head = (
        "<tr><th>window</th><th>kappa [95% CI]</th><th>n (cases)</th><th>gate</th>"
        "<th>e agreement</th><th>e shift</th><th>e anchors</th><th>verdict</th></tr>"
    )
    out = [f"<table>{head}"]
    for w in report.windows:
        c = next(x for x in w.criteria if x.criterion == criterion)
        k = "undefined" if c.kappa is None else f"{c.kappa:.2f}"
        if c.kappa_ci:
            k += f" [{c.kappa_ci[0]:.2f}, {c.kappa_ci[1]:.2f}]"
        e = ["—" if rule is None else f"{rule.e_value:.3g}" for _, rule in _rules(c)]
        verdict = ", ".join(c.verdicts)
        style = f' style="color:{ALARM}"' if c.alarm else ""
        out.append(
            f"<tr><td>{escape(w.name)}</td><td>{k}</td><td>{c.n_items} "
            f"({c.n_cases})</td><td>{escape(str(c.gate_status))}</td><td>{e[0]}</td>"
            f"<td>{e[1]}</td><td>{e[2]}</td><td{style}>{escape(verdict)}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def monitor_page(report: MonitorReport) -> str:
    """The whole page: the alarms, then each criterion's plot, legend and table."""
    s = report.settings
    alarms = report.alarms
    if alarms:
        items = "".join(
            f"<li><b>{escape(a.criterion)}</b>: {escape(a.verdict)} (rule "
            f"{escape(a.rule)}, since {escape(str(a.fired_at))}, e-value "
            f"{a.e_value:.3g})</li>"
            for a in alarms
        )
        head = f'<p class="alarm">Drift alarm.</p><ul>{items}</ul>'
    else:
        head = "<p>No alarm: every rule's e-value is below its threshold.</p>"
    body = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        f"<title>calibrant monitor — {escape(report.judge_version[:19])}</title>",
        "<style>body{font:14px system-ui,sans-serif;margin:2rem;color:#101828}"
        "table{border-collapse:collapse}td,th{border:1px solid #d0d5dd;padding:2px 8px}"
        ".legend span{margin-right:1rem}.legend i{display:inline-block;width:14px;height:10px;"
        "margin-right:4px}.alarm{color:#b42318;font-weight:600}</style></head><body>",
        "<h1>Drift monitor</h1>",
        f"<p>Judge version <code>{escape(report.judge_version[:19])}</code> "
        f"({escape(str(report.judge_model))}), release calibration "
        f"<code>{escape(report.calibration_run[:12])}</code>; {len(report.windows)} "
        f"{escape(report.window)} window(s); alarm at e-value ≥ {s.threshold:g} "
        + (
            f"(label shift: ≥ {s.shift_threshold:g}, against the first "
            f"{s.reference_windows} window(s) of traffic) "
            if s.shift_threshold
            else ""
        )
        + f"(alpha {s.alpha:g} per rule over the monitor's life, valid however often it "
        "is looked at).</p>",
        head,
    ]
    for name in report.baseline:
        reasons = report.reasons.get(name) or []
        body.append(f"<h2>{escape(name)}</h2>")
        body.append(kappa_series_svg(report, name))
        body.append(_legend())
        if reasons:
            body.append("<ul>" + "".join(f"<li>{escape(r)}</li>" for r in reasons) + "</ul>")
        body.append(_rules_table(report, name))
    for warning in report.warnings:
        body.append(f"<p>{escape(warning)}</p>")
    body.append("</body></html>")
    return "\n".join(body)
