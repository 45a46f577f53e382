"""The gate's thresholds and their defaults, in a module of their own that imports nothing: the
command line reads the defaults for its options without loading the statistics."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GATE_DEFAULTS", "GateSettings"]


@dataclass(frozen=True)
class GateSettings:
    """Thresholds of the gate (all configurable). Its defaults, `GATE_DEFAULTS`, are the only
    place they are stated: the CLI's options, the service's calibrate job and the docs read
    them (a test holds docs/calibration.md to them)."""

    min_lower: float = 0.6
    min_coverage: float = 0.8
    use_ceiling: bool = True
    min_items: int = 20
    min_cases: int = 8
    min_expert_cases: int = 8
    margin: float = 0.10


GATE_DEFAULTS = GateSettings()
"""The gate's default thresholds."""
