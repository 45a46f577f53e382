"""The gate's defaults are stated once (`GATE_DEFAULTS`): `calibrate`'s options, the service's
calibrate job and docs/calibration.md all say the same numbers."""

from __future__ import annotations

import re

import pytest
import typer

from calibrant.agreement.gate_settings import GATE_DEFAULTS
from calibrant.cli.app import app
from calibrant.ops.jobs import CalibrateParams
from tests.conftest import ROOT

DOC = ROOT / "docs" / "calibration.md"
OPTIONS = {
    "--min-lower": "min_lower",
    "--min-coverage": "min_coverage",
    "--min-items": "min_items",
    "--min-cases": "min_cases",
    "--min-expert-cases": "min_expert_cases",
    "--margin": "margin",
}


def _number(text: str) -> float:
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def test_calibrate_options_default_to_the_gate_settings() -> None:
    command = typer.main.get_command(app).commands["calibrate"]  # type: ignore[attr-defined]
    defaults = {opt: p.default for p in command.params for opt in p.opts if opt in OPTIONS}
    assert defaults == {opt: getattr(GATE_DEFAULTS, f) for opt, f in OPTIONS.items()}


def test_the_service_calibrate_job_defaults_to_the_gate_settings() -> None:
    fields = CalibrateParams.model_fields
    assert {f: fields[f].default for f in OPTIONS.values()} == {
        f: getattr(GATE_DEFAULTS, f) for f in OPTIONS.values()
    }


@pytest.mark.parametrize(
    "pattern",
    [
        r"\[(--[a-z-]+) ([\d.]+)\]",  # the usage block: [--margin 0.10]
        r"`(--[a-z-]+)` \(([\d.]+%?)[):]",  # the prose: `--margin` (0.10), `--min-items` (20: ...
    ],
    ids=["usage", "prose"],
)
def test_the_docs_state_the_gate_settings_defaults(pattern: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    stated = {o: _number(v) for o, v in re.findall(pattern, text) if o in OPTIONS}
    assert set(stated) == set(OPTIONS), (
        f"docs/calibration.md states no default for {set(OPTIONS) - set(stated)}"
    )
    for option, value in stated.items():
        assert value == getattr(GATE_DEFAULTS, OPTIONS[option]), option
