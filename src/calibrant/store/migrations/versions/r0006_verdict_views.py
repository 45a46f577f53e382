"""Schema 6: who has read the judge's verdict on a labeling item (a run's report or the
agreement over time that names it). From then on that account's label or decision on the item
would not be blind to the judge, and the service refuses it. A new table; nothing else changes.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calibrant_verdict_views",
        sa.Column("item", sa.String(), primary_key=True),
        sa.Column("viewer", sa.String(), primary_key=True),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("first_seen_at", sa.DateTime(), nullable=False),
    )
    op.execute("UPDATE calibrant_meta SET value = '6' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_table("calibrant_verdict_views")
    op.execute("UPDATE calibrant_meta SET value = '5' WHERE key = 'schema_version'")
