"""The calibrant service: an HTTP API for pipelines and a workbench where experts label,
adjudicate and read calibrations, on the same store as the CLI."""

from .app import DEFAULT_MAX_BODY_BYTES, create_app
from .users import ROLES, User, Users

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ROLES", "User", "Users", "create_app"]
