"""Schema 4: the service — users (hashed tokens), items uploaded for labeling, expert labels,
adjudications, rubrics and judge versions kept in the store, and background jobs.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calibrant_users",
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_calibrant_users_token_hash", "calibrant_users", ["token_hash"], unique=True)
    op.create_table(
        "calibrant_items",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("transcript_hash", sa.String(), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("queue", sa.String(), nullable=False),
        sa.Column("rubric_hash", sa.String(), nullable=False),
        sa.Column("uploaded_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_calibrant_items_transcript_hash", "calibrant_items", ["transcript_hash"])
    op.create_index("ix_calibrant_items_queue", "calibrant_items", ["queue"])
    op.create_table(
        "calibrant_labels",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("item", sa.String(), nullable=False),
        sa.Column("rater", sa.String(), nullable=False),
        sa.Column("criterion", sa.String(), nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("item", "rater", "criterion", name="uq_label_identity"),
    )
    op.create_index("ix_calibrant_labels_item", "calibrant_labels", ["item"])
    op.create_index("ix_calibrant_labels_rater", "calibrant_labels", ["rater"])
    op.create_table(
        "calibrant_label_views",
        sa.Column("item", sa.String(), primary_key=True),
        sa.Column("viewer", sa.String(), primary_key=True),
        sa.Column("first_seen_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "calibrant_adjudications",
        sa.Column("item", sa.String(), primary_key=True),
        sa.Column("criterion", sa.String(), primary_key=True),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("decided_by", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "calibrant_rubrics",
        sa.Column("content_hash", sa.String(), primary_key=True),
        sa.Column("rubric_id", sa.String(), nullable=False),
        sa.Column("version", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_calibrant_rubrics_rubric_id", "calibrant_rubrics", ["rubric_id"])
    op.create_table(
        "calibrant_judges",
        sa.Column("hash", sa.String(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_calibrant_judges_name", "calibrant_judges", ["name"])
    op.create_table(
        "calibrant_jobs",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("params", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("run_id", sa.String(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_calibrant_jobs_kind", "calibrant_jobs", ["kind"])
    op.create_index("ix_calibrant_jobs_status", "calibrant_jobs", ["status"])
    op.execute("UPDATE calibrant_meta SET value = '4' WHERE key = 'schema_version'")


def downgrade() -> None:
    for table in (
        "calibrant_jobs",
        "calibrant_judges",
        "calibrant_rubrics",
        "calibrant_adjudications",
        "calibrant_label_views",
        "calibrant_labels",
        "calibrant_items",
        "calibrant_users",
    ):
        op.drop_table(table)
    op.execute("UPDATE calibrant_meta SET value = '3' WHERE key = 'schema_version'")
