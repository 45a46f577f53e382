"""One settings object: every CALIBRANT_* variable is a typed, documented field of
`calibrant.settings.Settings`, read at call time, and a bad value is one line naming the
variable (exit 2 from the command line)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from calibrant.errors import ConfigError
from calibrant.settings import Settings, get_settings, variable
from tests.conftest import ROOT


def test_unset_or_empty_variables_take_the_defaults() -> None:
    s = get_settings({"CALIBRANT_CLAIM_LEASE_S": "", "CALIBRANT_EMBEDDED_THREADS": "  "})
    assert s == Settings()
    assert (s.database_url, s.judges_dir, s.claim_lease_s, s.worker_heartbeat_s) == (
        None,
        Path("judges"),
        120.0,
        10.0,
    )
    assert s.embedded_cache is None and s.embedded_threads is None and s.sandbox_token is None


def test_values_are_typed() -> None:
    s = get_settings(
        {
            "CALIBRANT_DATABASE_URL": "sqlite:///x.db",
            "CALIBRANT_JUDGES_DIR": "/srv/judges",
            "CALIBRANT_CLAIM_LEASE_S": "0.4",
            "CALIBRANT_WORKER_HEARTBEAT_S": "2",
            "CALIBRANT_EMBEDDED_CACHE": "off",
            "CALIBRANT_EMBEDDED_THREADS": " 3 ",
            "CALIBRANT_SANDBOX_TOKEN": "sbx_test",
            "CALIBRANT_NOT_A_SETTING": "ignored",
        }
    )
    assert s.database_url == "sqlite:///x.db" and s.judges_dir == Path("/srv/judges")
    assert s.claim_lease_s == 0.4 and s.worker_heartbeat_s == 2.0 and s.embedded_threads == 3
    assert s.embedded_cache == "off" and s.sandbox_token == "sbx_test"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("CALIBRANT_CLAIM_LEASE_S", "soon", "must be a number of seconds above 0, not 'soon'"),
        ("CALIBRANT_CLAIM_LEASE_S", "0", "must be a number of seconds above 0, not '0'"),
        ("CALIBRANT_WORKER_HEARTBEAT_S", "nan", "must be a number of seconds above 0"),
        ("CALIBRANT_EMBEDDED_THREADS", "2.5", "must be a whole number of threads, at least 1"),
        ("CALIBRANT_EMBEDDED_THREADS", "0", "must be a whole number of threads, at least 1"),
    ],
)
def test_a_bad_value_names_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        get_settings({name: value})
    assert str(info.value).startswith(f"{name} {message}")
    assert "\n" not in str(info.value)


def test_the_environment_is_read_at_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from calibrant.store.claims import claim_lease_seconds

    monkeypatch.setenv("CALIBRANT_CLAIM_LEASE_S", "7")
    assert claim_lease_seconds() == 7.0
    monkeypatch.setenv("CALIBRANT_CLAIM_LEASE_S", "9")
    assert claim_lease_seconds() == 9.0


def test_every_field_is_documented_under_its_variable_name() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description and field.description.startswith(f"{variable(name)}: "), name


def test_no_code_reads_a_calibrant_variable_but_through_the_settings() -> None:
    """Every CALIBRANT_* name in the source is a settings field, and only settings.py touches
    os.environ for one."""
    known = {variable(name) for name in Settings.model_fields}
    src = ROOT / "src" / "calibrant"
    for path in sorted(src.rglob("*.py")):
        text = path.read_text()
        for name in re.findall(r"CALIBRANT_[A-Z0-9_]+", text):
            assert name in known, f"{path.relative_to(ROOT)}: {name} is not a Settings field"
        if path.name != "settings.py":
            reads = re.findall(r"(?:environ\.get|getenv|environ\[)\(?\s*[\"'](CALIBRANT_\w+)", text)
            assert not reads, f"{path.relative_to(ROOT)} reads {reads} around the settings"


def test_the_command_line_stops_on_a_bad_value_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from calibrant.cli import main

    monkeypatch.setenv("CALIBRANT_WORKER_HEARTBEAT_S", "often")
    monkeypatch.setattr(sys, "argv", ["calibrant", "runs", "list"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "calibrant: error: CALIBRANT_WORKER_HEARTBEAT_S must be a number of seconds above 0, "
        "not 'often'\n"
    )


def test_the_development_page_lists_every_setting() -> None:
    """docs/development.md's settings table names every variable calibrant reads, and no
    variable that is not one."""
    page = (ROOT / "docs" / "development.md").read_text()
    listed = set(re.findall(r"^\| `(CALIBRANT_[A-Z_]+)` \|", page, flags=re.M))
    read = {(f.description or "").partition(":")[0] for f in Settings.model_fields.values()}
    assert listed == read
