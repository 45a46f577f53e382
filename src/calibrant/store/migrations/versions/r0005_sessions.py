"""Schema 5: workbench sessions kept by the server (expiring, revocable, with their own CSRF
token), and an opaque alias for every labeling item (experts never see the transcript id,
which names the agent, the case and the run). Existing items get a random alias; users,
labels and everything else are kept as they are.

Revision ID: 0005
Revises: 0004
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calibrant_sessions",
        sa.Column("id_hash", sa.String(), primary_key=True),
        sa.Column("user_name", sa.String(), nullable=False),
        sa.Column("csrf", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_calibrant_sessions_user_name", "calibrant_sessions", ["user_name"])
    with op.batch_alter_table("calibrant_items") as batch:
        batch.add_column(sa.Column("alias", sa.String(), nullable=True))
    conn = op.get_bind()
    items = sa.table("calibrant_items", sa.column("id", sa.String), sa.column("alias", sa.String))
    for (item_id,) in conn.execute(sa.select(items.c.id)).all():
        conn.execute(
            items.update().where(items.c.id == item_id).values(alias="item-" + secrets.token_hex(6))
        )
    op.create_index("ix_calibrant_items_alias", "calibrant_items", ["alias"], unique=True)
    op.execute("UPDATE calibrant_meta SET value = '5' WHERE key = 'schema_version'")


def downgrade() -> None:
    op.drop_index("ix_calibrant_items_alias", "calibrant_items")
    with op.batch_alter_table("calibrant_items") as batch:
        batch.drop_column("alias")
    op.drop_table("calibrant_sessions")
    op.execute("UPDATE calibrant_meta SET value = '4' WHERE key = 'schema_version'")
