"""calibrant: calibrate an LLM judge of agent communication against expert labels,
with deterministic safety verdicts kept apart."""

__version__ = "0.1.0"

__all__ = ["__version__"]
