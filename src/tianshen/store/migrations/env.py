"""Alembic environment for the tianshen store.

The database URL comes from, in order: a connection handed in by `Store.upgrade()`
(config.attributes["connection"]), `alembic -x url=...`, the environment variable
TIANSHEN_DATABASE_URL, `sqlalchemy.url` in the config, and finally sqlite:///tianshen.db.
"""

from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection, create_engine, pool

from tianshen.store.models import Base
from tianshen.store.store import ddl_transaction

DEFAULT_URL = "sqlite:///tianshen.db"

config = context.config
target_metadata = Base.metadata

# Only the alembic command line (run with alembic.ini) sets up logging; Store.upgrade() does not.
if config.config_file_name is not None and "connection" not in config.attributes:
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    """The URL to migrate when no connection was handed in."""
    x_url = context.get_x_argument(as_dictionary=True).get("url")
    return (
        x_url
        or os.environ.get("TIANSHEN_DATABASE_URL")
        or config.get_main_option("sqlalchemy.url")
        or DEFAULT_URL
    )


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    """Emit SQL to stdout (`alembic upgrade head --sql`)."""
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_with(connection)
        return
    engine = create_engine(database_url(), poolclass=pool.NullPool)
    try:
        with engine.connect() as conn, ddl_transaction(conn):
            run_with(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
