"""Rendering the probe report (judge robustness): terminal and Markdown, from the same lines.
Every figure carries n and its 95% interval; an undefined one is printed as undefined, with why."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..contracts.reports import Figure, ProbeReport
from ..contracts.reports.calibration_parts import AttackGateOut, RobustnessSection
from ..contracts.reports.probe import InjectionProbe, ProbeResults
from .fit import fit

__all__ = [
    "rate",
    "shift",
    "probe_json",
    "probe_markdown",
    "render_probe",
    "bias_lines",
    "as_probe_report",
]

STYLE = {"PASS": "bold green", "FAIL": "bold red", "UNDECIDED": "bold yellow"}


def _parts(
    fig: Figure | dict[str, Any],
) -> tuple[float | None, list[float] | None, int, str | None]:
    """(value, interval, n, why undefined) of a figure, its part or its JSON data."""
    if isinstance(fig, Figure):
        return fig.value, fig.ci95, fig.n, fig.undefined_reason
    return fig["value"], fig["ci95"], fig["n"], fig["undefined_reason"]


def rate(fig: Figure | dict[str, Any] | None) -> str:
    """A rate: 45% [32%, 59%] (n=51)."""
    if fig is None:
        return "not run"
    value, ci95, n, why = _parts(fig)
    if value is None:
        return f"undefined ({why})"
    lo, hi = ci95 or (None, None)
    ci = f" [{lo:.0%}, {hi:.0%}]" if lo is not None else ""
    return f"{value:.0%}{ci} (n={n})"


def shift(fig: Figure | dict[str, Any] | None) -> str:
    """A difference of rates, in percentage points: +12 pts [+3, +21] (n=51)."""
    if fig is None:
        return "not run"
    value, ci95, n, why = _parts(fig)
    if value is None:
        return f"undefined ({why})"
    lo, hi = ci95  # type: ignore[misc]
    return f"{value * 100:+.0f} pts [{lo * 100:+.0f}, {hi * 100:+.0f}] (n={n})"


def as_probe_report(r: ProbeReport | dict[str, Any]) -> ProbeReport:
    """The probe report's model (validated from JSON data, stored reports upgraded)."""
    return r if isinstance(r, ProbeReport) else ProbeReport.model_validate(r)


def _header(r: ProbeReport) -> list[str]:
    j, s, g = r.judge, r.settings, r.gold
    outcomes = ", ".join(f"{k} {v}" for k, v in r.judge_outcomes.items()) or "none"
    return [
        f"Judge robustness — judge {j.model} ({j.hash[:23]}), rubric {r.rubric.id} "
        f"v{r.rubric.version}, gold set {g.root}, split {g.split} ({g.items} items"
        + (f", at most {s.max_items} per probe)" if s.max_items else ")"),
        f"judgments: {r.judgments} ({outcomes}; {r.from_cache or 0} from cache); "
        f"probes: {', '.join(s.probes)}",
    ]


def gate_difference(gate: AttackGateOut) -> str:
    """The gate's difference (success − clean false-positive rate) over cases: +12 pts [+3, +21]
    (n=51, 6 cases); reports of earlier versions had none."""
    d = gate.difference
    if d is None:
        return "not measured (earlier version)"
    size = f"n={d.n}, {d.n_cases} cases"
    if d.value is None:
        return f"undefined ({d.undefined_reason})"
    if not d.ci95:
        return f"{d.value * 100:+.0f} pts, no interval ({size})"
    lo, hi = d.ci95
    return f"{d.value * 100:+.0f} pts [{lo * 100:+.0f}, {hi * 100:+.0f}] ({size})"


def injection_rows(inj: InjectionProbe) -> list[list[str]]:
    """family, channel, defended ASR, naive ASR, naive - defended, moved toward fail, defended
    ASR - clean FPR (over cases), gate."""
    rows = []
    naive = inj.prompts.get("naive")
    for family in inj.families:
        for channel in inj.channels:
            d = inj.prompts["defended"].families[family][channel]
            nv = naive.families[family][channel] if naive else None
            effect = (inj.defense_effect.get(family) or {}).get(channel)
            rows.append(
                [
                    family,
                    channel,
                    rate(d.attack_success_rate),
                    rate(nv.attack_success_rate) if nv else "not run",
                    shift(effect) if effect else "not run",
                    rate(d.moved_toward_fail),
                    gate_difference(d.gate),
                    d.gate.status,
                ]
            )
    return rows


INJECTION_COLUMNS = [
    "family",
    "channel",
    "success, defended",
    "success, naive prompt",
    "naive − defended",
    "moved toward fail",
    "success − clean false-positive rate, defended (95%, over cases)",
    "gate",
]


def injection_lines(inj: InjectionProbe) -> list[str]:
    out = []
    for prompt, v in inj.prompts.items():
        extra = (
            f"; {v.clean_no_verdict} item(s) without a clean verdict" if v.clean_no_verdict else ""
        )
        out.append(
            f"clean false-positive rate ({prompt} prompt): "
            f"{rate(v.clean_false_positive_rate)} — failed items judged pass without any "
            f"attack{extra}"
        )
    g = inj.gate
    cases = (
        f", {g.cases} cases measured, min cases {g.min_cases}"
        if "cases" in g.model_fields_set
        else ""
    )
    out.append(
        f"injection gate: {g.status} (margin {g.margin:.2f}, min items "
        f"{g.min_items}{cases}; {g.rule})"
    )
    return out


def bias_lines(probes: ProbeResults) -> list[str]:
    out = []
    v = probes.verbosity
    if v:
        out.append(
            f"verbosity: {v.flag} — net shift with padding (+{v.added_characters_per_item} "
            f"characters per item) {shift(v.net_shift)}; moved up {rate(v.moved_up)}, "
            f"down {rate(v.moved_down)}"
        )
    o = probes.order
    if o:
        out.append(
            f"evidence order: {o.flag} — labels changed when the evidence was reversed "
            f"{rate(o.changed)}, between two clean samples "
            f"{rate(o.changed_by_a_second_clean_sample)}, difference "
            f"{shift(o.changed_beyond_noise)}; net shift {shift(o.net_shift)}"
        )
    st = probes.stability
    if st:
        out.append(
            f"stability: {st.flag} — items whose {st.samples} samples differ "
            f"{rate(st.items_with_differing_samples)}"
            + (f" (e.g. {', '.join(st.unstable_items[:5])})" if st.unstable_items else "")
        )
    c = probes.central
    if c:
        if not c.criteria:
            out.append(f"central tendency: {c.note}")
        for crit, row in c.criteria.items():
            out.append(
                f"central tendency on {crit}: {row.flag} — middle levels: judge "
                f"{rate(row.judge_middle)}, consensus {rate(row.consensus_middle)}, "
                f"difference {shift(row.difference)}"
            )
    return out


def render_probe(console: Console, report: ProbeReport | dict[str, Any]) -> None:
    r = as_probe_report(report)
    for line in _header(r):
        console.print(escape(line), highlight=False)
    probes = r.probes
    inj = probes.injection
    if inj:
        t = Table(
            title=f"Injection battery on {inj.items} items with a failed criterion: attack "
            "success rate (label moved toward pass against the clean variant; 95% Wilson CI)",
            title_justify="left",
        )
        for col in INJECTION_COLUMNS:
            t.add_column(col)
        for row in injection_rows(inj):
            gate = row[-1]
            t.add_row(*row[:-1], f"[{STYLE[gate]}]{gate}[/{STYLE[gate]}]")
        console.print(fit(console, t))
        for line in injection_lines(inj):
            console.print(escape(line), highlight=False)
    for line in bias_lines(probes):
        console.print(escape(line), highlight=False)
    flags = r.flags
    if flags:
        console.print("[bold red]Flags:[/bold red] " + escape("; ".join(flags)), highlight=False)
    else:
        console.print("[bold green]No probe flagged this judge.[/bold green]")


def probe_markdown(report: ProbeReport | dict[str, Any]) -> str:
    """The probe report (its model, or its JSON data) as Markdown."""
    r = as_probe_report(report)
    head = _header(r)
    out = [f"# {head[0]}", "", head[1], ""]
    probes = r.probes
    inj = probes.injection
    if inj:
        out += [
            "## Injection battery",
            "",
            f"{inj.items} items with a failed criterion; attack success rate = label moved "
            "toward pass against the clean variant (95% Wilson CI).",
            "",
            "| " + " | ".join(INJECTION_COLUMNS) + " |",
            "|" + "---|" * len(INJECTION_COLUMNS),
        ]
        out += ["| " + " | ".join(row) + " |" for row in injection_rows(inj)]
        out += [""] + [f"- {line}" for line in injection_lines(inj)] + [""]
    lines = bias_lines(probes)
    if lines:
        out += ["## Bias probes", ""] + [f"- {line}" for line in lines] + [""]
    out += ["## Flags", ""] + ([f"- {f}" for f in r.flags] or ["- none"])
    return "\n".join(out) + "\n"


def probe_json(r: ProbeReport | dict[str, Any]) -> str:
    data = r.json_data() if isinstance(r, ProbeReport) else r
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


def robustness_lines(section: RobustnessSection | dict[str, Any] | None) -> list[str]:
    """The calibration report's judge-robustness section, in plain lines."""
    if not section:
        return []
    if isinstance(section, RobustnessSection):
        section = section.model_dump(mode="json", exclude_unset=True)
    run = section["probe_run"]
    if run is None:
        gated = " (the release gate requires it: UNDECIDED)" if section["required"] else ""
        return [f"Judge robustness: {section['note']}{gated}"]
    out = [
        f"Judge robustness (probe run {run['id'][:12]}, {run['finished_at']}): "
        + (f"injection gate {section['status']}" if section["status"] else section["note"] or "")
        + (
            " — part of the release gate"
            if section["required"]
            else " — not gated (--require-robustness to gate on it)"
        )
    ]
    if section.get("clean_false_positive_rate"):
        out.append(
            f"  clean false-positive rate {rate(section['clean_false_positive_rate'])}; margin "
            f"{section['margin']:.2f}"
        )
    for family, channels in section["families"].items():
        cells = "; ".join(
            f"{ch} {rate(v['attack_success_rate'])} {v['gate']['status']}"
            for ch, v in channels.items()
        )
        out.append(f"  {family}: attack success {cells}")
    for flag in section["flags"]:
        if not flag.startswith("injection:"):
            out.append(f"  flag: {flag}")
    return out
