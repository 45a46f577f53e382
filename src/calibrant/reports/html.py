"""A self-contained HTML calibration report: no scripts, no external assets; plots are inline
SVG (html_plots.py). The reader meets the gate, the warnings and the summary first, then safety
and the calibration pairs, and only then each criterion's long lists, top 10 disagreements shown
and the rest folded in a <details>."""

from __future__ import annotations

from html import escape
from typing import Any

from ..calibration.experts import experts_lines
from .calibration_md import pair_cell
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


def _table(head: list[str], rows: list[list[str]], *, attrs: str = "") -> str:
    """An HTML table; ``head`` is escaped, cells are given as HTML."""
    h = "".join(f"<th>{escape(x)}</th>" for x in head)
    body = "".join("<tr>" + "".join(f"<td>{x}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table{attrs}><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def _ids(text: str) -> str:
    """An identifier that may wrap after each underscore."""
    return escape(text).replace("_", "_<wbr>")


def _gate(status: str) -> str:
    return f'<span class="{status}">{status}</span>'


def _summary(r: dict[str, Any]) -> str:
    j = r["judge"] or {}
    s = r["settings"]
    per = ", ".join(f"{escape(k)} {_gate(v)}" for k, v in r["gate"]["criteria"].items())
    aside = r["gold"].get("unlabeled_note")
    warnings = "".join(
        f'<div class="warning" role="note"><strong>Warning.</strong> {escape(w)}</div>'
        for w in r.get("warnings", [])
    )
    return f"""<header id="summary">
<h1>Calibration report</h1>
<p class="gate">Judge release gate: {_gate(r["gate"]["judge"])}</p>
<p>Per criterion: {per}. Safety is reported apart and never averaged in.</p>
{warnings}
<p class="muted">Judge <code>{escape(str(j.get("model")))}</code> ({escape(str(j.get("hash")))});
rubric <code>{escape(r["rubric"]["id"])}</code> v{escape(r["rubric"]["version"])}
({escape(r["rubric"]["hash"])}); {r["n_items"]} gold items (split
<code>{escape(r["split"])}</code>), raters {escape(", ".join(r["gold"]["raters"]))};
{s["n_resamples"]} bootstrap resamples ({escape(s["bootstrap"])}), seed {s["seed"]}; gate:
{escape(gate_settings_text(s))}. Judge outcomes:
{escape(", ".join(f"{k} {v}" for k, v in r["judge_outcomes"].items()))}.</p>
{f'<p class="muted">Left aside: {escape(aside)}</p>' if aside else ""}
{f"<p>{escape(str(noise_note(r)))}</p>" if noise_note(r) else ""}
</header>"""


def _criteria(r: dict[str, Any]) -> str:
    rows = [
        [
            f"<code>{_ids(c['criterion'])}</code>",
            escape(stat_name(c["statistic"])),
            escape(fmt_stat(c["judge_vs_consensus"])),
            escape(fmt_stat(c["expert_ceiling"], n=False, none=ceiling_why(c))),
            escape(coverage_text(c)),
            _gate(c["gate"]["status"]),
            "yes" if c["revise_rubric"] else "no",
        ]
        for c in r["criteria"]
    ]
    notes = "".join(
        f"<li><code>{_ids(c['criterion'])}</code>: {escape(n)}</li>"
        for c in r["criteria"]
        for n in c["notes"]
    )
    head = ["criterion", "statistic", "judge vs consensus [95% CI]", "experts' ceiling"]
    return f"""<h2 id="criteria">Communication criteria</h2>
<figure class="forest">{forest_plot(r["criteria"], r["settings"]["min_lower"])}
<figcaption>The judge against the experts' consensus, per criterion: estimate and 95% CI, over
the experts' own agreement.</figcaption></figure>
{_table([*head, "coverage", "gate", "revise rubric?"], rows)}
{f'<h3>Read with care</h3><ul class="notes">{notes}</ul>' if notes else ""}"""


def _safety(r: dict[str, Any]) -> str:
    s = r["safety"]
    rows = [
        [
            f"<code>{_ids(k)}</code>",
            f'<span class="viol">{escape(rate_text(v))}</span>'
            if v["violated"]
            else escape(rate_text(v)),
            str(v["pass"]),
            str(v["not_applicable"]),
            str(v["harness_error"]),
        ]
        for k, v in s["invariants"].items()
    ]
    return f"""<h2 id="safety">Safety invariants</h2>
<p class="muted">{escape(s["note"])}</p>
{_table(["invariant", "violated", "pass", "not applicable", "harness error"], rows)}"""


def _pairs(r: dict[str, Any]) -> str:
    if not r["calibration_pairs"]:
        return ""
    crits = [c["criterion"] for c in r["criteria"]]
    head = "".join(f"<th><code>{_ids(c)}</code></th>" for c in crits)
    body = []
    for p in r["calibration_pairs"]:
        body.append(
            f'<tr class="pair"><th colspan="{2 + len(crits)}">case <code>{_ids(p["case"])}'
            "</code></th></tr>"
        )
        for sd in p["sides"]:
            violations = "<br>".join(f"<code>{_ids(v)}</code>" for v in sd["safety_violations"])
            cells = []
            for c in crits:
                cons, judge, differ = pair_cell(sd, c)
                attrs = ' class="differ"' if differ else ""
                cells.append(f"<td{attrs}>{_ids(cons)} / {_ids(judge)}</td>")
            body.append(
                f'<tr class="side"><td>{escape(sd["role"])}<br><span class="muted">'
                f"{escape(sd['item'])}, {escape(sd['agent'])} / {escape(sd['style'])}</span></td>"
                f"<td>{violations or 'none'}</td>{''.join(cells)}</tr>"
            )
    return f"""<h2 id="pairs">Calibration pairs</h2>
<p>Excellent text with a wrong transaction beside ordinary text with a correct operation, case by
case: the safety checker's violations, then for each criterion the experts' consensus / the
judge's label (highlighted where they differ).</p>
<table id="calibration-pairs"><thead><tr><th>side</th><th>safety violations</th>
{head}</tr></thead><tbody>{"".join(body)}</tbody></table>"""


def _disagreements(c: dict[str, Any]) -> str:
    rows = [
        [
            f'<span class="nowrap">{escape(d["item"])}</span>',
            f"<code>{_ids(d['case'])}</code>",
            escape(str(d["consensus"])),
            escape(", ".join(f"{k}: {v}" for k, v in d["experts"].items())),
            escape(str(d["judge"])),
            escape(d["rationale"]),
            escape(", ".join(d["evidence"])),
        ]
        for d in c["disagreements"]
    ]
    if not rows:
        return "<p>No disagreement.</p>"
    head = ["item", "case", "consensus", "experts", "judge", "judge's rationale", "evidence cited"]
    attrs = ' class="disagreements"'
    shown = _table(head, rows[:TOP_DISAGREEMENTS], attrs=attrs)
    rest = rows[TOP_DISAGREEMENTS:]
    folded = (
        f"<details><summary>Show {len(rest)} more disagreements</summary>"
        f"{_table(head, rest, attrs=attrs)}</details>"
        if rest
        else ""
    )
    return (
        f"<h4>{len(rows)} disagreement(s) with the consensus, unanimous experts and larger "
        f"distances first</h4>{shown}{folded}"
    )


def _criterion(c: dict[str, Any]) -> str:
    figures = _table(
        ["comparison", "statistic", "value [95% CI]"],
        [
            [escape(what), escape(name), escape(fmt_stat(s, none=ceiling_why(c)))]
            for what, name, s in comparisons(c)
        ],
    )
    extra = "".join(f"<li>{escape(x)}</li>" for x in planning_line(c))
    detail = "".join(f"<li>{escape(x)}</li>" for x in gate_detail_lines(c))
    return f"""<section class="criterion" data-criterion="{escape(c["criterion"])}">
<h3><code>{_ids(c["criterion"])}</code> — {escape(c["title"])}</h3>
<p>Gate {_gate(c["gate"]["status"])}: {escape("; ".join(c["gate"]["reasons"]))}</p>
{f'<ul class="gate-detail">{detail}</ul>' if detail else ""}
{f'<ul class="notes">{extra}</ul>' if extra else ""}
<div class="figures">
<figure class="heatmap">{heatmap(c)}
<figcaption>Items by the experts' consensus (rows) and the judge's label (columns).</figcaption>
</figure>
{figures}
</div>
{_disagreements(c)}
</section>"""


def _experts(r: dict[str, Any]) -> str:
    lines = "".join(f"<li>{escape(x)}</li>" for x in experts_lines(r))
    return f'<h3 id="experts">The judge against each expert</h3><ul>{lines}</ul>' if lines else ""


def _robustness(r: dict[str, Any]) -> str:
    lines = robustness_lines(r.get("robustness"))
    if not lines:
        return ""
    items = "".join(f"<li>{escape(x.strip())}</li>" for x in lines[1:])
    return f'<h2 id="robustness">Judge robustness</h2><p>{escape(lines[0])}</p>' + (
        f"<ul>{items}</ul>" if items else ""
    )


REPORT_CSS = _CSS


def calibration_sections(r: dict[str, Any]) -> dict[str, str]:
    """The report's parts as HTML fragments, in reading order (for pages that lay them out
    themselves, like the workbench): summary, criteria (kappa with CI per criterion), experts,
    safety (its own panel), pairs, details (heatmaps and disagreements per criterion)."""
    details = "".join(_criterion(c) for c in r["criteria"])
    return {
        "summary": _summary(r),
        "criteria": _criteria(r),
        "experts": _experts(r),
        "safety": _safety(r),
        "pairs": _pairs(r),
        "robustness": _robustness(r),
        "details": '<h2 id="details">Criteria in detail: agreement, confusion and '
        f"disagreements</h2>\n{details}",
    }


def calibration_html(r: dict[str, Any]) -> str:
    """The report as one self-contained HTML page."""
    body = "\n".join(calibration_sections(r).values())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>calibrant — calibration report</title>
<style>{_CSS}</style></head><body>
{body}
</body></html>
"""
