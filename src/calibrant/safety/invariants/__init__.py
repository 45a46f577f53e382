"""The registered invariants. Importing this package registers them, in this order (the order
of every verdict's results)."""

from . import integrity, outcome, payments, tenancy, workflow

# isort: split
from . import notifications  # offered only to packs declaring a message cap: last

__all__ = ["integrity", "notifications", "outcome", "payments", "tenancy", "workflow"]
