"""A process killed during the schema build or a migration leaves a database the next start
can upgrade: every DDL statement, killed just after it ran, on every backend."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, create_engine, event, text

from tianshen.store import Store
from tianshen.store.models import Base
from tianshen.store.store import alembic_config

WRITES = ("CREATE", "ALTER", "DROP", "INSERT", "UPDATE", "DELETE")


def _head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def _is_write(statement: str) -> bool:
    return statement.lstrip().upper().startswith(WRITES)


def _upgrade_killed_after(url: str, n: int) -> int:
    """Fork a child that runs `Store(url).upgrade()` and SIGKILLs itself right after its n-th
    write statement (0: never); returns how many write statements the child ran."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        code = 1
        try:
            count = 0

            def after(_conn: Any, _cur: Any, statement: str, *_rest: Any) -> None:
                nonlocal count
                if _is_write(statement):
                    count += 1
                    os.write(write, b".")
                    if count == n:
                        os.kill(os.getpid(), signal.SIGKILL)

            event.listen(Engine, "after_cursor_execute", after)
            Store(url).upgrade()
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    ran = b""
    while chunk := os.read(read, 1024):
        ran += chunk
    os.close(read)
    _, status = os.waitpid(pid, 0)
    if n and n <= len(ran):
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    else:
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    return len(ran)


def _wipe(url: str) -> None:
    """Empty the database at `url` (a new SQLite file, or PostgreSQL's public schema)."""
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        for suffix in ("", "-journal", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        return
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def _assert_schema_is_head(url: str) -> None:
    store = Store(url)
    try:
        store.upgrade()
        with store.engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(ctx, Base.metadata)
            version = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        assert diff == [], f"migration and models differ: {diff}"
        assert version == [_head()]
    finally:
        store.close()


def _first_release(url: str) -> None:
    """A database of migration 0001 that holds one game with three events."""
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg = alembic_config(url)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.execute(text("INSERT INTO games (id, name, ruleset, seed, status, phase_label, state_json, config_json,"
                          " created_at, updated_at) VALUES (1, 'old', 'classic_8', 1, 'running', 'night 1', '{}',"
                          " '{}', '2026-01-01 00:00:00', '2026-01-01 00:00:00')"))
        for seq in (1, 2, 3):
            conn.execute(text("INSERT INTO events (game_id, seq, phase_label, kind, payload_json, created_at)"
                              f" VALUES (1, {seq}, 'night 1', 'pm', '{{}}', '2026-01-01 00:00:00')"))
    engine.dispose()


def _kill_at_every_statement(url: str, prepare: Callable[[str], None], check: Callable[[str], None]) -> int:
    _wipe(url)
    prepare(url)
    total = _upgrade_killed_after(url, 0)
    assert total > 0
    for n in range(1, total + 1):
        _wipe(url)
        prepare(url)
        assert _upgrade_killed_after(url, n) == n
        _assert_schema_is_head(url)
        check(url)
    return total


def test_the_first_schema_build_survives_a_kill_at_every_statement(db_url: str) -> None:
    total = _kill_at_every_statement(db_url, lambda _url: None, lambda _url: None)
    assert total >= 10  # every table of 0001 and 0002, and the version row


def _the_old_game_is_whole(url: str) -> None:
    store = Store(url)
    try:
        assert store.step_seq(1) == 3
        assert [e.seq for e in store.events(1)] == [1, 2, 3]
        assert store.load_game(1).board == ""
    finally:
        store.close()


def test_a_first_release_database_survives_a_kill_at_every_statement_of_the_upgrade(db_url: str) -> None:
    total = _kill_at_every_statement(db_url, _first_release, _the_old_game_is_whole)
    assert total >= 5  # the columns of 0002, the step seq fill, the leases table, the version


def test_the_alembic_command_line_path_is_one_transaction_too(tmp_path: Any) -> None:
    """`alembic upgrade` (env.py without a handed-in connection) killed after its first DDL."""
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            def after(_conn: Any, _cur: Any, statement: str, *_rest: Any) -> None:
                if statement.lstrip().upper().startswith("CREATE TABLE GAMES"):
                    os.kill(os.getpid(), signal.SIGKILL)

            event.listen(Engine, "after_cursor_execute", after)
            cfg = alembic_config(url)
            command.upgrade(cfg, "head")
        finally:
            os._exit(1)
    os.close(write)
    os.read(read, 1)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status)
    _assert_schema_is_head(url)
