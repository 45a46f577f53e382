"""Users' files name their domain; files written before domains existed load as the refund shop
with the same content hashes (resume, dedupe, the judge's cache and every verdict cite them), and
are written back byte for byte as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from calibrant.contracts import LEGACY_DOMAIN, CaseContract, Rubric, Transcript, content_hash
from calibrant.errors import InputError
from calibrant.files import domain_of_bytes, load_case, load_rubric, load_transcript
from calibrant.gold import load_gold, read_manifest
from tests.conftest import ROOT
from tests.support.domains import case_of_domain

# The hashes these shipped files had before calibrant had domains (computed at commit f4e084a).
BEFORE_DOMAINS = {
    "rubric": "sha256:17f1ace309aa0c5fdddc078779abec9bbb80b2a5110288c8a4ac9d65f28cd013",
    "case": "sha256:91f7557eff950df7eadc67b34ad41832e65d9f75708e489ace6b46a387e04673",
    "transcript": "sha256:2bfe24a315f77009f504b01e16dd85dacb89687d2b79aeba9554e8aec0c4add1",
    "its case copy": "sha256:1f2ca0a798401768ba2c1debad5079bcccff035ca33906e24c9ee67e02ef150f",
    "manifest": "sha256:6011c041b58fb549e01c34b767b9957d2b2c301f6538a6cb2d59e89212ea3e15",
}
# rubric 1.0 as shipped before domains (kept beside its labels since rubric 1.1 shipped)
RUBRIC = ROOT / "gold" / "labels-rubric-1.0" / "refund_communication.yaml"
CASE = ROOT / "cases" / "approval_required.yaml"
TRANSCRIPT = ROOT / "gold" / "transcripts" / "gold-001.json"


def test_files_without_a_domain_are_refunds_with_their_old_hashes() -> None:
    rubric, case, t = load_rubric(RUBRIC), load_case(CASE), load_transcript(TRANSCRIPT)
    gold = load_gold(ROOT / "gold", split=None)
    assert LEGACY_DOMAIN == "refunds"
    assert rubric.domain == case.domain == t.domain == "refunds"
    assert {item.domain for item in gold.items.values()} == {"refunds"}
    assert rubric.content_hash == BEFORE_DOMAINS["rubric"]
    assert content_hash(case) == BEFORE_DOMAINS["case"]
    assert content_hash(t) == BEFORE_DOMAINS["transcript"]
    assert t.case is not None and content_hash(t.case) == BEFORE_DOMAINS["its case copy"]
    # the manifest grew with gold v3 (gold-187 on); its first 186 entries, all it had then,
    # hash as they did before domains
    before = {
        k: v for k, v in read_manifest(ROOT / "gold" / "manifest.yaml").items() if k <= "gold-186"
    }
    assert len(before) == 186
    assert (
        content_hash({k: v.model_dump() for k, v in before.items()}) == BEFORE_DOMAINS["manifest"]
    )
    assert gold.hashes["manifest"] == content_hash(
        {k: v.model_dump() for k, v in read_manifest(ROOT / "gold" / "manifest.yaml").items()}
    )


def test_a_refunds_file_is_written_back_as_it_was() -> None:
    data = json.loads(TRANSCRIPT.read_text(encoding="utf-8"))
    assert "domain" not in data
    again = Transcript.model_validate(data).model_dump(mode="json")
    assert again == data  # no domain field appears in what calibrant writes for refunds


def test_naming_refunds_explicitly_changes_no_hash(tmp_path: Path) -> None:
    text = RUBRIC.read_text(encoding="utf-8")
    named = tmp_path / "rubric.yaml"
    named.write_text("domain: refunds\n" + text, encoding="utf-8")
    assert load_rubric(named).content_hash == BEFORE_DOMAINS["rubric"]


def test_another_domain_is_kept_and_changes_the_hash(tmp_path: Path) -> None:
    data = yaml.safe_load(CASE.read_text(encoding="utf-8"))
    case = CaseContract.model_validate(case_of_domain(data, "tours"))
    assert case.domain == "tours"
    dumped = case.model_dump(mode="json")
    assert dumped["domain"] == "tours"
    assert CaseContract.model_validate(dumped) == case  # written and read back
    assert content_hash(case) != BEFORE_DOMAINS["case"]
    rubric = Rubric.model_validate({**yaml.safe_load(RUBRIC.read_text()), "domain": "tours"})
    assert rubric.content_hash != BEFORE_DOMAINS["rubric"]


def test_a_bad_domain_is_one_line_naming_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "rubric.yaml"
    bad.write_text("domain: two words\n" + RUBRIC.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_rubric(bad)
    assert str(bad) in str(caught.value) and "domain" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_transcript_and_its_case_copy_are_of_one_domain(tmp_path: Path) -> None:
    data = json.loads(TRANSCRIPT.read_text(encoding="utf-8"))
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps({**data, "domain": "tours"}), encoding="utf-8")
    with pytest.raises(InputError, match="is domain 'tours' but its copy of case .* is domain "):
        load_transcript(mixed)


@pytest.mark.parametrize(
    ("raw", "domain"),
    [
        (b'{"transcript_id": "t"}', "refunds"),
        (b'{"domain": "tours", "x": 1}', "tours"),
        (b'{"x": {"domain": "nested"}}', "refunds"),  # only the top level names it
        (b'{"\\u0064omain": "tours"}', "tours"),  # spelled with an escape
        (b"not json", "refunds"),
    ],
)
def test_the_domain_is_read_from_bytes_without_validating(raw: bytes, domain: str) -> None:
    assert domain_of_bytes(raw) == domain
