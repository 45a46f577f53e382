"""A self-contained HTML calibration report: no scripts, no external assets; plots are inline
SVG (html_plots.py). Rendered from the report's model by a Jinja2 template with autoescape
(templates/calibration.html): a value is escaped unless it is marked as HTML. The reader meets
the gate, the warnings and the summary first, then safety and the calibration pairs, and only
then each criterion's long lists, top 10 disagreements shown and the rest folded in a <details>."""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from ..calibration.experts import experts_lines
from ..contracts.reports import CalibrationReport
from .calibration_md import as_report, pair_cell
from .calibration_text import (
    ceiling_why,
    comparisons,
    coverage_text,
    fmt_stat,
    gate_detail_lines,
    gate_settings_text,
    noise_note,
    planning_line,
    rate_text,
    stat_name,
)
from .html_plots import forest_plot, heatmap
from .probe import robustness_lines

__all__ = ["calibration_html", "calibration_sections", "REPORT_CSS", "TOP_DISAGREEMENTS"]

TOP_DISAGREEMENTS = 10

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:76rem;
padding:0 1rem;color:#1d2430;line-height:1.45}
h1,h2,h3{line-height:1.2} h2{margin-top:2.2rem;border-bottom:1px solid #d6dbe3;padding-bottom:.2rem}
code{background:#f2f4f7;padding:0 .25em;border-radius:3px}
table{border-collapse:collapse;margin:.5rem 0 1.2rem;font-size:.9rem;max-width:100%}
th,td{border:1px solid #d6dbe3;padding:.3rem .5rem;text-align:left;vertical-align:top;
overflow-wrap:break-word}
th{background:#f2f4f7} .PASS{color:#0a7a32;font-weight:700}.FAIL{color:#b42318;font-weight:700}
.UNDECIDED{color:#8a4b00;font-weight:700} .muted{color:#475467} .viol{color:#b42318}
.gate{font-size:1.35rem;margin:.4rem 0 .8rem}
.warning{background:#fffaeb;border:1px solid #f79009;border-left-width:6px;padding:.6rem .9rem;
margin:.8rem 0;border-radius:4px}
.notes li{margin:.2rem 0} figure{margin:1rem 0} figcaption{font-size:.85rem;color:#475467}
.legend{display:flex;flex-wrap:wrap;gap:.4rem 1.4rem;font-size:.85rem;margin:.3rem 0}
.legend .key{display:inline-flex;align-items:center;gap:.35rem}
.legend i{display:inline-block;width:1rem;height:.8rem;border:1px solid #d0d5dd}
.legend .ramp{display:inline-flex;align-items:center;gap:0}
.legend .ramp i{width:.9rem;border-width:1px 0}
.legend i.dot{width:.7rem;height:.7rem;border-radius:50%;border:0}
.legend i.dash{width:1.2rem;height:0;border:0;border-top:2px dashed}
td.differ{background:#fef0c7;font-weight:600} tr.pair th{background:#f9fafb;font-weight:600}
.figures{display:flex;flex-wrap:wrap;gap:.5rem 2rem;align-items:flex-start}
figure.heatmap{max-width:25rem}
.figures table{margin-top:1rem} .heatmap .legend{flex-direction:column;gap:.25rem}
details{margin:-.6rem 0 1.2rem} summary{cursor:pointer;color:#1849a9;padding:.3rem 0}
.nowrap{white-space:nowrap} section.criterion{border-top:1px solid #eaecf0;margin-top:1.6rem}
"""


def _ids(text: object) -> Markup:
    """An identifier that may wrap after each underscore."""
    return Markup(str(escape(str(text))).replace("_", "_<wbr>"))


def _code(text: object) -> Markup:
    return Markup("<code>%s</code>") % _ids(text)


@cache
def _template() -> Any:
    env = Environment(
        loader=PackageLoader("calibrant.reports", "templates"),
        autoescape=True,
        extensions=["jinja2.ext.do"],
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    env.globals.update(
        # the parts that are HTML already: the plots (SVG, escaped where they are drawn)
        forest_plot=lambda *a: Markup(forest_plot(*a)),
        heatmap=lambda *a: Markup(heatmap(*a)),
        markup=Markup,
        ids=_ids,
        html_code=_code,
        top=TOP_DISAGREEMENTS,
        pair_cell=pair_cell,
        ceiling_why=ceiling_why,
        comparisons=comparisons,
        coverage_text=coverage_text,
        fmt_stat=fmt_stat,
        gate_detail_lines=gate_detail_lines,
        gate_settings_text=gate_settings_text,
        noise_note=noise_note,
        planning_line=planning_line,
        rate_text=rate_text,
        stat_name=stat_name,
        experts_lines=experts_lines,
        robustness_lines=robustness_lines,
    )
    return env.get_template("calibration.html").module


REPORT_CSS = _CSS


def calibration_sections(report: CalibrationReport | dict[str, Any]) -> dict[str, str]:
    """The report's parts as HTML fragments, in reading order (for pages that lay them out
    themselves, like the workbench): summary, criteria (kappa with CI per criterion), experts,
    safety (its own panel), pairs, details (heatmaps and disagreements per criterion)."""
    r, t = as_report(report), _template()
    return {
        name: str(getattr(t, name)(r))
        for name in ("summary", "criteria", "experts", "safety", "pairs", "robustness", "details")
    }


def calibration_html(report: CalibrationReport | dict[str, Any]) -> str:
    """The report (its model, or its JSON data) as one self-contained HTML page."""
    parts = [Markup(part) for part in calibration_sections(report).values()]  # HTML already
    return str(_template().page(parts, Markup(_CSS)))
