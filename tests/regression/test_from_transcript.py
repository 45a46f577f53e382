"""`calibrant case from-transcript`: a failed transcript becomes a redacted regression case whose
expected outcome a person must fill before `trials` accepts it; once filled, the case catches
the failure again and passes the correct agent."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import yaml

from calibrant.contracts import Transcript
from calibrant.files import load_case
from calibrant.regression import Redactor, draft_case
from tests.conftest import Result

PLANTED = (
    "I'm Marta Soler, marta.soler@example.com, +34 612 345 678. My neighbour "
    "is Jonas Berg; my card is 4111111111111111. Order order_17, 42.00 EUR on 2026-11-30."
)
SECRETS = ("Marta", "Soler", "marta.soler", "612 345 678", "4111111111111111")


def _failed(trial: Callable[..., Transcript], tmp: Path, *, embed_case: bool = True) -> Path:
    """A duplicate payment after a timeout, with personal data in the customer's messages."""
    t = trial("timeout_after_payment_commit", "scripted:retry-without-reconcile")
    t.conversation[0].text = PLANTED
    t.conversation[2].text = "Marta again: did it go through? Write to marta.soler@example.com"
    if not embed_case:
        t.case = None
    path = tmp / "failed.json"
    path.write_text(t.model_dump_json())
    return path


def test_failed_transcript_becomes_a_redacted_case_to_confirm(
    trial: Callable[..., Transcript], cli: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "cases" / "dup_after_timeout.yaml"
    r = cli(
        "case", "from-transcript", str(_failed(trial, tmp_path)), "--out", str(out),
        "--redact", "Jonas Berg",
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "redacted" in r.err and "Fill `expected`" in r.err
    text = out.read_text()
    for secret in (*SECRETS, "Jonas", "Berg"):
        assert secret not in text, secret
    case = load_case(out)  # the drafted case validates
    assert case.case == "dup_after_timeout" and case.tags == ["regression"]
    assert case.expected is None and text.rstrip().endswith("expected: null")
    first, second = case.customer_script
    person = re.search(r"I'm (\[person \d+\])", first)
    email = re.search(r"(\[email \d+\])", first)
    assert person and email
    # stable placeholders: the same person and address get the same one in both messages
    assert second.startswith(person.group(1)) and email.group(1) in second
    assert "order_17" in first and "42.00 EUR" in first and "2026-11-30" in first
    assert "[card 1]" in first and "[phone 1]" in first  # a Luhn-valid card number
    assert [(f.point, f.on_tool, f.occurrence) for f in case.faults] == [
        ("timeout_after_payment_commit", "create_refund", 1)
    ]
    assert case.fixture.order == "order_17" and case.fixture.paid_minor_units == 4200
    # what the person confirming sees: the duplicate, and the outcomes the old case accepted
    assert "refunds committed in the trial: 2, total 8400" in text
    assert "no_duplicate_payment" in text and "reconciled and refunded" in text


LEAKS = {  # what `case from-transcript` let through before (issue 19)
    "iban": ("ES91 2100 0418 4502 0005 1332", "ES7921000813610123456789"),
    "national id": ("12345678Z", "X1234567L"),
    "passport": ("PAB123456",),
    "birth date": ("14/02/1983",),
    "address": ("calle del Olmo 23",),
    "postcode": ("28012",),
    "person": ("josé", "José", "Peña", "María", "Vidal", "Pedro"),
    "email": ("ana punto vidal arroba gmail punto com", "jose.pena@example.com"),
}


def test_personal_data_the_old_redaction_leaked_is_replaced_and_the_summary_warns(
    trial: Callable[..., Transcript], cli: Callable[..., Result], tmp_path: Path
) -> None:
    t = trial("timeout_after_payment_commit", "scripted:retry-without-reconcile")
    t.transcript_id = "prod-2026-11-30-jose.pena@example.com-t1"
    t.conversation[0].text = (
        "hola, me llamo josé peña. Mi IBAN es ES91 2100 0418 4502 0005 1332 o el "
        "ES7921000813610123456789; DNI 12345678Z y el NIE de mi mujer X1234567L, pasaporte "
        "PAB123456. Nací el 14/02/1983 y vivo en calle del Olmo 23, 28012 Madrid. "
        "Order order_17, 42.00 EUR on 2026-11-30."
    )
    t.conversation[2].text = (
        "Soy María Vidal, su mujer: mi marido Pedro no puede escribir. Escriba a ana punto "
        "vidal arroba gmail punto com. ¿José ya tiene el dinero?"
    )
    src = tmp_path / "prod.json"
    src.write_text(t.model_dump_json())
    out = tmp_path / "prod_case.yaml"
    r = cli("case", "from-transcript", str(src), "--out", str(out))
    assert r.code == 0, r.err
    text = out.read_text()
    for kind, values in LEAKS.items():
        for value in values:
            assert value not in text, (kind, value)
    assert "Jos " not in text and "Jos]" not in text  # not cut at the accent
    case = load_case(out)
    assert "example.com" not in case.title and "[email 1]" in case.title
    assert "order_17" in case.customer_script[0] and "2026-11-30" in case.customer_script[0]
    summary = " ".join(r.err.split())
    for kind in LEAKS:
        assert f"{kind}(s)" in summary, (kind, summary)
    assert "may still hold personal data" in summary


def test_trials_refuse_the_case_until_expected_is_filled_then_it_catches_the_failure(
    trial: Callable[..., Transcript], cli: Callable[..., Result], tmp_path: Path
) -> None:
    out, src = tmp_path / "dup.yaml", _failed(trial, tmp_path)
    assert cli("case", "from-transcript", str(src), "--out", str(out)).code == 0
    # checked against the unconfirmed case, the end state is not judged: no pass, no failure
    doc = json.loads(cli("check", str(src), "--case", str(out), "--json").out)
    results = [r for v in doc["verdicts"] for r in v["results"]]
    (end,) = [r for r in results if r["invariant"] == "end_state_matches_contract"]
    assert end["outcome"] == "harness_error" and "no confirmed expected outcome" in end["message"]
    refused = cli(
        "trials",
        str(out),
        "--agent",
        "scripted:correct",
        "-k",
        "1",
        "--out",
        str(tmp_path / "runs"),
    )
    assert refused.code == 2 and refused.err.count("\n") == 1
    assert f"{out}:" in refused.err and "field 'expected': not filled" in refused.err
    assert not (tmp_path / "runs").exists()
    # a person confirms: refunded once (the agent reconciled), or left uncertain for a person
    filled = out.read_text().replace(
        "expected: null",
        yaml.safe_dump(
            {"expected": [{"name": "paid once", "refund_count": 1, "ticket_state": "resolved"}]}
        ),
    )
    out.write_text(filled)
    runs = tmp_path / "runs"
    good = cli("trials", str(out), "--agent", "scripted:correct", "-k", "2", "--out", str(runs))
    assert good.code == 0, good.err
    assert cli("check", str(runs), "--fail-on-violation").code == 0
    bad_runs = tmp_path / "bad"
    bad = cli(
        "trials", str(out), "--agent", "scripted:retry-without-reconcile", "-k", "1",
        "--out", str(bad_runs),
    )  # fmt: skip
    assert bad.code == 0, bad.err
    checked = cli("check", str(bad_runs), "--fail-on-violation")
    assert checked.code == 1 and "no_duplicate_payment" in checked.out


def test_a_transcript_without_its_case_is_drafted_from_the_evaluator_snapshot(
    trial: Callable[..., Transcript], cli: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "from_snapshot.yaml"
    src = _failed(trial, tmp_path, embed_case=False)
    r = cli("case", "from-transcript", str(src), "--out", str(out), "--tag", "exploratory")
    assert r.code == 0, r.err
    case = load_case(out)
    fx = case.fixture
    assert (fx.tenant, fx.order, fx.paid_minor_units, fx.policy_version) == (
        "tenant_a",
        "order_17",
        4200,
        "refund_v3",
    )
    assert fx.ticket == "tkt_order_17" and case.tags == ["exploratory"]
    assert case.faults and case.faults[0].point == "timeout_after_payment_commit"
    for secret in SECRETS:
        assert secret not in out.read_text()


def test_bad_input_is_one_line_and_exit_2(
    trial: Callable[..., Transcript], cli: Callable[..., Result], tmp_path: Path
) -> None:
    src = _failed(trial, tmp_path)
    taken = tmp_path / "taken.yaml"
    taken.write_text("keep me\n")
    for args, says in [
        (["--out", str(tmp_path / "x.yaml"), "--tag", "flaky"], "--tag 'flaky'"),
        (["--out", str(tmp_path / "x.txt")], "a case file ends in .yaml"),
        (["--out", str(taken)], "exists; add --force"),
        (["--out", str(tmp_path / "has space.yaml")], "case id 'has space'"),
    ]:
        r = cli("case", "from-transcript", str(src), *args)
        assert r.code == 2 and r.err.count("\n") == 1 and says in r.err, (args, r.err)
    assert taken.read_text() == "keep me\n"
    t = Transcript.model_validate_json(src.read_text())
    assert t.case is not None
    t.case.fixture.order = "order_999"  # not in the dataset the service is built from
    src.write_text(t.model_dump_json())
    r = cli("case", "from-transcript", str(src), "--out", str(tmp_path / "y.yaml"))
    assert r.code == 2 and r.err.count("\n") == 1 and "order_999" in r.err, r.err
    assert not (tmp_path / "y.yaml").exists()


def test_redactor_keeps_service_data_and_numbers_people_in_order() -> None:
    r = Redactor(["Marta Soler", "Li Wei"])
    text = r.text("Marta Soler (marta@x.org) asked Li Wei about order_17: 42.00 EUR, 2026-11-30.")
    assert text == "[person 1] ([email 1]) asked [person 2] about order_17: 42.00 EUR, 2026-11-30."
    assert r.text("I am sorry, this is broken; Soler") == "I am sorry, this is broken; [person 1]"
    assert r.replaced() == {"person": 2, "email": 1}


def test_observed_faults_keep_the_parameters_they_fired_with(
    trial: Callable[..., Transcript],
) -> None:
    for case_id in ("concurrent_order_change", "crash_before_checkpoint"):
        t = trial(case_id, "scripted:correct")
        assert t.case is not None
        drafted = draft_case(t, case_id="again").case
        assert drafted.faults == t.case.faults, case_id
        # a production log without fault events: the lost answer still says where it was
        t.events = [e for e in t.events if e.fault is None]
        t.case = None
        t.provenance.fault_schedule = []
        lost = [f.point for f in draft_case(t, case_id="again").case.faults]
        want = ["crash_after_refund_commit"] if case_id.startswith("crash") else []
        assert lost == want, case_id
