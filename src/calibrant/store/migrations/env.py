"""Alembic environment: migrations run on the connection `make_engine` hands over (inside its
lock and transaction), never from a config file or a URL of their own."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
