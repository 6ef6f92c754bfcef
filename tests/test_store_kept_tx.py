"""Issue 37: the transactions of the connection a rehearsal's SQLite store (not durable) keeps
between its transactions (`Store._begin`) end as SQLAlchemy's `conn.begin()` ends them:
committed, rolled back, told to the listeners, an error wrapped as SQLAlchemy's (a faster
ending on the DBAPI connection itself was tried against these and left out: docs/testing.md)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from tianshen.store import Store
from tianshen.store import store as store_module
from tianshen.store.store import unusable


def _stores(tmp_path: Path) -> tuple[Store, Store, list[str]]:
    """A rehearsal's store with a game, the ends of its transactions as told to a listener,
    and another (durable) store on the same file, to read what was committed."""
    url = f"sqlite:///{tmp_path / 'k.db'}"
    store = Store(url, durable=False)
    store.upgrade()
    told: list[str] = []
    event.listen(store.engine, "commit", lambda *_: told.append("commit"))
    event.listen(store.engine, "rollback", lambda *_: told.append("rollback"))
    store.create_game(name="kept", ruleset="classic_10", seed=1, config={}, state_json="{}",
                      phase_label="setup", deadline_at=None, players=[], status="new")
    return store, Store(url), told


def _dbapi(store: Store) -> Any:
    assert store._kept is not None
    return store._kept[0].connection.dbapi_connection


def test_a_kept_transaction_is_committed_and_told(tmp_path: Path) -> None:
    store, other, told = _stores(tmp_path)
    store.set_mark(1, "m", "1")
    assert other.marks(1) == {"m": "1"}
    assert told == ["commit", "commit"] and not _dbapi(store).in_transaction
    store.close(), other.close()


def test_a_transaction_that_read_through_sqlalchemy_is_ended_too(tmp_path: Path) -> None:
    """A `conn.execute` (the game's head read) begins SQLAlchemy's own transaction: it is
    committed, and the connection is kept without one."""
    store, other, told = _stores(tmp_path)
    store.commit_step(1, inbound=None, event_kind="setup", event_payload="{}", phase_label="setup",
                      state_json="{}", status="new", deadline_at=None, winner=None, players=None, outbox=[])
    assert other.step_seq(1) == 1
    assert store._kept is not None and not store._kept[0].in_transaction()
    assert told == ["commit", "commit"] and not _dbapi(store).in_transaction
    store.close(), other.close()


def test_a_failed_transaction_is_rolled_back_and_told(tmp_path: Path) -> None:
    store, other, told = _stores(tmp_path)
    store.set_mark(1, "m", "1")
    with pytest.raises(RuntimeError), store._conn() as conn:
        store_module._set_marks(conn, 1, {"m": "2"})
        raise RuntimeError("a step that failed")
    assert told[-1] == "rollback"
    assert other.marks(1) == {"m": "1"} and store.marks(1) == {"m": "1"}
    store.close(), other.close()


class _CommitFails:
    """A DBAPI connection whose commit fails as a full disk's would."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def commit(self) -> None:
        raise sqlite3.OperationalError("disk I/O error")


def test_a_failed_commit_is_sqlalchemys_error_and_writes_nothing(tmp_path: Path) -> None:
    """`unusable` reads it (the daemon stops writing), the step's writes are rolled back, and
    the store goes on with another connection."""
    store, other, _told = _stores(tmp_path)
    store.set_mark(1, "m", "1")
    assert store._kept is not None
    fairy = store._kept[0].connection
    fairy.dbapi_connection = _CommitFails(fairy.dbapi_connection)
    with pytest.raises(OperationalError) as caught:
        store.set_mark(1, "m", "2")
    assert unusable(caught.value) == ("write", "disk I/O error")
    assert store._kept is None  # let go
    assert other.marks(1) == {"m": "1"} and store.marks(1) == {"m": "1"}
    store.close(), other.close()
