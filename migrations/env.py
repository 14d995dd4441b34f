"""Alembic environment: SQLModel metadata, batch mode for SQLite, connection from the app."""

from alembic import context
from sqlalchemy import create_engine
from sqlmodel import SQLModel

import infracards.store.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from infracards.paths import database_path, home

target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        engine = create_engine(f"sqlite:///{database_path(home())}")
        with engine.begin() as connection:
            _run(connection)
    else:
        _run(connection)


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite cannot ALTER most things; batch mode recreates tables
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
