"""Shared fixtures.

`db_url` runs a test once on SQLite (a fresh file) and, when TIANSHEN_TEST_DATABASE_URL is
set (an admin URL of a PostgreSQL server, e.g. postgresql+psycopg://postgres@127.0.0.1:54329/x),
once more on a freshly created PostgreSQL database that is dropped afterwards.
`store` is a migrated `Store` on that database.

Under pytest-xdist (`make test` runs `-n 2`) every worker gets a PostgreSQL database of its
own, created from TIANSHEN_TEST_DATABASE_URL (which then names it, in that worker), and the
workers are handed the long tests first (`scheduling.py`); each test's time is kept in
pytest's cache for the next run's order.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from migrated import migrated_sqlite
from tianshen.store import Store

PG_ADMIN_URL = os.environ.get("TIANSHEN_TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgresql"] if PG_ADMIN_URL else [])
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if WORKER and os.environ.get("COLUMNS") == "80":
    # an xdist worker is started with COLUMNS=80, which fixes the width of the CLI's rich
    # console at 80 for good (its lines wrap); a test sets the width it needs, as in a serial run
    del os.environ["COLUMNS"]
_WORKER_DB: tuple[str, str] | None = None  # (the server's admin URL, this worker's database)


def _commands_once() -> None:
    """typer's CliRunner builds the click command tree of the app again at every `invoke`
    (about 0.18 s for tianshen's, more than most commands take): built once per app and per
    set of registered commands, and the same tree used after."""
    import typer.testing

    build = typer.testing._get_command
    built: dict[tuple[int, int, int], tuple[object, object]] = {}  # the app kept: its id is not reused

    def once(app):  # app: typer.Typer
        key = (id(app), len(app.registered_commands), len(app.registered_groups))
        if key not in built or built[key][0] is not app:
            built[key] = (app, build(app))
        return built[key][1]

    typer.testing._get_command = once


_commands_once()


def _create_worker_database() -> None:
    """This worker's own database on the PostgreSQL server; TIANSHEN_TEST_DATABASE_URL names it."""
    global PG_ADMIN_URL, _WORKER_DB
    assert PG_ADMIN_URL is not None
    base = make_url(PG_ADMIN_URL)
    name = f"{base.database or 'tianshen_test'}_{WORKER}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    _WORKER_DB = (PG_ADMIN_URL, name)
    PG_ADMIN_URL = base.set(database=name).render_as_string(hide_password=False)
    os.environ["TIANSHEN_TEST_DATABASE_URL"] = PG_ADMIN_URL


def _drop_worker_database() -> None:
    if _WORKER_DB is None:
        return
    url, name = _WORKER_DB
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def pytest_configure(config: pytest.Config) -> None:
    if WORKER and PG_ADMIN_URL:
        _create_worker_database()


def pytest_unconfigure(config: pytest.Config) -> None:
    _drop_worker_database()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    if config.getoption("dist") != "load":
        return None  # another --dist mode asked for by name
    from scheduling import DURATIONS_KEY, LongFirst

    cache = getattr(config, "cache", None)
    return LongFirst(config, log, durations=cache.get(DURATIONS_KEY, {}) if cache else {})


_DURATIONS: dict[str, float] = {}
_STARTED = time.monotonic()
_WORKERS: dict[str, list[float]] = {}  # xdist worker -> [seconds of tests, seconds from the start to its last]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _DURATIONS[report.nodeid] = _DURATIONS.get(report.nodeid, 0.0) + report.duration
    node = getattr(report, "node", None)  # the worker that ran it, in the controller of an xdist run
    if node is not None:
        busy = _WORKERS.setdefault(getattr(node.gateway, "id", "?"), [0.0, 0.0])
        busy[0] += report.duration
        busy[1] = time.monotonic() - _STARTED


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Keep each test's time for the next run's order (in the controller, or a run without xdist)."""
    cache = getattr(session.config, "cache", None)
    if WORKER or cache is None or not _DURATIONS:
        return
    from scheduling import DURATIONS_KEY

    kept = dict(cache.get(DURATIONS_KEY, {}))
    kept.update({nodeid: round(seconds, 3) for nodeid, seconds in _DURATIONS.items()})
    cache.set(DURATIONS_KEY, kept)


SUMMARY = "tianshen-summary"  # a user property a test sets for the end-of-run summary


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The one-line summaries tests left in their report (`summary_line`): a worker's output
    is not shown under xdist, its reports' user properties are."""
    lines = {(r.nodeid, value): None for reports in terminalreporter.stats.values() for r in reports
             for key, value in getattr(r, "user_properties", ()) if key == SUMMARY}  # call and teardown
    if lines:
        terminalreporter.section("test summaries")
        for nodeid, value in lines:
            terminalreporter.write_line(f"{nodeid.split('::')[-1]}: {value}")
    if _WORKERS:  # does the scheduler (scheduling.py) keep both workers busy to the end?
        terminalreporter.write_line("xdist workers: " + "; ".join(
            f"{w} {busy:.0f} s of tests, its last ended {last:.0f} s in" for w, (busy, last) in sorted(_WORKERS.items())))


@pytest.fixture
def summary_line(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Adds a line to the run's "test summaries" section (also under `-n 2`)."""
    return lambda line: request.node.user_properties.append((SUMMARY, line))


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
    """A Store on a freshly migrated database (SQLite: a copy of one migrated once, tests/migrated.py)."""
    if db_url.startswith("sqlite:///"):
        migrated_sqlite(Path(db_url.removeprefix("sqlite:///")))
    s = Store(db_url)
    s.upgrade()
    yield s
    s.close()
