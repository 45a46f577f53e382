"""The calibrant service: an HTTP API for pipelines and a workbench where experts label,
adjudicate and read calibrations, on the same store as the CLI."""

from ..store.users import ROLES, User, Users
from .app import DEFAULT_MAX_BODY_BYTES, create_app

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ROLES", "User", "Users", "create_app"]
