"""Rubrics and judge versions kept in the store: content-addressed, validated by the same
loaders as the files the CLI reads, and resolved into a judge the same way.

A rubric is stored under the hash of its canonical JSON (the hash every verdict names). A judge
version is a saved judge configuration (as in judges/NAME.yaml) whose rubric is a rubric of the
store; it is stored under the hash of its resolved configuration, the judge version every run
and verdict names. Storing the same thing twice gives the same entry back.

No credential is kept at rest: a judge whose `api_base` carries one (user:password@, a key or
token in its query) is refused, and the key goes in the server's environment, in the
provider's variable; a judge stored before this rule is shown with its credential masked."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import yaml
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..contracts import JudgeConfig, Rubric
from ..contracts.judgment import MASK, mask_url, url_secrets
from ..errors import CalibrantError, InputError
from ..files import load_rubric, yaml_model_from_text
from ..judge.config import JudgeOptions, SavedJudge, build_judge
from ..judge.reliability import RetryPolicy
from ..store.runs import Runs
from ..store.service_tables import JudgeRow, RubricRow
from ..store.versions import judge_entry
from .listings import JudgeDetail, JudgeOut, RubricDetail, RubricOut
from .server_paths import server_path

__all__ = [
    "Conflict",
    "NotFound",
    "Resolved",
    "add_judge",
    "add_rubric",
    "get_judge",
    "get_rubric",
    "iso",
    "judge_detail",
    "judge_info",
    "list_judges",
    "list_rubrics",
    "resolve_stored_judge",
    "rubric_detail",
    "rubric_info",
]

Resolved = tuple[JudgeConfig, Rubric, RetryPolicy, int]


class NotFound(CalibrantError):
    """What the request names is not in the store (HTTP 404)."""


class Conflict(CalibrantError):
    """The request contradicts what the store holds (HTTP 409)."""


def iso(when: datetime | None) -> str | None:
    """ISO 8601 in UTC (the store keeps UTC; SQLite hands it back without its zone)."""
    if when is None:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat()


def _hash_key(ref: str) -> str:
    """`sha256:HEX` for a hash given with or without its prefix."""
    return ref if ref.startswith("sha256:") else f"sha256:{ref}"


# -- rubrics ------------------------------------------------------------------------------------


def rubric_info(row: RubricRow) -> RubricOut:
    """A stored rubric as the API lists it."""
    return RubricOut(
        hash=row.content_hash,
        rubric_id=row.rubric_id,
        version=row.version,
        created_by=row.created_by,
        created_at=iso(row.created_at),
    )


def rubric_detail(row: RubricRow) -> RubricDetail:
    """A stored rubric with its body (YAML)."""
    return RubricDetail(**dict(rubric_info(row)), yaml=row.body)


def _store_rubric(engine: Engine, rubric: Rubric, body: str, user: str) -> tuple[RubricRow, bool]:
    row = RubricRow(
        content_hash=rubric.content_hash,
        rubric_id=rubric.rubric_id,
        version=rubric.version,
        body=body,
        created_by=user,
        created_at=datetime.now(UTC),
    )
    with Session(engine) as s:
        found = s.get(RubricRow, row.content_hash)
        if found is not None:
            return found, False
        s.add(row)
        try:
            s.commit()
        except IntegrityError:  # stored by another request meanwhile: the same content
            s.rollback()
            again = s.get(RubricRow, row.content_hash)
            assert again is not None
            return again, False
        s.refresh(row)
        return row, True


def add_rubric(engine: Engine, text: str, user: str) -> tuple[RubricRow, bool]:
    """Validate a rubric (YAML text) and keep it; (its entry, whether it is new)."""
    rubric = yaml_model_from_text(Rubric, text, "rubric", "request body")
    return _store_rubric(engine, rubric, text, user)


def get_rubric(engine: Engine, ref: str) -> RubricRow:
    with Session(engine) as s:
        row = s.get(RubricRow, _hash_key(ref))
    if row is None:
        raise NotFound(f"no rubric {ref} in the store (GET /api/rubrics lists them)")
    return row


def list_rubrics(engine: Engine) -> list[RubricRow]:
    with Session(engine) as s:
        return list(s.exec(select(RubricRow).order_by(col(RubricRow.created_at).desc())))


def _rubric_of(row: RubricRow) -> Rubric:
    return yaml_model_from_text(Rubric, row.body, "rubric", f"stored rubric {row.content_hash}")


# -- judges -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    saved: SavedJudge
    rubric: Rubric
    rubric_body: str | None  # set when the rubric came from a file: stored with the judge


def _candidate(engine: Engine, text: str) -> _Candidate:
    saved = yaml_model_from_text(SavedJudge, text, "saved judge", "request body")
    ref = saved.rubric
    if ref is None:
        raise InputError(
            "request body",
            "name the judge's rubric: the hash of a stored rubric (POST /api/rubrics) or a "
            "rubric file on the server",
            field="rubric",
        )
    if ref.startswith("sha256:"):
        try:
            return _Candidate(saved, _rubric_of(get_rubric(engine, ref)), None)
        except NotFound as exc:
            raise InputError("request body", str(exc), field="rubric") from None
    path = server_path(ref, "rubric", where="request body")  # inside the data root
    try:
        rubric = load_rubric(path)
    except InputError as exc:
        raise InputError("request body", f"rubric: {exc}", field="rubric") from None
    return _Candidate(saved, rubric, path.read_text(encoding="utf-8"))


_KEY_NAMES = frozenset(
    {"api_key", "api-key", "apikey", "key", "token", "access_token", "auth_token", "bearer"}
)


def _has_credential(url: str) -> bool:
    """`url` carries a credential: user:password@, a query parameter that sends a key
    (`?api_key=`, `?token=`...), or one whose name says it is secret; a masked one (***)
    does not count."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        userinfo = parts.netloc.rpartition("@")[0]
    except ValueError:
        return False  # not a URL: the judge's own checks say so
    keyed = any(k.lower() in _KEY_NAMES and v != MASK for k, v in query)
    return bool(userinfo.replace(MASK, "").strip(":")) or keyed or bool(url_secrets(url))


def _no_credential(saved: SavedJudge) -> None:
    """422 for an `api_base` that carries a credential: the store keeps none."""
    if saved.api_base and _has_credential(saved.api_base):
        raise InputError(
            "request body",
            f"api_base {_shown_url(saved.api_base)} carries a credential (a user and password, "
            "or a key or token in its query): a stored judge keeps no secret. Store the base "
            "URL alone and give the key to the server in its environment, in the provider's "
            "variable (e.g. OPENAI_API_KEY for an openai/ model), which is read at each call "
            "and never stored",
            field="api_base",
        )


def _shown_url(url: str) -> str:
    """`url` with its credentials masked (and its whole query, if a key is still in it)."""
    shown = mask_url(url) or ""
    if _has_credential(shown):
        shown = urlunsplit(urlsplit(shown)._replace(query=MASK))
    return shown


def _masked(body: str) -> str:
    """A stored configuration as shown: a credential in `api_base` (kept by a judge stored
    before they were refused) masked."""
    data = yaml.safe_load(body)
    url = data.get("api_base") if isinstance(data, dict) else None
    if not isinstance(url, str) or not _has_credential(url):
        return body
    data["api_base"] = _shown_url(url)
    return yaml.safe_dump(data, sort_keys=True, allow_unicode=True)


def _canonical_body(saved: SavedJudge, rubric: Rubric) -> str:
    """The stored form: the configuration with its rubric named by hash, keys sorted."""
    data = saved.model_copy(update={"rubric": rubric.content_hash}).model_dump(mode="json")
    return yaml.safe_dump(data, sort_keys=True, allow_unicode=True)


def add_judge(engine: Engine, name: str, text: str, user: str) -> tuple[JudgeRow, bool]:
    """Validate a judge configuration (YAML text) and keep it as a version of `name`; (its
    entry, whether it is new). A rubric read from a server file is stored too."""
    if not name or len(name) > 64 or not all(c.isalnum() or c in "_.-" for c in name):
        raise InputError("name", "use 1-64 letters, digits, '_', '.' or '-'", field="name")
    cand = _candidate(engine, text)
    _no_credential(cand.saved)
    config, _, _, _ = build_judge(cand.saved, JudgeOptions(), cand.rubric)
    body = _canonical_body(cand.saved, cand.rubric)
    with Session(engine) as s:
        found = s.get(JudgeRow, config.hash)
    if found is not None:
        if found.name != name:
            raise Conflict(
                f"this judge version ({config.hash}) is already stored as '{found.name}'"
            )
        if found.body != body:
            raise Conflict(
                f"judge version {config.hash} of '{name}' is already stored with other run "
                "settings (concurrency, timeout, attempts); they are not part of the version"
            )
        return found, False
    if cand.rubric_body is not None:
        _store_rubric(engine, cand.rubric, cand.rubric_body, user)
    row = JudgeRow(
        hash=config.hash, name=name, body=body, created_by=user, created_at=datetime.now(UTC)
    )
    with Session(engine) as s:
        s.add(row)
        try:
            s.commit()
        except IntegrityError:
            s.rollback()
            raise Conflict(f"judge version {config.hash} was stored meanwhile; retry") from None
        s.refresh(row)
        return row, True


def _load_judge(engine: Engine, row: JudgeRow) -> Resolved:
    saved = yaml_model_from_text(SavedJudge, row.body, "saved judge", f"stored judge {row.hash}")
    assert saved.rubric is not None
    rubric = _rubric_of(get_rubric(engine, saved.rubric))
    return build_judge(saved, JudgeOptions(), rubric)


def get_judge(engine: Engine, ref: str) -> JudgeRow:
    """A judge version by hash (with or without `sha256:`), or the latest version of a name."""
    with Session(engine) as s:
        row = s.get(JudgeRow, _hash_key(ref))
        if row is None:
            row = s.exec(
                select(JudgeRow)
                .where(JudgeRow.name == ref)
                .order_by(col(JudgeRow.created_at).desc())
                .limit(1)
            ).first()
    if row is None:
        raise NotFound(f"no judge '{ref}' in the store (GET /api/judges lists them)")
    return row


def resolve_stored_judge(engine: Engine, ref: str) -> Resolved:
    """The judge of a stored version (by hash or name): configuration, rubric, retry policy,
    concurrency, exactly as the CLI resolves a saved judge."""
    return _load_judge(engine, get_judge(engine, ref))


def judge_info(engine: Engine, row: JudgeRow) -> JudgeOut:
    """A judge version as `calibrant judges list` shows it, with who stored it and when."""
    config, rubric, _, _ = _load_judge(engine, row)
    entry = judge_entry(row.name, config, rubric, Runs(engine))
    return JudgeOut(**dict(entry), created_by=row.created_by, created_at=iso(row.created_at))


def judge_detail(engine: Engine, row: JudgeRow) -> JudgeDetail:
    """A judge version with its configuration as stored (YAML, a credential masked)."""
    return JudgeDetail(**dict(judge_info(engine, row)), yaml=_masked(row.body))


def list_judges(engine: Engine) -> list[JudgeRow]:
    with Session(engine) as s:
        return list(
            s.exec(select(JudgeRow).order_by(col(JudgeRow.name), col(JudgeRow.created_at).desc()))
        )
