"""Schema 2: claims (leases on items being judged), sources (files already read), and cached
judgments re-keyed under a judge hash that no longer includes the endpoint URL.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

from calibrant.store.migrate import rekey_without_endpoint

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calibrant_claims",
        sa.Column("transcript_hash", sa.String(), primary_key=True),
        sa.Column("judge_hash", sa.String(), primary_key=True),
        sa.Column("sample_index", sa.Integer(), primary_key=True),
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_calibrant_claims_owner", "calibrant_claims", ["owner"])
    op.create_table(
        "calibrant_sources",
        sa.Column("file_sha256", sa.String(), primary_key=True),
        sa.Column("reader", sa.String(), primary_key=True),
        sa.Column("transcript_hash", sa.String(), nullable=False),
        sa.Column("transcript_id", sa.String(), nullable=False),
        sa.Column("safety", sa.String(), nullable=False),
    )
    rekey_without_endpoint(op.get_bind())
    op.execute("UPDATE calibrant_meta SET value = '2' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_table("calibrant_sources")
    op.drop_table("calibrant_claims")
    op.execute("UPDATE calibrant_meta SET value = '1' WHERE key = 'schema_version'")
