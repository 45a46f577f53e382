"""Two e-processes for a judge after release, each valid under optional stopping.

An e-process here is a nonnegative process that starts at 1 and is a supermartingale while its
null hypothesis holds, whatever the monitor saw before. By Ville's inequality the chance that it
*ever* reaches ``1/alpha`` under the null is at most ``alpha``: the monitor may be looked at
every window, for as long as one likes, and stopped whenever, without the false-alarm rate
growing with the number of looks (a z-test at 0.05 per look false-alarms on most of a year of
weekly looks; ``benchmarks/bench_drift.py`` measures both).

**The unit is the case.** Items of one case (several transcripts of one conversation, or the
criteria read on one transcript) move together; treating them as independent makes any test too
eager. Both processes below take whole cases, and what they assume independent, given the past,
is one case from another.

:class:`KappaEProcess` — *is agreement below a bar?* The monitored statistic is the
**case-weighted kappa**: Cohen's kappa (or, on an ordinal scale, linear-weighted kappa, the
gate's statistic) with every case counted once: observed agreement ``p_o`` is the mean over
cases of the case's mean agreement weight, and chance agreement ``p_e = a' W b`` uses the
case-averaged label shares ``a`` (judge) and ``b`` (expert). On cases of equal size it is the
gate's pooled kappa; otherwise it gives each case the same say, as the case bootstrap of the
gate's interval does. Kappa is not a mean of independent terms (``p_e`` is a product of two
means), so the process does not bet on kappa estimates. It bets on

    T = p̂_o - κ0 - (1 - κ0) · p̂_e,    p̂_e = mean over ordered pairs of *different* cases
                                            (c, c') of  a_c' W b_c'

computed over two cases at a time: the cases of a window are taken in pairs, in the order given.
Two different cases are independent, so the cross-case term estimates ``a' W b`` without bias,
and ``E[T] = (1 - p_e)(κ - κ0)``: negative exactly when the case-weighted kappa is below ``κ0``
(``tests/monitor`` checks this exactly by enumeration). Under the null ``κ ≥ κ0`` the factor
``1 - λ T``, with a bet ``λ ≥ 0`` fixed before the pair is seen, has mean at most 1, so the
running product is a test supermartingale. ``T`` lies in ``[-1, 1 - κ0]`` and
``λ ≤ 0.8 / (1 - κ0)``, so one pair never cuts the e-value below a fifth. A pair rather than a
whole window is the unit of a bet because a bounded factor caps what one bet can win: with one
bet per window a judge 0.1 below the bar needs about half a year of weekly windows to reach
``1/alpha`` whatever the data say. The bet follows the ``T`` of the last windows' pairs (a
shrunken mean over variance, "aGRAPA"): when agreement sits above the bar it bets nothing and
the e-value stays where it is, so a judge that is fine for half a year does not start its
decline from far below 1. A case left without a partner waits for the next window.

The chance term is what makes this kappa and not raw agreement: a judge whose labels drift
towards the majority label keeps its raw agreement where the majority is large and loses kappa,
and a shift in the case mix moves ``p_e`` and the bar with it. Fixing ``p_e`` at its release
value instead would test raw agreement against a bar that no longer means the gate's kappa once
the label rates move.

:class:`ShiftEProcess` — *did the judged label distribution move?* A two-sample test: the
baseline is itself a sample. The first ``reference_windows`` windows of scored cases are the
reference (nothing is tested on them); null: every later case's expected judged label shares
equal the reference cases' (unknown) ones, ``p``. For every fixed ``p`` the product over later
cases of ``Σ_k x_ck q_k / p_k`` (``x_c`` the case's shares, ``q`` the recent cases' shares
smoothed toward the reference's, known before ``c`` is) is a test martingale ``M^p``: one factor
per case, mean exactly 1 under ``p``. ``p`` is not known, so the rule reads ``inf_p M^p`` over an
interval that holds ``p`` with probability ``1 - delta`` (the reference's mean share, a
Chernoff-Hoeffding bound valid for any case shares in [0, 1]); then it can reach ``1/(alpha -
delta)`` only if the interval misses (``delta``) or ``M^p`` at the true ``p`` does (``alpha -
delta``, Ville). ``log M^p`` is convex in ``p`` (a sum of logs of sums of log-convex ``1/p_k``),
so it is kept at 33 points of the interval with its slope, and the minimum between two points is
bounded below by where the two tangents meet: the reported log e-value is never above the true
``inf``. Two labels test the second label's share; more test each label's share against the rest
and average the e-values (an average of test martingales is one). Taking the gold set's judged
shares as exact instead (the rule before issue 31) fired in .82 of runs with no change at all.
"""

from __future__ import annotations

from .evalue import LOG_E_CAP, CaseCodes, capped_e_value
from .kappa import KappaEProcess, agreement_weights, case_weighted_kappa, window_statistic
from .shift import ShiftEProcess, kl_interval

__all__ = [
    "CaseCodes",
    "LOG_E_CAP",
    "capped_e_value",
    "kl_interval",
    "KappaEProcess",
    "ShiftEProcess",
    "agreement_weights",
    "case_weighted_kappa",
    "window_statistic",
]
