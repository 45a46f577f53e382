"""Rendering rater-only agreement."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..contracts.reports.agreement_parts import AgreeReport, RaterPair
from .fit import fit

__all__ = ["render_agreement"]


def _f(v: float | None) -> str:
    return "undefined" if v is None else f"{v:.2f}"


def _ci(ci: list[float] | None) -> str:
    return f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else " [CI undefined]"


def _weighted_ci(p: RaterPair) -> str:
    """The weighted kappa's own interval; a report stored before it had one says so rather
    than borrowing the unweighted kappa's."""
    if "weighted_kappa_ci95" not in p.model_fields_set:
        return " [no CI in this stored report]"
    return _ci(p.weighted_kappa_ci95)


def _named(raters: list[str | int]) -> str:
    return " vs ".join(map(str, raters))


def _why_undefined(p: RaterPair, level: str) -> dict[str, str]:
    """What the pair's undefined values are, the interval of an undefined estimate folded in."""
    why = dict(p.why_undefined)
    if level == "nominal":
        why.pop("weighted_kappa", None)  # the table already says n/a (nominal)
    ci = next((k for k in why if k.startswith("ci")), None)
    if ci is not None and "cohen_kappa" in why:
        del why[ci]  # the interval is undefined because the estimate is
        why["cohen_kappa and its CI"] = why.pop("cohen_kappa")
    if "weighted_kappa" in why and why.pop("weighted_kappa_ci95", None) is not None:
        why["weighted_kappa and its CI"] = why.pop("weighted_kappa")
    return why


def render_agreement(console: Console, report: AgreeReport) -> None:
    console.print(
        f"[bold]Agreement among raters[/bold] — bootstrap {report.n_resamples} "
        f"resamples ({report.bootstrap}), seed {report.seed}"
    )
    for crit, c in report.criteria.items():
        t = Table(
            title=f"{crit} ({c.level}; {c.n_items} items; Fleiss κ "
            f"{_f(c.fleiss_kappa)}, Krippendorff α {_f(c.krippendorff_alpha)})",
            title_justify="left",
        )
        for col in ("raters", "n", "Cohen κ [95% CI]", "linear-weighted κ [95% CI]"):
            t.add_column(col)
        for p in c.pairs:
            t.add_row(
                _named(p.raters),
                str(p.n),
                _f(p.cohen_kappa) + _ci(p.ci95),
                "n/a (nominal)" if c.level == "nominal" else _f(p.weighted_kappa) + _weighted_ci(p),
            )
        console.print(fit(console, t))
        for p in c.pairs:
            for key, text in _why_undefined(p, c.level).items():
                console.print(
                    f"  {key} of {_named(p.raters)} undefined: {text}",
                    markup=False,
                    highlight=False,
                )
        for key, why in c.why_undefined.items():
            console.print(f"  {key} undefined: {why}", markup=False, highlight=False)
        na = c.not_applicable
        if na:
            counts = ", ".join(f"{k} {v}" for k, v in na.n_items_by_rater.items()) or "none"
            console.print(f"  not_applicable (outside the ordered levels): {counts}", markup=False)
        if c.abstentions:
            console.print(
                "  cant_tell (left out): " + ", ".join(f"{k} {v}" for k, v in c.abstentions.items())
            )
