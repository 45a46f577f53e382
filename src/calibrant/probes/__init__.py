"""Judge robustness: an injection battery and bias probes run against any judge (or a planted
one, to test the tester). Attack families and probes are registered by decorator."""

from .base import AttackContext, ProbeContext, ProbeSettings, Request
from .planted import PLANTED
from .registry import ATTACKS, PROBES, attack, probe
from .run import collect_requests, default_probes, probe_report, run_probes

__all__ = [
    "ATTACKS",
    "PLANTED",
    "PROBES",
    "AttackContext",
    "ProbeContext",
    "ProbeSettings",
    "Request",
    "attack",
    "collect_requests",
    "default_probes",
    "probe",
    "probe_report",
    "run_probes",
]
