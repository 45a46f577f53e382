"""Inline SVG plots of the HTML calibration report, each with its legend: the judge's kappa and
CI per criterion against the experts' band, and a confusion heatmap per criterion whose cell
text colour is chosen from the cell's luminance (WCAG contrast of at least 4.5:1)."""

from __future__ import annotations

from html import escape

from ..contracts.reports import CalibrationCriterion
from .calibration_text import fmt_stat

__all__ = ["contrast", "forest_plot", "heatmap", "text_colour"]

RGB = tuple[int, int, int]

GATE_COLOUR = {"PASS": "#0a7a32", "FAIL": "#b42318", "UNDECIDED": "#a15c00"}
CEILING_FILL = "#b2ddff"
# heatmap ramps, from an empty cell to the fullest one
RAMPS: dict[str, tuple[RGB, RGB, str]] = {
    "agree": ((239, 244, 255), (21, 62, 160), "agreement (consensus = judge)"),
    "disagree": ((255, 244, 237), (170, 45, 12), "disagreement"),
    "other": ((242, 244, 247), (52, 64, 84), "judge abstained or failed; no consensus"),
}
BLACK, WHITE = (0, 0, 0), (255, 255, 255)


def _hex(c: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


def _luminance(c: RGB) -> float:
    def lin(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def text_colour(background: RGB) -> RGB:
    """Black or white, whichever reads better on ``background`` (at least 4.58:1 always)."""
    return BLACK if contrast(background, BLACK) >= contrast(background, WHITE) else WHITE


def _shade(kind: str, t: float) -> RGB:
    lo, hi, _ = RAMPS[kind]
    r, g, b = (round(a + (z - a) * t) for a, z in zip(lo, hi, strict=True))
    return r, g, b


def _legend_html(items: list[str]) -> str:
    return f'<div class="legend">{"".join(items)}</div>'


def _ramp_legend(peak: int) -> str:
    items = []
    for kind, (_, _, label) in RAMPS.items():
        steps = "".join(
            f'<i style="background:{_hex(_shade(kind, t))}"></i>' for t in (0, 0.25, 0.5, 0.75, 1)
        )
        items.append(
            f'<span class="key"><span class="ramp">0 {steps} {peak}</span> {escape(label)}</span>'
        )
    return _legend_html(items)


def heatmap(c: CalibrationCriterion) -> str:
    """Consensus (rows) × judge (columns) counts as an SVG, then its legend."""
    m = c.confusion
    scale = set(c.scale)
    rows = [(n, r) for n, r in zip(m.rows_consensus, m.counts, strict=True) if any(r)]
    cols = m.columns_judge
    cell, left = 44, 120
    top = 36 + round(max(len(name) for name in cols) * 7 * 0.65)  # room for slanted labels
    width, height = left + cell * len(cols) + 10, top + cell * len(rows) + 10
    peak = max((v for _, r in rows for v in r), default=0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="confusion matrix of {escape(c.criterion)}">',
        f'<text x="{left}" y="14" font-size="12" font-weight="600">judge\'s label →</text>',
        f'<text x="8" y="{top - 8}" font-size="12" font-weight="600">consensus ↓</text>',
    ]
    for j, name in enumerate(cols):
        cx = left + cell * j + cell / 2
        parts.append(
            f'<text x="{cx:.0f}" y="{top - 8}" font-size="12" text-anchor="start" '
            f'transform="rotate(-40 {cx:.0f} {top - 8})">{escape(name)}</text>'
        )
    for i, (name, r) in enumerate(rows):
        y = top + cell * i
        parts.append(
            f'<text x="{left - 8}" y="{y + cell / 2 + 4:.0f}" font-size="12" '
            f'text-anchor="end">{escape(name)}</text>'
        )
        for j, v in enumerate(r):
            col = cols[j]
            kind = (
                "other"
                if name not in scale or col not in scale
                else ("agree" if name == col else "disagree")
            )
            bg = _shade(kind, v / peak)
            parts.append(
                f'<g class="cell"><title>consensus {escape(name)}, judge {escape(col)}: {v} '
                f'item(s)</title><rect x="{left + cell * j}" y="{y}" width="{cell - 2}" '
                f'height="{cell - 2}" fill="{_hex(bg)}" stroke="#d0d5dd" stroke-width="0.5"/>'
                f'<text x="{left + cell * j + cell / 2 - 1}" y="{y + cell / 2 + 4}" '
                f'font-size="13" text-anchor="middle" fill="{_hex(text_colour(bg))}">{v}</text>'
                "</g>"
            )
    parts.append("</svg>")
    return "".join(parts) + _ramp_legend(peak)


def forest_plot(criteria: list[CalibrationCriterion], min_lower: float) -> str:
    """One row per criterion: judge estimate with CI (dot and bar, coloured by gate) over the
    experts' ceiling CI (band); a dashed line at the gate's minimum. Then its legend."""
    w, left, row = 760, 240, 34
    h = 40 + row * len(criteria)

    def x(v: float) -> float:  # kappa axis from -0.2 to 1.0
        return left + (max(-0.2, min(1.0, v)) + 0.2) / 1.2 * (w - left - 20)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        'role="img" aria-label="judge agreement with 95% CI per criterion">'
    ]
    for tick in (-0.2, 0, 0.2, 0.4, 0.6, 0.8, 1.0):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="20" x2="{x(tick):.1f}" y2="{h - 15}" '
            f'stroke="#e4e7ec"/><text x="{x(tick):.1f}" y="14" font-size="12" '
            f'text-anchor="middle" fill="#475467">{tick:g}</text>'
        )
    parts.append(
        f'<line x1="{x(min_lower):.1f}" y1="20" x2="{x(min_lower):.1f}" y2="{h - 15}" '
        f'stroke="{GATE_COLOUR["FAIL"]}" stroke-dasharray="4 3"/>'
    )
    for i, c in enumerate(criteria):
        y = 35 + row * i
        parts.append(
            f'<text x="{left - 8}" y="{y + 4}" font-size="12" text-anchor="end">'
            f"{escape(c.criterion)}</text>"
        )
        ce = c.expert_ceiling
        if ce and ce.ci is not None:
            parts.append(
                f'<rect x="{x(ce.ci[0]):.1f}" y="{y - 9}" '
                f'width="{max(1.0, x(ce.ci[1]) - x(ce.ci[0])):.1f}" height="18" '
                f'fill="{CEILING_FILL}"><title>experts\' ceiling CI</title></rect>'
            )
        s = c.judge_vs_consensus
        colour = GATE_COLOUR[c.gate.status]
        if s.ci is not None:
            parts.append(
                f'<line x1="{x(s.ci[0]):.1f}" y1="{y}" x2="{x(s.ci[1]):.1f}" '
                f'y2="{y}" stroke="{colour}" stroke-width="3"/>'
            )
        if s.estimate is not None:
            parts.append(
                f'<circle cx="{x(s.estimate):.1f}" cy="{y}" r="5" fill="{colour}">'
                f"<title>{escape(fmt_stat(s))}</title></circle>"
            )
        else:
            parts.append(
                f'<text x="{x(0):.1f}" y="{y + 4}" font-size="12" fill="#475467">'
                f"undefined<title>{escape(fmt_stat(s))}</title></text>"
            )
    parts.append("</svg>")
    keys = [
        f'<span class="key"><i class="dot" style="background:{GATE_COLOUR[g]}"></i> judge, '
        f"gate {g}</span>"
        for g in ("PASS", "UNDECIDED", "FAIL")
    ]
    keys.append(
        f'<span class="key"><i style="background:{CEILING_FILL}"></i> experts\' own '
        "agreement (95% CI)</span>"
    )
    keys.append(
        f'<span class="key"><i class="dash" style="border-color:{GATE_COLOUR["FAIL"]}"></i> '
        f"gate minimum ({min_lower:g})</span>"
    )
    return "".join(parts) + _legend_html(keys)
