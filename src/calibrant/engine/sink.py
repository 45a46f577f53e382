"""The notification sink: the receiver of the messages a service's tools send. Every attempt is
kept; a message is accepted once per tenant and idempotency key (a repeat is a `duplicate`,
answered with the first message's id and never delivered again)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict
from sqlmodel import Session, col, select

from ..contracts import AcceptedMessage, NotificationAttempt, NotificationSink
from .service import Caller, Service
from .tables import AcceptedRow, AttemptRow

__all__ = [
    "Sent",
    "SinkAttempt",
    "SinkMessage",
    "Sink",
    "send",
    "read_sink",
    "notification_sink",
]


class Sent(BaseModel):
    """What the receiver answered: accepted (a new message) or duplicate (key seen before)."""

    model_config = ConfigDict(frozen=True)

    status: Literal["accepted", "duplicate"]
    message_id: str


class SinkAttempt(BaseModel):
    """One attempt, as the receiver recorded it."""

    attempt_id: str
    seq: int
    at: datetime
    call_id: str | None
    tenant_id: str
    idempotency_key: str
    recipient: str
    kind: str
    subject: str
    body: str
    result: str
    details: dict[str, str | int | None]


class SinkMessage(BaseModel):
    """A message the receiver accepted for delivery."""

    message_id: str
    attempt_id: str
    tenant_id: str
    idempotency_key: str
    seq: int


class Sink(BaseModel):
    """The receiver's records: every attempt, and the accepted messages apart."""

    attempts: list[SinkAttempt]
    accepted: list[SinkMessage]


def send(
    s: Session,
    caller: Caller,
    call_id: str,
    seq: int,
    *,
    key: str,
    recipient: str,
    kind: str,
    subject: str,
    body: str,
    details: dict[str, str | int | None],
) -> Sent:
    """Record an attempt at instant `seq`; accept it unless the tenant already sent `key`."""
    prior = s.exec(
        select(AcceptedRow).where(
            AcceptedRow.tenant_id == caller.tenant_id, AcceptedRow.idempotency_key == key
        )
    ).first()
    attempt = AttemptRow(
        attempt_id=f"att_{seq:04d}",
        seq=seq,
        call_id=call_id,
        tenant_id=caller.tenant_id,
        idempotency_key=key,
        recipient=recipient,
        kind=kind,
        subject=subject,
        body=body,
        result="duplicate" if prior else "accepted",
        details=details,
    )
    s.add(attempt)
    if prior is not None:
        return Sent(status="duplicate", message_id=prior.message_id)
    msg = AcceptedRow(
        message_id=f"msg_{seq:04d}",
        attempt_id=attempt.attempt_id,
        tenant_id=caller.tenant_id,
        idempotency_key=key,
        seq=seq,
    )
    s.add(msg)
    return Sent(status="accepted", message_id=msg.message_id)


def read_sink(svc: Service) -> Sink:
    """Every attempt and every accepted message, in the order they happened."""
    with Session(svc.engine) as s:
        attempts = s.exec(select(AttemptRow).order_by(col(AttemptRow.seq))).all()
        accepted = s.exec(select(AcceptedRow).order_by(col(AcceptedRow.seq))).all()
        return Sink(
            attempts=[
                SinkAttempt(
                    **{**a.model_dump(), "details": dict(a.details or {})}, at=svc.at(a.seq)
                )
                for a in attempts
            ],
            accepted=[SinkMessage(**m.model_dump()) for m in accepted],
        )


def notification_sink(svc: Service) -> NotificationSink:
    """The receiver's records as a transcript carries them: every attempt (with the order and
    amount a message's details name, if any), and the accepted messages apart."""
    sink = read_sink(svc)
    return NotificationSink(
        attempts=[
            NotificationAttempt(
                attempt_id=a.attempt_id,
                seq=a.seq,
                at=a.at,
                call_id=a.call_id,
                tenant_id=a.tenant_id,
                idempotency_key=a.idempotency_key,
                recipient=a.recipient,
                kind=a.kind,
                order_id=a.details.get("order_id"),
                amount_minor_units=a.details.get("amount_minor_units"),
                subject=a.subject,
                body=a.body,
                result=a.result,
            )
            for a in sink.attempts
        ],
        accepted=[
            AcceptedMessage(
                message_id=m.message_id,
                attempt_id=m.attempt_id,
                idempotency_key=m.idempotency_key,
                seq=m.seq,
            )
            for m in sink.accepted
        ],
    )
