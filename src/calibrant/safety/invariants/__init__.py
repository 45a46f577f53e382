"""The registered invariants. Importing this package registers them, in this order."""

from . import integrity, outcome, payments, tenancy, workflow

__all__ = ["integrity", "outcome", "payments", "tenancy", "workflow"]
