"""A self-contained HTML calibration report: no scripts, no external assets; plots are inline
SVG (kappa with CI per criterion against the experts' ceiling; confusion heatmaps)."""

from __future__ import annotations

from html import escape
from typing import Any

from .calibration import fmt_stat, rate_text

__all__ = ["calibration_html"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:72rem;
color:#1d2430;line-height:1.45}
h1,h2,h3{line-height:1.2} code{background:#f2f4f7;padding:0 .25em;border-radius:3px}
table{border-collapse:collapse;margin:.5rem 0 1.2rem;font-size:.92rem}
th,td{border:1px solid #d6dbe3;padding:.3rem .55rem;text-align:left;vertical-align:top}
th{background:#f2f4f7} .PASS{color:#0a7a32;font-weight:700}.FAIL{color:#b42318;font-weight:700}
.UNDECIDED{color:#a15c00;font-weight:700} .muted{color:#667085} .viol{color:#b42318}
figure{margin:1rem 0} figcaption{font-size:.85rem;color:#667085}
"""


def _forest(criteria: list[dict[str, Any]], min_lower: float) -> str:
    """One row per criterion: judge estimate with CI (dot and bar), experts' ceiling (band)."""
    w, left, row = 720, 230, 34
    h = 40 + row * len(criteria)

    def x(v: float) -> float:  # kappa axis from -0.2 to 1.0
        return left + (max(-0.2, min(1.0, v)) + 0.2) / 1.2 * (w - left - 20)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'role="img" aria-label="agreement with 95% CI per criterion">'
    ]
    for tick in (-0.2, 0, 0.2, 0.4, 0.6, 0.8, 1.0):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="20" x2="{x(tick):.1f}" y2="{h - 15}" '
            f'stroke="#e4e7ec"/><text x="{x(tick):.1f}" y="14" font-size="11" '
            f'text-anchor="middle" fill="#667085">{tick:g}</text>'
        )
    parts.append(
        f'<line x1="{x(min_lower):.1f}" y1="20" x2="{x(min_lower):.1f}" y2="{h - 15}" '
        'stroke="#b42318" stroke-dasharray="4 3"/>'
    )
    for i, c in enumerate(criteria):
        y = 35 + row * i
        parts.append(
            f'<text x="{left - 8}" y="{y + 4}" font-size="12" text-anchor="end">'
            f"{escape(c['criterion'])}</text>"
        )
        ce = c["expert_ceiling"]
        if ce and ce["ci"] is not None:
            parts.append(
                f'<rect x="{x(ce["ci"][0]):.1f}" y="{y - 9}" '
                f'width="{max(1.0, x(ce["ci"][1]) - x(ce["ci"][0])):.1f}" height="18" '
                'fill="#d1e9ff" opacity="0.8"><title>experts\' ceiling CI</title></rect>'
            )
        s = c["judge_vs_consensus"]
        color = {"PASS": "#0a7a32", "FAIL": "#b42318"}.get(c["gate"]["status"], "#a15c00")
        if s["ci"] is not None:
            parts.append(
                f'<line x1="{x(s["ci"][0]):.1f}" y1="{y}" x2="{x(s["ci"][1]):.1f}" '
                f'y2="{y}" stroke="{color}" stroke-width="3"/>'
            )
        if s["estimate"] is not None:
            parts.append(
                f'<circle cx="{x(s["estimate"]):.1f}" cy="{y}" r="5" fill="{color}">'
                f"<title>{escape(fmt_stat(s))}</title></circle>"
            )
        else:
            parts.append(
                f'<text x="{x(0):.1f}" y="{y + 4}" font-size="11" fill="#667085">undefined</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _heatmap(c: dict[str, Any]) -> str:
    m = c["confusion"]
    rows = [(n, r) for n, r in zip(m["rows_consensus"], m["counts"], strict=True) if any(r)]
    cols = m["columns_judge"]
    cell, left, top = 44, 120, 80
    width, height = left + cell * len(cols) + 10, top + cell * len(rows) + 10
    peak = max((v for _, r in rows for v in r), default=1) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="confusion matrix {escape(c["criterion"])}">'
    ]
    for j, name in enumerate(cols):
        cx = left + cell * j + cell / 2
        parts.append(
            f'<text x="{cx:.0f}" y="{top - 8}" font-size="11" text-anchor="start" '
            f'transform="rotate(-40 {cx:.0f} {top - 8})">{escape(name)}</text>'
        )
    for i, (name, r) in enumerate(rows):
        y = top + cell * i
        parts.append(
            f'<text x="{left - 6}" y="{y + cell / 2 + 4:.0f}" font-size="11" '
            f'text-anchor="end">{escape(name)}</text>'
        )
        for j, v in enumerate(r):
            shade = int(255 - 180 * v / peak)
            diag = name == cols[j]
            parts.append(
                f'<rect x="{left + cell * j}" y="{y}" width="{cell - 2}" '
                f'height="{cell - 2}" fill="rgb({shade},{shade + (0 if diag else 0)},'
                f'{255 if diag else shade})"/><text x="{left + cell * j + cell / 2 - 1}" '
                f'y="{y + cell / 2 + 4}" font-size="12" text-anchor="middle">{v}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _table(head: list[str], rows: list[list[str]]) -> str:
    h = "".join(f"<th>{escape(x)}</th>" for x in head)
    body = "".join("<tr>" + "".join(f"<td>{x}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def calibration_html(r: dict[str, Any]) -> str:
    """The report as one self-contained HTML page."""
    j = r["judge"] or {}
    gate = r["gate"]["judge"]
    crit_rows = [
        [
            f"<code>{escape(c['criterion'])}</code>",
            escape(c["statistic"]),
            escape(fmt_stat(c["judge_vs_consensus"])),
            escape(fmt_stat(c["expert_ceiling"], n=False)),
            f"{c['coverage']['coverage']:.0%}",
            f'<span class="{c["gate"]["status"]}">{c["gate"]["status"]}</span>',
            "yes" if c["revise_rubric"] else "no",
        ]
        for c in r["criteria"]
    ]
    sections = []
    for c in r["criteria"]:
        dis = [
            [
                escape(d["item"]),
                escape(d["case"]),
                escape(str(d["consensus"])),
                escape(", ".join(f"{k}: {v}" for k, v in d["experts"].items())),
                escape(str(d["judge"])),
                escape(d["rationale"]),
                escape(", ".join(d["evidence"])),
            ]
            for d in c["disagreements"]
        ]
        sections.append(
            f"<h3><code>{escape(c['criterion'])}</code> — {escape(c['title'])}</h3>"
            f'<p>Gate <span class="{c["gate"]["status"]}">{c["gate"]["status"]}</span>: '
            f"{escape('; '.join(c['gate']['reasons']))}</p>"
            f"<figure>{_heatmap(c)}<figcaption>consensus (rows) × judge (columns)</figcaption>"
            "</figure>"
            + (
                _table(
                    [
                        "item",
                        "case",
                        "consensus",
                        "experts",
                        "judge",
                        "judge's rationale",
                        "evidence cited",
                    ],
                    dis,
                )
                if dis
                else "<p>No disagreement.</p>"
            )
        )
    s = r["safety"]
    safety_rows = [
        [
            f"<code>{escape(k)}</code>",
            (
                f'<span class="viol">{escape(rate_text(v))}</span>'
                if v["violated"]
                else escape(rate_text(v))
            ),
            str(v["pass"]),
            str(v["not_applicable"]),
            str(v["harness_error"]),
        ]
        for k, v in s["invariants"].items()
    ]
    crits = [c["criterion"] for c in r["criteria"]]
    pair_rows = []
    for p in r["calibration_pairs"]:
        for sd in p["sides"]:
            judge = (
                " ".join(str(sd["judge"].get(c)) for c in crits)
                if sd["judge"]
                else str(sd["judge_outcome"])
            )
            pair_rows.append(
                [
                    escape(p["case"]),
                    escape(sd["item"]),
                    escape(sd["role"]),
                    escape(f"{sd['agent']} / {sd['style']}"),
                    escape(", ".join(sd["safety_violations"]) or "—"),
                    escape(" ".join(str(sd["consensus"].get(c)) for c in crits)),
                    escape(judge),
                ]
            )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>calibrant — calibration report</title>
<style>{_CSS}</style></head><body>
<h1>Calibration report</h1>
<p>Judge <code>{escape(str(j.get("model")))}</code> <span class="muted">{
        escape(str(j.get("hash")))
    }</span>;
rubric <code>{escape(r["rubric"]["id"])}</code> v{escape(r["rubric"]["version"])}
<span class="muted">{escape(r["rubric"]["hash"])}</span>; {r["n_items"]} gold items (split
<code>{escape(r["split"])}</code>), raters {escape(", ".join(r["gold"]["raters"]))};
{r["settings"]["n_resamples"]} bootstrap resamples ({escape(r["settings"]["bootstrap"])}),
seed {r["settings"]["seed"]}. Judge outcomes:
{escape(", ".join(f"{k} {v}" for k, v in r["judge_outcomes"].items()))}.</p>
<p>Judge release gate: <span class="{gate}">{gate}</span></p>
<h2>Communication criteria</h2>
<figure>{_forest(r["criteria"], r["settings"]["min_lower"])}
<figcaption>Judge vs consensus with 95% CI (dot and bar, coloured by gate); the blue band is
the experts' own agreement (ceiling) CI; the dashed line is the gate's minimum
({r["settings"]["min_lower"]}).</figcaption></figure>
{
        _table(
            [
                "criterion",
                "statistic",
                "judge vs consensus [95% CI]",
                "experts' ceiling",
                "coverage",
                "gate",
                "revise rubric?",
            ],
            crit_rows,
        )
    }
{"".join(sections)}
<h2>Safety invariants</h2>
<p class="muted">{escape(s["note"])}</p>
{_table(["invariant", "violated", "pass", "not applicable", "harness error"], safety_rows)}
<h2>Calibration pairs</h2><p class="muted">Labels in order: {escape(", ".join(crits))}</p>
{_table(["case", "item", "role", "agent / style", "safety", "consensus", "judge"], pair_rows)}
</body></html>
"""
