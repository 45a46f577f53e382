"""Files that name no domain were written before calibrant had domains; they are the domain of
the installed pack whose file form claims them. With no such pack installed, a command reading
one, or a command that names no domain and takes its defaults from that pack, says so in one
line (what to install, or what to name) and exits 2: no traceback, no guess at a domain.

The pack is hidden from the real entry point discovery (both the file forms' and the domain
registry's read `importlib.metadata.entry_points`): the other installed packs stay found."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoints
from importlib.metadata import entry_points as real_entry_points
from pathlib import Path

import pytest

from calibrant import domains
from calibrant.contracts import forms
from calibrant.domains import registry
from tests.conftest import ROOT
from tests.support.cli import Result

GOLD_TRANSCRIPT = ROOT / "gold" / "transcripts" / "gold-001.json"


@pytest.fixture
def no_unnamed_pack(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The installed pack that claims files naming no domain, hidden for the test (its name)."""
    claimed = forms.unnamed_form()
    assert claimed is not None, "the pack that reads files naming no domain is not installed"
    hidden = claimed.domain

    def without(**params: str) -> EntryPoints:
        found = real_entry_points(**params)
        return EntryPoints(ep for ep in found if ep.name != hidden)

    monkeypatch.setattr(forms, "entry_points", without)
    monkeypatch.setattr(registry, "entry_points", without)
    forms.forget()
    domains.refresh()
    try:
        yield hidden
    finally:
        monkeypatch.undo()
        forms.forget()
        domains.refresh()


def test_the_hidden_pack_is_gone_and_no_other_claims_unnamed_files(no_unnamed_pack: str) -> None:
    assert forms.unnamed_form() is None
    assert not forms.writes_unnamed(no_unnamed_pack)
    assert not forms.reads_itself(no_unnamed_pack)
    with pytest.raises(forms.NoForm, match="names no domain"):
        forms.unnamed_domain("transcript")


def test_a_file_naming_no_domain_is_one_line_and_exit_2(
    no_unnamed_pack: str, cli: Callable[..., Result], tmp_path: Path
) -> None:
    src = shutil.copy(GOLD_TRANSCRIPT, tmp_path / "t.json")
    assert '"domain"' not in Path(src).read_text(encoding="utf-8")
    r = cli("check", str(src), cwd=tmp_path)
    assert r.code == 2, r.err
    assert r.out == ""
    [line] = r.err.splitlines()
    assert "t.json" in line
    assert "names no domain" in line
    assert "no installed domain pack reads files that name none" in line
    assert "Traceback" not in r.err


def test_a_command_naming_no_domain_is_one_line_and_exit_2(
    no_unnamed_pack: str, cli: Callable[..., Result], tmp_path: Path
) -> None:
    r = cli("calibrate", cwd=tmp_path)
    assert r.code == 2, r.err
    assert r.out == ""
    [line] = r.err.splitlines()
    assert "names no domain" in line
    assert "or pass --domain" in line


def test_the_pack_is_back_afterwards() -> None:
    claimed = forms.unnamed_form()
    assert claimed is not None
    assert forms.writes_unnamed(claimed.domain)
