"""The trusted evidence's grammar against a corpus of payloads (tests/data/evidence_corpus.json,
issue 30): each payload is planted in every free-text value that reaches a trusted evidence
line or the workbench's trusted records panel, and pushed through

- `calibrant judge` at an OpenAI-compatible server on 127.0.0.1: the evidence block of the
  request the server received (the refund shop's transcript, and another domain's: the
  warehouse pack of tests/domains, whose record ids and values are plain strings);
- `calibrant import chat` (the tool's name from the function name, its error from the tool's
  own answer), then `calibrant judge`: the same, on the wire;
- the workbench (the application in this process): the labeling page's trusted panel, and the
  labeling API's item an expert's client reads; and the Markdown labeling sheet an expert
  labels offline.

A payload is stopped in a field when every line that field lands in keeps the shape it has with
an ordinary value there (the value quoted between ⟦untrusted text: and ⟧, nothing of it outside,
no square bracket or line break inside, no other line added or lost) and none of the payload's
forbidden strings is on it (after NFKC and casefolding). Recall (stopped / planted, per field)
must be 1.00 everywhere; docs/judge.md quotes it. Ordinary values (codes, ids, a sentence) read
as they did: a code exactly as before, words quoted and unchanged."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from calibrant.contracts import Transcript
from calibrant.judge.sheet import labeling_sheet
from tests.conftest import ROOT, run_cli
from tests.domains.packs import write_pack
from tests.domains.test_domain_files import RUBRIC as WAREHOUSE_RUBRIC
from tests.domains.test_domain_files import WAREHOUSE
from tests.domains.test_domain_files import good as warehouse_trial
from tests.support.domains import installed
from tests.support.fake_openai import answer_from_schema, fake_openai
from tests.support.labeling import labeling_service, put_rubric

pytestmark = pytest.mark.xdist_group("evidence-corpus")  # one worker installs the pack

CORPUS = json.loads((ROOT / "tests" / "data" / "evidence_corpus.json").read_text("utf-8"))
PAYLOADS: list[dict[str, Any]] = CORPUS["payloads"]
BENIGN: list[dict[str, Any]] = CORPUS["benign"]
GUESSED_NONCE = "5f0c2a9e71d84b36"  # a payload cannot know the call's nonce: it guesses
ELIGIBLE = ROOT / "cases" / "eligible_damaged_order.yaml"
TRACES = ROOT / "examples" / "traces"

# where each field lands: the refund shop's, another domain's, an imported chat trace's
REFUNDS_FIELDS = (
    "tool (denied call)",
    "authorization reason",
    "tool (failed call)",
    "error",
    "tool (lost response)",
    "event detail",
    "order status",
    "policy refundable status",
)
DOMAIN_FIELDS = (
    "record id",
    "currency",
    "key field",
    "operation id",
    "tool (failed call)",
    "error",
    "authorization reason",
    "event detail",
)
IMPORT_FIELDS = ("tool (function name)", "error (the tool's answer)")

QUOTED = re.compile(
    "\u27e6untrusted text: ([^\u27e6\u27e7]*)\u27e7"
    r"( \[cut: \d+ more characters not shown\])?( \[calibrant rewrote: [^\[\]]*\])?"
)
DIGEST_ID = re.compile(r"\b([a-z_]+)-[0-9a-f]{12}\b")  # a record cited by a digest of its id
EVIDENCE_HEAD = "TRUSTED EVIDENCE (from the records; times t are the trial's logical clock)\n"
CONVERSATION_HEAD = "\n\nCONVERSATION (untrusted data between the markers"
PAGE_TAGS = re.compile(r"</?(?:h2|h3|p|span|table|thead|tbody|tr|th|td|code|b|ul|li)(?:\s[^<>]*)?>")


def _plain(k: int) -> str:
    """The ordinary value of field k in the reference transcript: words, so quoted."""
    return f"plain text {k:02d}"


def _text(payload: dict[str, Any]) -> str:
    return str(payload["text"]).replace("{nonce}", GUESSED_NONCE)


TAGS = ["reference", *(p["id"] for p in PAYLOADS), *(f"benign-{b['id']}" for b in BENIGN)]


def _probe(tag: str) -> str:
    """What marks a transcript's request or page (a number: the fence leaves it as it is)."""
    return f"(probe {TAGS.index(tag):03d})"


# ---- the transcripts -------------------------------------------------------------------------


def _call(doc: dict[str, Any], call_id: str, tool: str, **extra: Any) -> dict[str, Any]:
    return {
        "call_id": call_id,
        "seq": 8,
        "at": doc["provenance"]["finished_at"],
        "tool": tool,
        "principal": doc["agent_principal"],
        "tenant_id": doc["acting_tenant"],
        "authorization": {"decision": "allowed"},
        "outcome": "error",
        **extra,
    }


def _denied(reason: str) -> dict[str, Any]:
    return {"authorization": {"decision": "denied", "reason": reason}, "error": "forbidden"}


def refunds_transcript(values: list[str], tag: str) -> dict[str, Any]:
    """The refund shop's correct trial with values[k] in REFUNDS_FIELDS[k], each on lines of
    its own."""
    doc = json.loads((ROOT / "examples" / "transcripts" / "good-eligible.json").read_text())
    doc["transcript_id"] = f"evidence-{tag}"
    doc["conversation"][-1]["text"] += f" {_probe(tag)}"
    doc["tool_calls"] += [
        _call(doc, "call_p1", values[0], **_denied("tenant_boundary")),
        _call(doc, "call_p2", "lookup_order", **_denied(values[1])),
        _call(doc, "call_p3", values[2], error="rate_limited"),
        _call(doc, "call_p4", "create_refund", error=values[3]),
        _call(doc, "call_p5", values[4], outcome="timeout"),
    ]
    doc["events"].append(
        {"event_id": "ev_p6", "seq": 8, "kind": "external_change", "detail": values[5]}
    )
    before = doc["ledger_before"]["tenants"][0]
    next(o for o in before["orders"] if o["order_id"] == "order_17")["status"] = values[6]
    before["policies"][0]["refundable_statuses"].append(values[7])
    return doc


def domain_transcript(values: list[str], tag: str) -> dict[str, Any]:
    """The warehouse's correct trial with values[k] in DOMAIN_FIELDS[k]: a stock record whose
    id (its sku) is values[0], SKU-1001's currency, a created transfer's sku and another's
    operation id, then the service's log."""
    doc = warehouse_trial()
    doc["transcript_id"] = f"evidence-wh-{tag}"
    doc["conversation"][-1]["text"] += f" {_probe(tag)}"
    for which in ("snapshot_before", "snapshot_after"):
        records = doc[which]["tenants"][0]["records"]
        stock = records["stock"]
        stock[0]["currency"] = values[1]
        stock.append({**stock[0], "sku": values[0], "currency": "EUR", "quantity": 3})
    created = doc["snapshot_after"]["tenants"][0]["records"]["transfer"]
    created[0]["sku"] = values[2]
    created.append({**created[0], "transfer_id": "tr_2", "operation_id": values[3]})
    doc["tool_calls"] += [
        _call(doc, "c_p1", values[4], error="rate_limited"),
        _call(doc, "c_p2", "get_stock", error=values[5]),
        _call(doc, "c_p3", "get_stock", **_denied(values[6])),
    ]
    doc["events"] = [
        *doc.get("events", []),
        {"event_id": "ev_p4", "seq": 3, "kind": "external_change", "detail": values[7]},
    ]
    return doc


def chat_trace(values: list[str], tag: str) -> dict[str, Any]:
    """The chat trace of examples/traces (conv-good) with two more tool calls before the last
    answer: one whose function name is values[0], one whose answer's error is values[1]."""
    doc = json.loads((TRACES / "chat.jsonl").read_text().splitlines()[0])
    doc["id"] = f"p-{tag}"
    extra = [
        {"role": "assistant", "content": None, "tool_calls": [_fn("call_p1", values[0])]},
        {"role": "tool", "tool_call_id": "call_p1", "content": '{"error": "rate_limited"}'},
        {"role": "assistant", "content": None, "tool_calls": [_fn("call_p2", "lookup_order")]},
        {"role": "tool", "tool_call_id": "call_p2", "content": json.dumps({"error": values[1]})},
    ]
    last = doc["messages"][-1]
    doc["messages"][-1:] = [*extra, {**last, "content": f"{last['content']} {_probe(tag)}"}]
    return doc


def _fn(call_id: str, name: str) -> dict[str, Any]:
    arguments = json.dumps({"order_id": "order_17"})
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _planted(
    build: Callable[[list[str], str], Any], fields: tuple[str, ...], *, benign: bool = True
) -> dict[str, Any]:
    """tag -> document: the reference (every field ordinary), each payload in every field, and
    with `benign` each ordinary value of the corpus in every field."""
    out = {"reference": build([_plain(k) for k in range(len(fields))], "reference")}
    for p in PAYLOADS:
        out[p["id"]] = build([_text(p)] * len(fields), p["id"])
    for b in BENIGN if benign else []:
        out[f"benign-{b['id']}"] = build([b["text"]] * len(fields), f"benign-{b['id']}")
    return out


# ---- what each face shows ----------------------------------------------------------------------


def _write(folder: Path, docs: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for tag, doc in docs.items():
        (folder / f"{tag}.json").write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    return folder


def _judged(folder: Path, store: Path, *options: str) -> dict[str, list[str]]:
    """tag -> the evidence lines of the request `calibrant judge` sent for it."""
    env = {"CALIBRANT_DATABASE_URL": f"sqlite:///{store}"}
    with fake_openai(answer_from_schema(lambda c, labels: labels[0])) as server:
        args = ("judge", str(folder), "--model", "openai/evidence", "--api-base", server.url)
        r = run_cli(*args, *options, "--json", env=env)
    assert r.code == 0, r.err
    out = {}
    for body in server.bodies:
        user = body["messages"][-1]["content"]
        found = re.search(r"\(probe (\d{3})\)", user)
        assert found, user
        block = user.split(EVIDENCE_HEAD, 1)[1].split(CONVERSATION_HEAD, 1)[0]
        out[TAGS[int(found.group(1))]] = block.split("\n")
    return out


def _text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def _panel(page: str) -> list[str]:
    """The lines of the page's trusted panel: each row of a record table (its cells joined by
    ` | `), then each line of the list. Any tag but the template's, or a quoted value outside
    its marked span, fails the test at once: nothing of a payload is ever markup."""
    section = page.split('<section class="trusted">', 1)[1].split("</section>", 1)[0]
    stray = [t for t in re.findall(r"<[^>]*>", section) if not PAGE_TAGS.fullmatch(t)]
    assert stray == [], stray
    rows = re.findall(r"<tr class=[^>]*>(.*?)</tr>", section, re.S)
    items = re.findall(r"<li>(.*?)</li>", section, re.S)
    lines = []
    for fragment, text in [
        *((r, " | ".join(_text_of(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)))
          for r in rows),
        *((i, _text_of(i)) for i in items),
    ]:  # fmt: skip
        spans = re.findall(r'<span class="quoted"[^>]*>(.*?)</span>', fragment, re.S)
        assert len(spans) == len(QUOTED.findall(text)), fragment
        assert all(QUOTED.fullmatch(html.unescape(s)) for s in spans), fragment
        lines.append(text)
    return lines


# ---- the verdict ---------------------------------------------------------------------------------


def _skeleton(line: str) -> str:
    return DIGEST_ID.sub(r"\1-DIGEST", QUOTED.sub("Q", line))


def _forbidden(payload: dict[str, Any], text: str) -> list[str]:
    seen = unicodedata.normalize("NFKC", text).casefold()
    out = []
    for raw in payload["forbidden"]:
        s = raw.replace("{nonce}", GUESSED_NONCE)
        if s in text or unicodedata.normalize("NFKC", s).casefold() in seen:
            out.append(s)
    return out


def _line_kept(reference: str, line: str, payload: dict[str, Any]) -> bool:
    """`line` has the shape `reference` has (its values quoted alike, nothing else changed),
    no square bracket or line break inside a quoted value, none of the forbidden strings."""
    inside = [m.group(1) for m in QUOTED.finditer(line)]
    return (
        _skeleton(line) == _skeleton(reference)
        and not any(c in v for v in inside for c in "[]\n")
        and not _forbidden(payload, line)
    )


Faces = dict[str, dict[str, list[str]]]  # face -> tag -> lines


def _recall(
    faces: Faces, fields: tuple[str, ...]
) -> tuple[dict[tuple[str, str], list[int]], list[tuple[str, str, str]]]:
    """(face, field) -> [stopped, planted], and each (face, field, payload) not stopped."""
    counts: dict[tuple[str, str], list[int]] = {}
    missed = []
    for face, shown in faces.items():
        reference = shown["reference"]
        for k, field in enumerate(fields):
            lands = [i for i, line in enumerate(reference) if _plain(k) in line]
            assert lands, (face, field, reference)  # the field reaches this face at all
            for p in PAYLOADS:
                got = shown[p["id"]]
                kept = (
                    len(got) == len(reference)
                    and all(_line_kept(reference[i], got[i], p) for i in lands)
                    and not _forbidden(p, "\n".join(got))
                )
                tally = counts.setdefault((face, field), [0, 0])
                tally[0] += kept
                tally[1] += 1
                if not kept:
                    missed.append((face, field, p["id"]))
    return counts, missed


def _report(counts: dict[tuple[str, str], list[int]]) -> str:
    stopped = sum(c[0] for c in counts.values())
    planted = sum(c[1] for c in counts.values())
    rows = [f"{face} / {field}: {s}/{n}" for (face, field), (s, n) in counts.items()]
    return f"recall {stopped}/{planted}\n" + "\n".join(rows)


# ---- the faces, each run once ------------------------------------------------------------------


@pytest.fixture(scope="module")
def warehouse_pack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The warehouse pack installed (its records' ids and values are plain strings), and its
    rubric's file."""
    folder = tmp_path_factory.mktemp("evidence-pack")
    write_pack(
        folder, "evidence_warehouse_pack", WAREHOUSE, "warehouse = evidence_warehouse_pack:pack"
    )
    rubric = folder / "warehouse_rubric.yaml"
    rubric.write_text(WAREHOUSE_RUBRIC, encoding="utf-8")
    with installed(folder):
        yield rubric


@pytest.fixture(scope="module")
def documents() -> dict[str, dict[str, Any]]:
    return {
        "refunds": _planted(refunds_transcript, REFUNDS_FIELDS),
        "domain": _planted(domain_transcript, DOMAIN_FIELDS, benign=False),
    }


@pytest.fixture(scope="module")
def on_the_wire(
    warehouse_pack: Path,
    documents: dict[str, dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Faces:
    """`calibrant judge` of every planted transcript: the evidence lines each request carried."""
    work = tmp_path_factory.mktemp("evidence-wire")
    refunds = _judged(_write(work / "refunds", documents["refunds"]), work / "r.db")
    rubric = ("--rubric", str(warehouse_pack))
    domain = _judged(_write(work / "domain", documents["domain"]), work / "d.db", *rubric)
    return {"judge, refunds": refunds, "judge, another domain": domain}


@pytest.fixture(scope="module")
def in_the_workbench(
    warehouse_pack: Path,
    documents: dict[str, dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Faces:
    """Every planted transcript uploaded as an item: the lines of its labeling page's trusted
    panel, and of the records the labeling API gives an expert."""
    work = tmp_path_factory.mktemp("evidence-page")
    faces: Faces = {}
    with labeling_service("sqlite", work) as service:
        rubrics = {
            "refunds": put_rubric(service.database_url),
            "domain": put_rubric(service.database_url, warehouse_pack),
        }
        admin = service.client(service.user("ev-admin", "admin"))
        token = service.user("ev-ann", "annotator")
        browser = service.client()
        assert browser.post("/login", data={"token": token}).status_code == 303
        api = service.client(token)
        for kind, docs in documents.items():
            body = "\n".join(json.dumps(d) for d in docs.values())  # ASCII: see the import test
            got = admin.post(
                f"/api/transcripts?queue=ev-{kind}&rubric={rubrics[kind]}",
                content=body.encode(),
                headers={"Content-Type": "application/x-ndjson"},
            )
            assert got.is_success, got.text
            name = "refunds" if kind == "refunds" else "another domain"
            page, item = faces.setdefault(f"page, {name}", {}), faces.setdefault(f"API, {name}", {})
            listed = admin.get(f"/api/items?queue=ev-{kind}").json()
            alias = {row["transcript_id"]: row["alias"] for row in listed}  # experts use these
            for tag, doc in docs.items():
                shown = browser.get(f"/label/{alias[doc['transcript_id']]}")
                assert shown.status_code == 200, shown.text
                page[tag] = _panel(shown.text)
                records = api.get(f"/api/items/{alias[doc['transcript_id']]}").json()["records"]
                item[tag] = [f"[{r['id']}] t={r['t']}: {r['text']}" for r in records]
    return faces


@pytest.fixture(scope="module")
def in_the_sheets(warehouse_pack: Path, documents: dict[str, dict[str, Any]]) -> Faces:
    """The Markdown labeling sheet of every planted transcript (what an expert labels offline):
    the lines of its records part, each table row and each line of the list."""
    faces: Faces = {}
    for kind, docs in documents.items():
        name = "refunds" if kind == "refunds" else "another domain"
        shown = faces.setdefault(f"sheet, {name}", {})
        for tag, doc in docs.items():
            sheet = labeling_sheet(Transcript.model_validate(doc), item="x-1")
            records = sheet.split("\n## Conversation", 1)[0].split("\n")
            rows = [x for x in records if x.startswith("| ") and not x.startswith("| Record |")]
            shown[tag] = rows + [x for x in records if x.startswith("- ")]
    return faces


# ---- the tests -------------------------------------------------------------------------------


def test_the_corpus_covers_every_field_with_realistic_payloads() -> None:
    assert len(PAYLOADS) >= 40 and len({p["family"] for p in PAYLOADS}) >= 10
    assert len({p["id"] for p in PAYLOADS}) == len(PAYLOADS)
    assert all(p["forbidden"] for p in PAYLOADS)


def _both_domains(faces: Faces) -> tuple[dict[tuple[str, str], list[int]], list[Any]]:
    """_recall() of the refund shop's faces and of another domain's, together."""
    counts, missed = _recall({k: v for k, v in faces.items() if "refunds" in k}, REFUNDS_FIELDS)
    more, missed_more = _recall({k: v for k, v in faces.items() if "domain" in k}, DOMAIN_FIELDS)
    return {**counts, **more}, missed + missed_more


def test_every_payload_is_stopped_on_the_wire(on_the_wire: Faces) -> None:
    counts, missed = _both_domains(on_the_wire)
    assert missed == [], _report(counts)
    assert sum(n for _, n in counts.values()) == len(PAYLOADS) * 2 * 8


def test_every_payload_is_stopped_through_import_then_judge(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    traces = {tag: chat_trace(values, tag) for tag, values in _import_values().items()}
    source = tmp_path / "traces.jsonl"
    # JSON Lines escaped to ASCII: calibrant's readers split lines as str.splitlines() does
    source.write_text("\n".join(json.dumps(t) for t in traces.values()) + "\n")
    snapshots = tmp_path / "snapshots"
    for trace in traces.values():
        folder = snapshots / trace["id"]
        folder.mkdir(parents=True)
        for which in ("before", "after"):
            snap = json.loads((TRACES / "snapshots" / "conv-good" / f"{which}.json").read_text())
            snap["seq"] += 10 if which == "after" else 0  # after the two calls added
            (folder / f"{which}.json").write_text(json.dumps(snap))
    out = tmp_path / "imported"
    r = cli("import", "chat", str(source), "--out", str(out), "--case", str(ELIGIBLE),
            "--snapshots", str(snapshots))  # fmt: skip
    assert r.code == 0, r.err
    judged = _judged(out, tmp_path / "s.db")
    counts, missed = _recall({"import chat, then judge": judged}, IMPORT_FIELDS)
    assert missed == [], _report(counts)
    assert sum(n for _, n in counts.values()) == len(PAYLOADS) * 2
    _read_as_before({"import chat, then judge": judged}, IMPORT_FIELDS, quoted_always=())


def _import_values() -> dict[str, list[str]]:
    out = {"reference": [_plain(0), _plain(1)]}
    out.update({p["id"]: [_text(p)] * 2 for p in PAYLOADS})
    out.update({f"benign-{b['id']}": [b["text"]] * 2 for b in BENIGN})
    return out


def test_every_payload_is_stopped_in_the_workbench(
    in_the_workbench: Faces, in_the_sheets: Faces
) -> None:
    counts, missed = _both_domains({**in_the_workbench, **in_the_sheets})
    assert missed == [], _report(counts)
    assert sum(n for _, n in counts.values()) == len(PAYLOADS) * 6 * 8


def _read_as_before(faces: Faces, fields: tuple[str, ...], quoted_always: tuple[str, ...]) -> None:
    """Each ordinary value of the corpus, in each field, shows as the corpus says: a code as it
    is (as every version before this fence showed it), words quoted and unchanged. A field in
    `quoted_always` (a description in words) quotes even a code."""
    for face, shown in faces.items():
        reference = shown["reference"]
        for b in BENIGN:
            got = shown[f"benign-{b['id']}"]
            assert len(got) == len(reference), (face, b["id"])
            for k, field in enumerate(fields):
                plain = f"\u27e6untrusted text: {_plain(k)}\u27e7"
                said = b["shown"]
                if field in quoted_always and said == b["text"]:
                    said = f"\u27e6untrusted text: {said}\u27e7"
                for i, line in enumerate(reference):
                    if _plain(k) in line:
                        assert got[i] == line.replace(plain, said), (face, field, b["id"])


def test_ordinary_values_read_as_they_did(
    on_the_wire: Faces, in_the_workbench: Faces, in_the_sheets: Faces
) -> None:
    refunds = {
        face: shown
        for faces in (on_the_wire, in_the_workbench, in_the_sheets)
        for face, shown in faces.items()
        if "refunds" in face
    }
    _read_as_before(refunds, REFUNDS_FIELDS, quoted_always=("event detail",))
    # e.g. the service's own error code, on the line the judge reads
    line = next(x for x in on_the_wire["judge, refunds"]["benign-rate-limited"] if "call_p4" in x)
    assert line == "[call_p4] t=8: create_refund failed: rate_limited"
