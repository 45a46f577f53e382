"""Schema 3: provenance — runs (calibrations, scoring batches, comparisons) and score rows.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calibrant_runs",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("who", sa.String(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("calibrant_version", sa.String(), nullable=False),
        sa.Column("judge_hash", sa.String(), nullable=True),
        sa.Column("judge", sa.String(), nullable=True),
        sa.Column("rubric_hash", sa.String(), nullable=True),
        sa.Column("prompt_template_version", sa.String(), nullable=True),
        sa.Column("sampling", sa.String(), nullable=True),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("arguments", sa.String(), nullable=False),
        sa.Column("summary", sa.String(), nullable=True),
    )
    op.create_index("ix_calibrant_runs_kind", "calibrant_runs", ["kind"])
    op.create_index("ix_calibrant_runs_judge_hash", "calibrant_runs", ["judge_hash"])
    op.create_table(
        "calibrant_scores",
        sa.Column("run_id", sa.String(), primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("transcript_id", sa.String(), nullable=False),
        sa.Column("transcript_hash", sa.String(), nullable=False),
        sa.Column("safety", sa.String(), nullable=False),
        sa.Column("violated", sa.String(), nullable=False),
        sa.Column("judge_outcome", sa.String(), nullable=False),
        sa.Column("labels", sa.String(), nullable=False),
    )
    op.create_index("ix_calibrant_scores_transcript_hash", "calibrant_scores", ["transcript_hash"])
    op.execute("UPDATE calibrant_meta SET value = '3' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_table("calibrant_scores")
    op.drop_table("calibrant_runs")
    op.execute("UPDATE calibrant_meta SET value = '2' WHERE key = 'schema_version'")
