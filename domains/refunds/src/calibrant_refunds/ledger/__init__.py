"""The controlled refund service: SQLModel tables, authorization, versions, operation ids."""

from .admin import (
    advance,
    change_order,
    create_trial_service,
    decide_approval,
    notification_sink,
    revoke_write,
    snapshot,
)
from .dataset import BASE_TIME, DATASETS, PRINCIPALS
from .ops import OPERATIONS, run_operation
from .service import Caller, Handled, RefundService, at

__all__ = [
    "BASE_TIME",
    "DATASETS",
    "OPERATIONS",
    "PRINCIPALS",
    "Caller",
    "Handled",
    "RefundService",
    "advance",
    "at",
    "change_order",
    "create_trial_service",
    "decide_approval",
    "notification_sink",
    "revoke_write",
    "run_operation",
    "snapshot",
]
