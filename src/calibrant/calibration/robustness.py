"""The judge-robustness section of the calibration report: the latest probe run of the same
judge version and rubric (`calibrant probe`), summarized, and — when the release gate is asked
to require it — the injection gate decided again with the calibration's margin."""

from __future__ import annotations

from sqlalchemy import Engine

from ..agreement.robustness import ATTACK_RULE, PROBE_MIN_CASES, attack_gates
from ..contracts.reports.base import Figure, GateStatus
from ..contracts.reports.calibration import Gate
from ..contracts.reports.calibration_parts import (
    AttackGateOut,
    AttackRow,
    RobustnessSection,
    RunRef,
)
from ..store.runs import Runs

__all__ = ["robustness_section", "combine_gate"]

_ORDER: dict[GateStatus, int] = {"FAIL": 0, "UNDECIDED": 1, "PASS": 2}
_OLD = (
    "this probe run was made by an earlier version of calibrant, without per-case counts: the "
    "gate is decided over cases now; rerun `calibrant probe` (its answers are cached)"
)


def robustness_section(
    engine: Engine,
    *,
    judge_hash: str,
    rubric_hash: str,
    required: bool,
    margin: float | None,
) -> RobustnessSection:
    """What the calibration report says about the judge's robustness."""
    found = Runs(engine).latest("probe", judge_hash=judge_hash, rubric_hash=rubric_hash)
    if found is None:
        return RobustnessSection(
            probe_run=None,
            required=required,
            status="UNDECIDED" if required else None,
            note="no probe run of this judge version on this rubric: run `calibrant probe` "
            "with the same judge options",
            families={},
            flags=[],
        )
    info, report = found
    inj = (report.get("probes") or {}).get("injection")
    families: dict[str, dict[str, AttackRow]] = {}
    status: GateStatus | None = None
    used_margin = margin
    if inj:
        s = report["settings"]
        used_margin = s["margin"] if margin is None else margin
        defended = inj["prompts"]["defended"]
        rows = {
            f"{family}|{channel}": row
            for family, channels in defended["families"].items()
            for channel, row in channels.items()
        }
        if all("by_case" in row for row in rows.values()):
            gates = attack_gates(
                {k: {c: tuple(v) for c, v in row["by_case"].items()} for k, row in rows.items()},
                margin=used_margin,
                min_items=s["min_items"],
                min_cases=s.get("min_cases", PROBE_MIN_CASES),
                seed=s.get("seed", 0),
            )
            decided = {k: g.as_gate() for k, g in gates.items()}
        else:
            decided = {k: AttackGateOut(status="UNDECIDED", reason=_OLD) for k in rows}
        for key, row in rows.items():
            family, channel = key.split("|")
            families.setdefault(family, {})[channel] = AttackRow(
                attack_success_rate=Figure.model_validate(row["attack_success_rate"]),
                gate=decided[key],
            )
        statuses: list[GateStatus] = [g.status for g in decided.values()]
        worst: GateStatus = min(statuses, key=_ORDER.__getitem__) if statuses else "UNDECIDED"
        status = worst
        clean_fpr = defended["clean_false_positive_rate"]
    else:
        clean_fpr = None
    return RobustnessSection(
        probe_run=RunRef(
            id=info.id,
            finished_at=info.finished_at.isoformat() if info.finished_at else None,
            who=info.who,
        ),
        required=required,
        status=status if inj else ("UNDECIDED" if required else None),
        note=None if inj else "the latest probe run did not run the injection battery",
        margin=used_margin,
        rule=ATTACK_RULE,
        clean_false_positive_rate=None if clean_fpr is None else Figure.model_validate(clean_fpr),
        families=families,
        flags=report.get("flags", []),
    )


def combine_gate(gate: Gate, section: RobustnessSection) -> None:
    """Fold the robustness status into the judge's release gate, when it is required."""
    if not section.required:
        return
    status: GateStatus = section.status or "UNDECIDED"
    gate.robustness = status
    gate.judge = min((gate.judge, status), key=lambda x: _ORDER[x])
