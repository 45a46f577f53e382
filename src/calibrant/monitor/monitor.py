"""The drift monitor: three anytime-valid rules per criterion, updated window by window.

Per criterion, from the release baseline (:class:`CriterionBaseline`):

1. **below the gate** — the audit sample (expert and judge labels on scored cases of the window):
   a :class:`~calibrant.monitor.eprocess.KappaEProcess` for ``H0: case-weighted kappa ≥ the
   bar``. The bar is the gate's (``GateSettings.min_lower``, 0.6) lowered by the drop in the
   released judge's expected kappa that prevalence alone explains: the release confusion table's
   answer rates given each expert label, at the experts' label shares of the last windows' audits
   against the release's (``CriterionBaseline.expected_kappa``). Kappa falls when the product's
   pass rate moves even if the judge does not; that alone is not an alarm, and the reasons say
   when the bar was lowered.
2. **label shift** — the judged labels of the window's scored cases against the first
   ``reference_windows`` windows of traffic: a two-sample
   :class:`~calibrant.monitor.eprocess.ShiftEProcess` (the reference's own sampling error is in
   the null; it fires at ``1 / (alpha - alpha/2)``).
3. **judge or product** — the anchors, a frozen set of expert-labeled cases re-scored by the
   current judge each window: a KappaEProcess for ``H0: case-weighted kappa on the anchors ≥
   its release value - tolerance`` (the gate's margin, 0.10), the release value pooled over the
   release's scorings of the whole set (``anchor_scorings``), so a judge whose answers vary on
   re-scoring is the null. When it fires the verdict is ``judge_changed``; so is it when the
   judge's label shares on the anchors move from the release scorings' (``anchor_reference``:
   rule 2's two-sample test with the release as its reference). A further e-process on
   the same anchors tests the opposite, ``H0: kappa ≤ release - tolerance`` (the judge changed by
   the tolerance), counted from where the shift's evidence is under way: a label shift is
   ``product_changed`` only once that one fires (the anchors rule out a judge change of the
   tolerance's size) while the first one's evidence for a change is below half its alarm (on
   the log scale), ``shift_unexplained`` before, and ``shift_unexplained`` without anchors or
   with an anchor set smaller than ``min_anchor_cases`` cases (the rule does not run, and the
   reasons say so).

Each rule alarms when its e-value reaches its threshold; an alarm stays raised (it names the
window it fired in). The anchor cases of a window must be drawn at random, with replacement,
from the frozen set (:func:`draw_anchors`), so two of them are independent draws as the e-process
assumes.

The inputs, baseline, settings and statuses are in :mod:`calibrant.monitor.model`; the anchors'
draw in :mod:`calibrant.monitor.anchors`; a criterion's rules in :mod:`calibrant.monitor.state`,
its status, verdicts and reasons after a window in :mod:`calibrant.monitor.verdicts`.
:class:`Monitor` holds the state, which round-trips through :meth:`Monitor.state` (its JSON:
``.json_data()``) / :meth:`Monitor.from_dict` (a state written before issue 31 upgrades), so a
command can run it once a window.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from calibrant.errors import InputError

from .anchors import anchor_kappa, anchor_reference, draw_anchors
from .eprocess import CaseCodes, KappaEProcess, ShiftEProcess
from .model import (
    Case,
    CriterionBaseline,
    CriterionStatus,
    MonitorSettings,
    MonitorStatus,
    RuleStatus,
    Verdict,
    Window,
)
from .state import _Criterion
from .state_data import MonitorSettingsState, MonitorState
from .verdicts import _status

__all__ = [
    "Case",
    "CriterionBaseline",
    "CriterionStatus",
    "Monitor",
    "MonitorSettings",
    "MonitorStatus",
    "RuleStatus",
    "Verdict",
    "Window",
    "anchor_kappa",
    "anchor_reference",
    "draw_anchors",
]

PREVALENCE_PRIOR = 4.0  # cases: the audits' expert shares are smoothed toward the release's
STATE_VERSION = 2  # 1: the shift rule against the gold shares taken as exact (upgraded)


class Monitor:
    """Drift monitor state for one judge version; :meth:`update` once per window."""

    def __init__(
        self,
        baseline: Mapping[str, CriterionBaseline],
        settings: MonitorSettings | None = None,
    ) -> None:
        self.settings = settings or MonitorSettings()
        self.windows: list[str] = []
        self._criteria: dict[str, _Criterion] = {}
        s = self.settings
        for name, b in baseline.items():
            k = len(b.labels)
            if k < 2 or len(set(b.labels)) != k:
                raise ValueError(f"criterion '{name}': labels must be ≥ 2 distinct, got {b.labels}")
            if len(b.judged_shares) != k:
                raise ValueError(
                    f"criterion '{name}': {len(b.judged_shares)} judged shares for {k} labels"
                )
            anchors = held = anchor_shift = None
            if b.anchor_kappa is not None and not self._too_few(b):
                bar = b.anchor_kappa - s.anchor_tolerance
                anchors = KappaEProcess(bar, k, b.ordinal, memory=s.memory)
                held = KappaEProcess(bar, k, b.ordinal, memory=s.memory, above=True)
                anchor_shift = self._anchor_shift(b)
            self._criteria[name] = _Criterion(
                baseline=b,
                agreement=KappaEProcess(s.gate_kappa, k, b.ordinal, memory=s.memory),
                shift=self._shift(k),
                anchors=anchors,
                held=held,
                anchor_shift=anchor_shift,
            )

    def _anchor_shift(self, b: CriterionBaseline) -> ShiftEProcess | None:
        """The judge's label shares on the anchors against the release scorings' (a sample of
        the judge's answers too): rule 2's two-sample test with the release as its reference."""
        ref = b.anchor_reference
        if ref is None or len(ref) != len(b.labels) + 1 or ref[-1] < 1:
            return None
        s = self.settings
        e = ShiftEProcess(len(b.labels), s.anchor_shift_delta, reference_windows=1, memory=s.memory)
        e.reference = [float(x) for x in ref]
        e.reference_seen = 1
        e._arm()
        return e

    def _shift(self, k: int) -> ShiftEProcess:
        s = self.settings
        return ShiftEProcess(
            k, s.shift_delta, reference_windows=s.reference_windows, memory=s.memory
        )

    def _too_few(self, b: CriterionBaseline) -> bool:
        return b.anchor_cases is not None and b.anchor_cases < self.settings.min_anchor_cases

    def _bar(self, c: _Criterion) -> float:
        """Rule 1's bar for the next window: the gate's, lowered by the drop in the released
        judge's expected kappa that the experts' label shares in the last windows' audits
        explain (prevalence alone), never raised."""
        gate = self.settings.gate_kappa
        b = c.baseline
        release = b.release_prevalence()
        if release is None or not c.experts:
            return gate
        k = len(b.labels)
        sums = [sum(x[i] for x in c.experts) for i in range(k + 1)]
        prior = PREVALENCE_PRIOR
        now = [(sums[i] + prior * release[i]) / (sums[k] + prior) for i in range(k)]
        at_release, at_now = b.expected_kappa(release), b.expected_kappa(now)
        if at_release is None or at_now is None:
            return gate
        return max(gate - max(at_release - at_now, 0.0), -0.99)

    @property
    def criteria(self) -> tuple[str, ...]:
        return tuple(self._criteria)

    # -- input checks -----------------------------------------------------------------------

    def _codes(
        self, window: Window, part: str, criterion: str, cases: Sequence[Case], *, expert: bool
    ) -> list[CaseCodes]:
        where = f"window '{window.name}'"
        c = self._criteria.get(criterion)
        if c is None:
            raise InputError(
                where,
                f"criterion '{criterion}' is not in the baseline ({', '.join(self._criteria)})",
                field=f"{part}.{criterion}",
            )
        index = {label: i for i, label in enumerate(c.baseline.labels)}
        allowed = ", ".join(c.baseline.labels)
        out: list[CaseCodes] = []
        for n, case in enumerate(cases):
            at = f"{part}.{criterion}[{n}]"
            if not case.judge:
                raise InputError(where, f"case '{case.case}' has no item", field=f"{at}.judge")
            sides: list[tuple[str, tuple[str, ...]]] = [("judge", case.judge)]
            if expert:
                if case.expert is None or len(case.expert) != len(case.judge):
                    got = "no" if case.expert is None else str(len(case.expert))
                    raise InputError(
                        where,
                        f"case '{case.case}' has {len(case.judge)} judge label(s) and {got} "
                        "expert label(s); an audited or anchor case needs one of each per item",
                        field=f"{at}.expert",
                    )
                sides.append(("expert", case.expert))
            codes: list[tuple[int, ...]] = []
            for side, labels in sides:
                for i, label in enumerate(labels):
                    if label not in index:
                        raise InputError(
                            where,
                            f"unknown label {label!r} for criterion '{criterion}' in case "
                            f"'{case.case}' (item {i + 1}); the baseline's labels are {allowed}",
                            field=f"{at}.{side}",
                        )
                codes.append(tuple(index[label] for label in labels))
            out.append((codes[0], codes[-1]))
        return out

    # -- one window -------------------------------------------------------------------------

    def update(self, window: Window) -> MonitorStatus:
        """Enter one window and return every criterion's status. The window is checked whole
        before any state changes: a bad window raises :class:`InputError` (naming the window,
        the field and the label) and leaves the monitor as it was."""
        if window.name in self.windows:
            raise InputError(
                f"window '{window.name}'", "this window was already entered", field="name"
            )
        audit = {
            c: self._codes(window, "audit", c, v, expert=True) for c, v in window.audit.items()
        }
        anchors = {
            c: self._codes(window, "anchors", c, v, expert=True) for c, v in window.anchors.items()
        }
        scored = {
            c: [j for j, _ in self._codes(window, "scored", c, v, expert=False)]
            for c, v in window.scored.items()
        }
        for crit in anchors:
            if self._criteria[crit].baseline.anchor_kappa is None:
                raise InputError(
                    f"window '{window.name}'",
                    f"anchor cases for criterion '{crit}', whose baseline has no anchor_kappa",
                    field=f"anchors.{crit}",
                )
        self.windows.append(window.name)
        statuses = {}
        for name, c in self._criteria.items():
            bar = self._bar(c)
            ts: list[float] = []
            if name in audit:
                ts = c.agreement.update(audit[name], kappa0=bar)
                k = len(c.baseline.labels)
                this = [0.0] * (k + 1)
                for _, expert_codes in audit[name]:
                    for code in expert_codes:
                        this[code] += 1 / len(expert_codes)
                    this[k] += 1
                c.experts = [*c.experts, this][-self.settings.memory :]
            t = sum(ts) / len(ts) if ts else None
            if name in scored:
                c.shift.update(scored[name])
            if c.anchors is not None and name in anchors:
                c.anchors.update(anchors[name])
                if c.held is not None:
                    c.held.update(anchors[name])
                if c.anchor_shift is not None:
                    c.anchor_shift.update([j for j, _ in anchors[name]])
            if (
                c.held is not None
                and "shift" not in c.fired
                and c.shift.log_e < math.log(self.settings.shift_threshold) / 2
            ):
                # the anchors' evidence for the judge counts only from where the shift's
                # evidence is under way (half the way to its alarm, on the log scale): earlier
                # anchors say nothing of a judge that changed with the shift
                c.held.log_e = 0.0
                c.fired.pop("held", None)
            statuses[name] = _status(self.settings, name, c, window.name, t, scored.get(name), bar)
        return MonitorStatus(window.name, len(self.windows), statuses)

    # -- state ------------------------------------------------------------------------------

    def state(self) -> MonitorState:
        s = self.settings
        return MonitorState(
            state_version=STATE_VERSION,
            settings=MonitorSettingsState(
                alpha=s.alpha,
                gate_kappa=s.gate_kappa,
                anchor_tolerance=s.anchor_tolerance,
                memory=s.memory,
                reference_windows=s.reference_windows,
                min_anchor_cases=s.min_anchor_cases,
            ),
            windows=list(self.windows),
            criteria={k: c.state() for k, c in self._criteria.items()},
        )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Monitor:
        """The state of :meth:`state`, as its JSON (`state().json_data()`); a version-1 state
        (the shift rule against the gold shares taken as exact) is upgraded: its shift rule
        starts again, collecting its reference from the next windows, its other rules continue,
        and the anchors' check that rules out a judge change starts."""
        version = d.get("state_version")
        if version not in (1, STATE_VERSION):
            raise ValueError(f"monitor state version {version!r}, expected {STATE_VERSION}")
        settings = MonitorSettings(**d["settings"])
        m = cls({}, settings)
        m.windows = [str(w) for w in d["windows"]]
        if version == STATE_VERSION:
            m._criteria = {str(k): _Criterion.from_dict(v) for k, v in d["criteria"].items()}
            return m
        for name, v in d["criteria"].items():
            b = CriterionBaseline.from_dict(v["baseline"])
            anchors = None if v["anchors"] is None else KappaEProcess.from_dict(v["anchors"])
            held = None
            if anchors is not None:
                held = KappaEProcess(
                    anchors.kappa0, anchors.k, anchors.ordinal, memory=anchors.memory, above=True
                )
            fired = {str(r): str(w) for r, w in v["fired"].items() if r != "shift"}
            m._criteria[str(name)] = _Criterion(
                baseline=b,
                agreement=KappaEProcess.from_dict(v["agreement"]),
                shift=m._shift(len(b.labels)),
                anchors=anchors,
                held=held,
                fired=fired,
            )
        return m
