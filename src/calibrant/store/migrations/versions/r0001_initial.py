"""Schema 1: the store as the first calibrant wrote it (metadata and cached judgments).

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calibrant_meta",
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("value", sa.String(), nullable=False),
    )
    op.create_table(
        "calibrant_judgments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("transcript_hash", sa.String(), nullable=False),
        sa.Column("judge_hash", sa.String(), nullable=False),
        sa.Column("sample_index", sa.Integer(), nullable=False),
        sa.Column("transcript_id", sa.String(), nullable=False),
        sa.Column("outcome", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("payload", sa.String(), nullable=False),
        sa.UniqueConstraint(
            "transcript_hash", "judge_hash", "sample_index", name="uq_judgment_identity"
        ),
    )
    op.create_index(
        "ix_calibrant_judgments_transcript_hash", "calibrant_judgments", ["transcript_hash"]
    )
    op.create_index("ix_calibrant_judgments_judge_hash", "calibrant_judgments", ["judge_hash"])
    op.execute("INSERT INTO calibrant_meta (key, value) VALUES ('schema_version', '1')")


def downgrade() -> None:
    op.drop_table("calibrant_judgments")
    op.drop_table("calibrant_meta")
