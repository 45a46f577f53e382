"""The calibration report as Markdown: summary and gate first, then safety and the calibration
pairs, then each criterion in detail with its full list of disagreements."""

from __future__ import annotations

from typing import Any

from ..calibration.experts import experts_lines
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
from .probe import robustness_lines

__all__ = ["calibration_markdown", "pair_cell"]


def _md(text: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def pair_cell(side: dict[str, Any], criterion: str) -> tuple[str, str, bool]:
    """(experts' label, judge's label or outcome, whether they differ) for one pair side."""
    cons = str(side["consensus"].get(criterion))
    judge = str(side["judge"].get(criterion)) if side["judge"] else str(side["judge_outcome"])
    return cons, judge, cons != judge


def _header(r: dict[str, Any]) -> list[str]:
    j = r["judge"] or {}
    out = [
        "# Calibration report",
        "",
        f"**Judge release gate: {r['gate']['judge']}**",
        "",
    ]
    out += [f"> **Warning:** {w}\n" for w in r.get("warnings", [])]
    return out + [
        f"- Gold: {r['n_items']} items, split `{r['split']}`, raters "
        f"{', '.join(r['gold']['raters'])}",
        *(
            [f"- Left aside: {r['gold']['unlabeled_note']}"]
            if r["gold"].get("unlabeled_note")
            else []
        ),
        f"- Judge: `{j.get('model')}` (`{j.get('hash')}`)",
        f"- Rubric: `{r['rubric']['id']}` v{r['rubric']['version']} (`{r['rubric']['hash']}`)",
        f"- Bootstrap: {r['settings']['n_resamples']} resamples, {r['settings']['bootstrap']},"
        f" seed {r['settings']['seed']}; gate ({gate_settings_text(r['settings'])}):"
        f" {r['settings'].get('gate_rule', '')}",
        f"- Judge outcomes: {', '.join(f'{k} {v}' for k, v in r['judge_outcomes'].items())}",
        *([f"- {noise_note(r)}"] if noise_note(r) else []),
    ]


def _summary(r: dict[str, Any]) -> list[str]:
    out = [
        "",
        "## Communication criteria",
        "",
        "| criterion | statistic | judge vs consensus [95% CI] | experts' ceiling | coverage "
        "| gate | revise rubric? |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in r["criteria"]:
        ceiling = fmt_stat(c["expert_ceiling"], n=False, none=ceiling_why(c))
        out.append(
            f"| `{c['criterion']}` | {stat_name(c['statistic'])} | "
            f"{_md(fmt_stat(c['judge_vs_consensus']))} | {_md(ceiling)} | {coverage_text(c)} | "
            f"**{c['gate']['status']}** | {'yes' if c['revise_rubric'] else 'no'} |"
        )
    return out


def _safety(r: dict[str, Any]) -> list[str]:
    s = r["safety"]
    out = [
        "",
        "## Safety invariants (deterministic checker; never averaged into quality)",
        "",
        s["note"],
        "",
        "| invariant | violated | pass | not applicable | harness error |",
        "|---|---|---|---|---|",
    ]
    return out + [
        f"| `{k}` | {rate_text(v)} | {v['pass']} | {v['not_applicable']} | {v['harness_error']} |"
        for k, v in s["invariants"].items()
    ]


def _pairs(r: dict[str, Any]) -> list[str]:
    if not r["calibration_pairs"]:
        return []
    crits = [c["criterion"] for c in r["criteria"]]
    out = [
        "",
        "## Calibration pairs",
        "",
        "Excellent text with a wrong transaction beside ordinary text with a correct operation: "
        "the experts' consensus and the judge's label on each criterion (**bold** where they "
        "differ).",
        "",
        "| case | item | role | agent / style | safety violations | "
        + " | ".join(f"`{c}`" for c in crits)
        + " |",
        "|---" * (5 + len(crits)) + "|",
    ]
    for p in r["calibration_pairs"]:
        for sd in p["sides"]:
            cells = []
            for c in crits:
                cons, judge, differ = pair_cell(sd, c)
                text = f"experts {cons}, judge {judge}"
                cells.append(f"**{text}**" if differ else text)
            out.append(
                f"| {p['case']} | {sd['item']} | {sd['role']} | {sd['agent']} / {sd['style']} | "
                f"{', '.join(sd['safety_violations']) or '—'} | " + " | ".join(cells) + " |"
            )
    return out


def _criterion(c: dict[str, Any]) -> list[str]:
    out = [
        "",
        f"### `{c['criterion']}` — {c['title']}",
        "",
        f"Gate **{c['gate']['status']}**: " + "; ".join(c["gate"]["reasons"]),
        "",
    ]
    out += [f"- {line}" for line in gate_detail_lines(c)]
    out += [""] if gate_detail_lines(c) else []
    out += [f"> {line}\n" for line in [*c["notes"], *planning_line(c)]]
    out += ["| comparison | statistic | value [95% CI] |", "|---|---|---|"]
    out += [
        f"| {what} | {name} | {_md(fmt_stat(s, none=ceiling_why(c)))} |"
        for what, name, s in comparisons(c)
    ]
    na = c.get("not_applicable")
    if na:
        counts = ", ".join(f"{who} {k}" for who, k in na["n_items"].items())
        out += [
            "",
            "`not_applicable` (its own category"
            + (
                (
                    ", outside the ordered levels"
                    if c["level"] == "ordinal"
                    else ", outside pass/fail"
                )
                if na["outside_scale"]
                else ""
            )
            + f"): {counts} item(s); agreement on applicability "
            + _md(fmt_stat(na["agreement_on_applicability"], none="undefined")),
        ]
    m = c["confusion"]
    out += [
        "",
        "| consensus \\ judge | " + " | ".join(m["columns_judge"]) + " |",
        "|---" * (len(m["columns_judge"]) + 1) + "|",
    ]
    out += [
        f"| {name} | " + " | ".join(map(str, row)) + " |"
        for name, row in zip(m["rows_consensus"], m["counts"], strict=True)
        if any(row)
    ]
    if not c["disagreements"]:
        return [*out, "", "No disagreement."]
    out += [
        "",
        f"{len(c['disagreements'])} disagreement(s), unanimous experts and larger distances first:",
        "",
        "| item | case | consensus | experts | judge | judge's rationale | evidence cited |",
        "|---|---|---|---|---|---|---|",
    ]
    for d in c["disagreements"]:
        experts = ", ".join(f"{k}: {v}" for k, v in d["experts"].items())
        out.append(
            f"| {d['item']} | {d['case']} | {d['consensus']} | {experts} | "
            f"{d['judge']} | {_md(d['rationale'])} | {', '.join(d['evidence'])} |"
        )
    return out


def calibration_markdown(r: dict[str, Any]) -> str:
    """The report as Markdown."""
    out = _header(r) + _summary(r)
    if r.get("experts"):  # the judge against each expert, and whether consensus echoes one
        out += ["", "### The judge against each expert", ""] + [f"- {x}" for x in experts_lines(r)]
    out += _safety(r) + _pairs(r)
    robust = robustness_lines(r.get("robustness"))
    if robust:
        out += ["", "## Judge robustness", ""] + [f"- {x.strip()}" for x in robust]
    out += ["", "## Criteria in detail: agreement, confusion and disagreements"]
    for c in r["criteria"]:
        out += _criterion(c)
    return "\n".join(out) + "\n"
