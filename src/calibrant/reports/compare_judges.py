"""Rendering the comparison of two judge versions on the gold set (`calibrant compare`): the
judges and the gold set, a table per criterion (kappa of A and B, the paired difference, the
family-wise interval, McNemar, the decision, what would settle it), the reasons, the overall
decision and the regressions; and the one line said when a judge got no verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from .fit import fit

if TYPE_CHECKING:
    from ..contracts.reports import ComparisonReport
    from ..contracts.reports.compare import ComparisonCriterion

__all__ = ["render_judge_comparison", "unmeasured_line"]

COLUMNS = (
    "criterion",
    "n",
    "A",
    "B",
    "B - A [95% CI]",
    "family-wise interval",
    "McNemar A-only/B-only, p",
    "decision",
    "to settle",
)


def _needed(c: ComparisonCriterion) -> str:
    """Cases in all that would likely settle the call (reports before v2: items to add)."""
    if c.decision != "undecided":
        return "—"
    if "cases_needed" in c.model_fields_set:
        return "—" if c.cases_needed is None else f"{c.cases_needed} cases"
    old = c.more_items_to_settle
    return "—" if old is None else f"+{old} items (old report)"


def _size(c: ComparisonCriterion) -> str:
    return f"{c.n} items, {c.n_cases} cases" if "n_cases" in c.model_fields_set else f"{c.n} items"


def _familywise(c: ComparisonCriterion) -> str:
    ci, level = c.familywise_ci, c.familywise_confidence
    if not ci or level is None:
        return "—"
    return f"[{ci[0]:+.2f}, {ci[1]:+.2f}] at {level:.1%}"


def _k(v: float | None) -> str:
    return "undefined" if v is None else f"{v:.2f}"


def _row(c: ComparisonCriterion) -> tuple[str, ...]:
    """One criterion's row of the table."""
    diff = "undefined" if c.difference is None else f"{c.difference:+.2f}"
    if c.ci95:
        diff += f" [{c.ci95[0]:+.2f}, {c.ci95[1]:+.2f}]"
    elif c.difference is not None:
        diff += " (no interval)"
    m = c.mcnemar
    colour = {"B better": "green", "B worse": "red"}.get(c.decision, "default")
    return (
        c.criterion,
        _size(c),
        _k(c.kappa_a),
        _k(c.kappa_b),
        diff,
        _familywise(c),
        f"{m.a_only_right}/{m.b_only_right}, p={m.p_value:.3f}",
        f"[{colour}]{c.decision}[/{colour}]",
        _needed(c),
    )


def _regressions(console: Console, report: ComparisonReport) -> None:
    """Per criterion, the items B got wrong where A was right (the first ten)."""
    for c in report.criteria:
        regress = [f for f in c.flips if f.direction == "regression"]
        if not regress:
            continue
        console.print(f"\n[red]Regressions on {c.criterion}[/red] ({len(regress)}):")
        for f in regress[:10]:
            console.print(
                f"  {f.item} ({f.case}): consensus {f.consensus}, A {f.a} — "
                f"{f.rationale_a}; B {f.b} — {f.rationale_b}",
                highlight=False,
                markup=False,
            )
        if len(regress) > 10:
            console.print(f"  … {len(regress) - 10} more in --json")


def render_judge_comparison(console: Console, report: ComparisonReport, a: str, b: str) -> None:
    """The comparison of judge `b` against judge `a` on the terminal (a report of any schema
    version: what an older one did not record is said so)."""
    ja, jb = report.judges["a"], report.judges["b"]
    gold = report.gold
    cases = f", {gold.cases} cases" if "cases" in gold.model_fields_set else ""
    console.print(
        f"[bold]Judge B '{b}'[/bold] ({jb.model}, {jb.hash[:12]}) against "
        f"[bold]A '{a}'[/bold] ({ja.model}, {ja.hash[:12]}) on "
        f"{gold.items} gold items{cases} ({gold.split}); {report.interval}"
    )
    table = Table(title="Per criterion (kappa against the consensus)", title_justify="left")
    for col in COLUMNS:
        table.add_column(col)
    for c in report.criteria:
        table.add_row(*_row(c))
    console.print(fit(console, table))
    for c in report.criteria:
        if c.reason:
            console.print(f"{c.criterion}: {c.reason}", highlight=False)
    console.print(f"[bold]Overall:[/bold] {report.overall} ({report.decision_rule})")
    _regressions(console, report)


def unmeasured_line(report: ComparisonReport, name: str, cause: str | None) -> str:
    """The one line said when judge `name` got no verdict on any gold item (`cause`: the first
    error)."""
    return (
        f"calibrant: no gold item got a verdict from judge '{name}' "
        f"({report.gold.items} items); nothing was compared, so no decision"
        + (f"; first error: {cause}" if cause else "")
    )
