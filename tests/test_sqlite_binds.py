"""Issue 37, store13: the store path's speed changes, each pinned where it could go wrong."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine

from tianshen.store import Store
from tianshen.store import store as store_module
from tianshen.store.models import UTCDateTime

_PROC = UTCDateTime()._cached_bind_processor(create_engine("sqlite://").dialect)  # (as compiled: a text)


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)))
def test_a_utc_times_text_on_sqlite_is_sqlalchemys(naive: datetime) -> None:
    """A UTC time's text made from its own isoformat (no naive copy first) is SQLAlchemy's,
    byte for byte: any year, a whole second (no fraction dropped) or not."""
    quick = store_module._quick(UTCDateTime(), "sqlite", _PROC)
    value = naive.replace(tzinfo=UTC)
    assert quick(value) == _PROC(value)


def test_a_none_is_bound_by_its_registered_adapter_and_stored_as_null(tmp_path: Path) -> None:
    """A SQLite store registers sqlite3's adapter of None (found at once, no AttributeError
    made and dropped for each None bound); what is stored is the same NULL."""
    sqlite3.adapters.pop((type(None), sqlite3.PrepareProtocol), None)
    store = Store(f"sqlite:///{tmp_path}/n.db", durable=False)
    store.upgrade()
    assert sqlite3.adapters[(type(None), sqlite3.PrepareProtocol)](None) is None
    game_id = store.create_game(name="n", ruleset="classic_10", seed=1, config={}, state_json="{}",
                                phase_label="setup", deadline_at=None, players=[])
    with store.engine.connect() as conn:
        row = conn.exec_driver_sql(f"SELECT deadline_at IS NULL, winner IS NULL, typeof(winner) FROM games "
                                   f"WHERE id = {game_id}").one()
    assert tuple(row) == (1, 1, "null")
    store.close()


def test_a_utc_times_text_is_shared_by_the_statements_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The texts of UTC times are kept for every hot statement's processor (a step's time is
    bound by several): an equal time from another statement gets the same text without a
    new one made, and the kept texts are dropped when there are too many."""
    monkeypatch.setattr(store_module, "_UTC_TEXTS", {})
    monkeypatch.setattr(store_module, "_UTC_TEXTS_MAX", 50)
    one = store_module._quick(UTCDateTime(), "sqlite", _PROC)
    other = store_module._quick(UTCDateTime(), "sqlite", _PROC)
    at = datetime(2026, 12, 7, 3, 4, 5, tzinfo=UTC)
    assert one(at) == _PROC(at) == "2026-12-07 03:04:05.000000"
    store_module._UTC_TEXTS[at] = "kept"  # the kept text is the one used
    assert other(at.replace()) == "kept"
    for n in range(1, 200):
        later = at + timedelta(seconds=n)
        assert other(later) == _PROC(later)
        assert len(store_module._UTC_TEXTS) <= 50
