"""The release gate for one criterion: PASS, FAIL or UNDECIDED, with the reasons.

The judge is compared with the experts by the same statistic on both sides
(:mod:`calibrant.agreement.noninferiority`): the mean over experts of kappa(judge, expert_r)
against the mean over expert pairs of kappa(expert_r, expert_s), as a non-inferiority test with a
stated margin on their difference ``D``, from one bootstrap that draws the same cases for both
sides. ``D``'s interval is the usual 95% two-sided one. Its lower end would be a one-sided
97.5% bound if the interval were exact; it is not: BCa ∪ cluster t is anti-conservative for a
difference of kappas at 10-60 cases (D's estimate and its standard error move together): issue
31 measured 0.037 [0.027, 0.051] at 10 cases against the 0.025 that bound promises. So the gate
states the level it holds: **a false PASS at D = -margin of at most 5% (one-sided)**, measured
at 10, 20, 33 and 60 cases, binary and ordinal, with and without not_applicable: 0.004-0.042
over those 16 cells, n = 500 each, the highest 0.042 [0.028, 0.063] (binary, 20 cases). (At
one-sided 95%, a 90% interval, the same benchmark measured 5-8% in half the cells, above that
level.) The false-PASS rate and the power at ``D = 0`` are measured by
``benchmarks/bench_gate.py`` (results/gate.md).

On a criterion that allows not_applicable the quality comparison uses the items both raters of a
pair found applicable, so a judge that never says not_applicable loses nothing there: its
answers on the items the experts call not applicable drop out of every kappa and count as usable
for coverage. The gate therefore compares **applicability** too, by the same structure: Cohen's
kappa of the applies / not-applicable split, judge side against expert side, one case bootstrap,
the same margin. A judge that never says not_applicable has applicability kappa 0 against experts
who agree on it, and FAILs or is UNDECIDED (0 of 500 PASS at 10, 19 and 33 cases with 55% of
items not applicable, against 0.084-0.258 without this part). The price is power where
applicability is hard to tell from few cases: with 20% of items not applicable, a judge as good
as the experts passes 0.082 at 10 cases instead of 0.220, 0.564 at 33 instead of 0.696, 0.868 at
60 instead of 0.900. With ``--no-ceiling`` the judge side's applicability kappa is held to the
bar instead. The part is not checked (and says so) when the experts' own applicability kappa is
undefined, e.g. when no expert found any item not applicable.

The absolute bar (``min_lower``) stays: non-inferiority to experts who agree poorly is no
evidence of a usable judge (two experts at kappa 0.3 let a judge at 0.25 pass), and a criterion
nobody rates reliably should not be gated as if it were. It is read on the lower end of the
judge side's own 95% interval, the same statistic as ``D``.

docs/calibration.md quotes :data:`GATE_RULE` word for word (a test checks it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..contracts.reports.stats import CriterionGate
from .gate_settings import GATE_DEFAULTS, GateSettings
from .noninferiority import PairedComparison
from .resample import BootstrapResult
from .undefined import Undefined

__all__ = [
    "GATE_RULE",
    "GATE_CONFIDENCE",
    "GATE_DEFAULTS",
    "GateSettings",
    "GateDecision",
    "release_gate",
]

Status = Literal["PASS", "FAIL", "UNDECIDED"]

GATE_CONFIDENCE = 0.95
"""Two-sided level of the gate's intervals (each end a nominal one-sided 97.5% bound; the gate's
measured false-PASS rate at D = -margin is at most 5%, its stated level)."""

_TOL = 1e-9  # equal bounds from identical tables must compare equal despite rounding

GATE_RULE = (
    "The judge side is the mean over experts of the judge's kappa with each expert; the expert "
    "side is the mean over expert pairs of their kappa with each other, on the same cases "
    "(one bootstrap draws the same cases for both). PASS only when the judge and an expert "
    "rated items in at least min_cases cases (and at least min_items items), two experts in at "
    "least min_expert_cases cases, coverage reaches min_coverage, the lower end of the 95% "
    "confidence interval of D = judge side - expert side is above -margin (the gate's stated "
    "level: a false PASS at D = -margin at most 5%, one-sided, as measured), and the lower end "
    "of the judge side's 95% interval is at least min_lower. FAIL when coverage is below "
    "min_coverage, the upper end of D's interval is below -margin, or the upper end of the "
    "judge side's interval is below min_lower. UNDECIDED otherwise, including too few cases or "
    "items and any undefined statistic or interval. On a criterion that allows not_applicable, "
    "kappa is computed on the items both raters of a pair found applicable, and applicability "
    "(applies / not_applicable) is gated the same way: the D of the judge's and the experts' "
    "Cohen's kappa on it must have its lower end above -margin to PASS, and FAILs the criterion "
    "when its upper end is below -margin; it is not checked when the experts' own agreement on "
    "it is undefined (e.g. no item they found not applicable). "
    "Coverage is the share of items with a usable judge label: insufficient_evidence, a failed "
    "answer, and not_applicable on an item the consensus rated are not usable."
)


@dataclass(frozen=True)
class GateDecision:
    status: Status
    reasons: tuple[str, ...]
    n: int = 0  # items rated by the judge and at least one expert
    n_cases: int | None = None  # cases holding them
    n_expert_cases: int | None = None
    settings: GateSettings = GateSettings()
    lower: float | None = None  # lower end of D's 95% interval
    upper: float | None = None  # upper end
    applicability_lower: float | None = None  # the same for applicability (criteria with n/a)
    applicability_upper: float | None = None
    applicability_n_cases: int | None = None
    applicability_checked: bool | None = None  # None: the criterion has no not_applicable

    def as_gate(self) -> CriterionGate:
        """The report part: the decision, its reasons and what it was decided on."""
        s = self.settings
        return CriterionGate(
            status=self.status,
            reasons=list(self.reasons),
            n=self.n,
            n_cases=self.n_cases,
            n_expert_cases=self.n_expert_cases,
            min_items=s.min_items,
            min_cases=s.min_cases,
            min_expert_cases=s.min_expert_cases,
            margin=s.margin if s.use_ceiling else None,
            difference_lower_bound=self.lower,
            difference_upper_bound=self.upper,
            applicability_checked=self.applicability_checked,
            applicability_n_cases=self.applicability_n_cases,
            applicability_difference_lower_bound=self.applicability_lower,
            applicability_difference_upper_bound=self.applicability_upper,
            rule=GATE_RULE,
        )


def _bounds(r: BootstrapResult, what: str) -> tuple[float, float] | str:
    if isinstance(r.estimate, Undefined):
        return f"{what} undefined: {r.estimate.reason}"
    if isinstance(r.ci, Undefined):
        return f"{what} interval undefined: {r.ci.reason}"
    return r.ci


@dataclass(frozen=True)
class _Part:
    """The applicability part's verdict: at most one of fail / short / undefined, or a note."""

    fail: str | None = None
    short: str | None = None  # its bound reaches past the threshold
    undefined: str | None = None
    note: str | None = None  # passed, or not checked


_WHAT = "applicability (applies / not_applicable)"


def _applicability(a: PairedComparison, s: GateSettings) -> tuple[_Part, dict[str, object]]:
    """The applicability part: Cohen's kappa on applies / not_applicable, judge side against
    expert side (with the ceiling) or the judge side against the bar (``--no-ceiling``)."""
    fields: dict[str, object] = {"applicability_n_cases": a.n_cases}
    side = a.experts if s.use_ceiling else a.judge
    if isinstance(side.estimate, Undefined):
        fields["applicability_checked"] = False
        return _Part(note=f"{_WHAT} not checked: {side.estimate.reason}"), fields
    fields["applicability_checked"] = True
    if not s.use_ceiling:
        judge = _bounds(a.judge, f"{_WHAT}: judge side")
        if isinstance(judge, str):
            return _Part(undefined=judge), fields
        if judge[1] < s.min_lower:
            return _Part(
                fail=f"{_WHAT}: judge side's upper bound {judge[1]:.2f} < the bar {s.min_lower}"
            ), fields
        if judge[0] < s.min_lower - _TOL:
            return _Part(
                short=f"{_WHAT}: judge side's lower bound {judge[0]:.2f} < the bar {s.min_lower}"
            ), fields
        return _Part(note=f"{_WHAT}: judge side's lower bound {judge[0]:.2f} ≥ the bar"), fields
    diff = _bounds(a.difference, f"{_WHAT}: difference D")
    if isinstance(diff, str):
        return _Part(undefined=diff), fields
    fields["applicability_lower"], fields["applicability_upper"] = diff
    if diff[1] < -s.margin:
        return _Part(
            fail=f"{_WHAT}: D's upper bound {diff[1]:+.2f} < -margin {-s.margin:+.2f}"
        ), fields
    if diff[0] <= -s.margin + _TOL:
        return _Part(
            short=f"{_WHAT}: D's lower bound {diff[0]:+.2f} ≤ -margin {-s.margin:+.2f}"
        ), fields
    return _Part(note=f"{_WHAT}: D's lower bound {diff[0]:+.2f} > -margin {-s.margin:+.2f}"), (
        fields
    )


def release_gate(
    comparison: PairedComparison,
    *,
    coverage: float,
    settings: GateSettings,
    applicability: PairedComparison | None = None,
) -> GateDecision:
    """Decide the gate for one criterion by :data:`GATE_RULE` (``comparison`` at
    :data:`GATE_CONFIDENCE`). ``applicability``: the same comparison on the applies /
    not_applicable split, for a criterion that allows not_applicable (``None`` otherwise)."""
    s = settings
    n, cases = comparison.n_items, comparison.n_cases
    bounds: dict[str, object] = {"lower": None, "upper": None}
    app = _Part()
    if applicability is not None:
        app, app_fields = _applicability(applicability, s)
        bounds.update(app_fields)

    def decide(status: Status, *reasons: str) -> GateDecision:
        return GateDecision(
            status,
            reasons,
            n=n,
            n_cases=cases,
            n_expert_cases=comparison.n_expert_cases,
            settings=s,
            **bounds,  # type: ignore[arg-type]
        )

    few = []
    if cases is not None and cases < s.min_cases:
        few.append(f"only {cases} case(s) with an item rated by the judge and an expert")
        few[-1] += f", below the minimum of {s.min_cases} (--min-cases)"
    if n < s.min_items:
        few.append(
            f"only {n} item(s) rated by both the judge and an expert, below the minimum of "
            f"{s.min_items} (--min-items)"
        )
    ec = comparison.n_expert_cases
    if s.use_ceiling and comparison.n_experts >= 2 and ec is not None and ec < s.min_expert_cases:
        few.append(
            f"the experts' side rests on {ec} case(s) rated by two experts, below the minimum "
            f"of {s.min_expert_cases} (--min-expert-cases)"
        )
    if few:
        return decide("UNDECIDED", "; ".join(few) + ": too few to decide")
    if coverage < s.min_coverage:
        return decide(
            "FAIL",
            f"the judge gave a usable label on {coverage:.0%} of items, below {s.min_coverage:.0%}",
        )
    judge = _bounds(comparison.judge, "judge side")
    if isinstance(judge, str):
        return decide("UNDECIDED", judge)
    diff: tuple[float, float] | str | None = None
    if s.use_ceiling:
        diff = _bounds(comparison.difference, "difference D")
        if not isinstance(diff, str):
            bounds["lower"], bounds["upper"] = diff
    fail = []
    if judge[1] < s.min_lower:
        fail.append(f"judge side's upper bound {judge[1]:.2f} < the bar {s.min_lower}")
    if isinstance(diff, tuple) and diff[1] < -s.margin:
        fail.append(f"D's upper bound {diff[1]:+.2f} < -margin {-s.margin:+.2f}")
    if app.fail:
        fail.append(app.fail)
    if fail:
        return decide("FAIL", "; ".join(fail))
    if isinstance(diff, str):
        return decide(
            "UNDECIDED",
            f"{diff}; the gate does not fall back to the absolute bar alone (use --no-ceiling "
            "to gate on it deliberately)",
        )
    short = []
    if judge[0] < s.min_lower - _TOL:
        short.append(f"judge side's lower bound {judge[0]:.2f} < the bar {s.min_lower}")
    if diff is not None and diff[0] <= -s.margin + _TOL:
        short.append(f"D's lower bound {diff[0]:+.2f} ≤ -margin {-s.margin:+.2f}")
    if app.undefined:
        return decide("UNDECIDED", app.undefined)
    if app.short:
        short.append(app.short)
    if short:
        return decide("UNDECIDED", "; ".join(short) + " while the interval reaches past it")
    passed = [f"judge side's lower bound {judge[0]:.2f} ≥ the bar {s.min_lower}"]
    if diff is not None:
        passed.insert(0, f"D's lower bound {diff[0]:+.2f} > -margin {-s.margin:+.2f}")
    if app.note:
        passed.append(app.note)
    return decide("PASS", "; ".join(passed))
