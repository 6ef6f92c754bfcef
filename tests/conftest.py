"""Shared fixtures.

`db_url` runs a test once on SQLite (a fresh file) and, when TIANSHEN_TEST_DATABASE_URL is
set (an admin URL of a PostgreSQL server, e.g. postgresql+psycopg://postgres@127.0.0.1:54329/x),
once more on a freshly created PostgreSQL database that is dropped afterwards.
`store` is a migrated `Store` on that database.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tianshen.store import Store

PG_ADMIN_URL = os.environ.get("TIANSHEN_TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgresql"] if PG_ADMIN_URL else [])


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of an empty database: SQLite, and PostgreSQL when configured."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    assert PG_ADMIN_URL is not None
    name = f"tianshen_t_{uuid.uuid4().hex[:16]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A Store on a freshly migrated database."""
    s = Store(db_url)
    s.upgrade()
    yield s
    s.close()
