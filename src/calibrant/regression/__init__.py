"""Production failures become regression cases: a transcript turned into a case contract with
personal data redacted and the expected outcome left for a person to confirm."""

from .draft import Draft, draft_case
from .redact import Redactor

__all__ = ["Draft", "Redactor", "draft_case"]
