"""A game's pending outbox rows are read without going over the rows it sent (issue 37,
migration 0010): a daemon asks every game of its board, over ones too, for its pending
rows on every tick (`Store.pending_for_games`), so what that read touches must not grow
with what the games sent before.  Counted, not timed: on PostgreSQL the rows the plan
reads (EXPLAIN ANALYZE: rows found and rows dropped by a filter), on SQLite the virtual
machine's steps (a progress handler called on every one)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert, text

from tianshen.store import Store
from tianshen.store.models import Game, OutboxRow
from tianshen.store.store import _PENDING, _PENDING_OF

T0 = datetime(2026, 12, 7, 1, 0, tzinfo=UTC)
GAMES = 40


def _games(conn: Connection) -> list[int]:
    rows = [dict(name=f"g{n}", board="b", ruleset="classic_10", seed=n, status="over", phase_label="over",
                 state_json="{}", config_json="{}", created_at=T0, updated_at=T0, step_seq=0) for n in range(GAMES)]
    conn.execute(insert(Game), rows)
    return list(conn.execute(text("SELECT id FROM games ORDER BY id")).scalars())


def _outbox(conn: Connection, ids: list[int], first: int, count: int, status: str) -> None:
    """`count` rows of each game from outbox seq `first` on."""
    conn.execute(insert(OutboxRow), [
        dict(game_id=gid, seq=seq, kind="pm", target="甲", body="查验结果", key=f"{gid}:{seq}", status=status,
             created_at=T0, parts_done=0)
        for gid in ids for seq in range(first, first + count)])


def _touched(conn: Connection, statement: Any, params: dict[str, Any]) -> int:
    """What running `statement` costs, as a count: PostgreSQL's rows read (found or dropped
    by a filter) on `outbox`, SQLite's virtual machine steps."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("ANALYZE outbox"))  # (a daemon's database has its statistics)
        run = statement.compile(dialect=conn.dialect).construct_expanded_state(params)  # (the IN list's)
        plan = conn.exec_driver_sql("EXPLAIN (ANALYZE, FORMAT JSON) " + run.statement, run.parameters).scalar()
        return _rows_read((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"])
    steps = [0]
    raw = conn.connection.driver_connection

    def step() -> int:
        steps[0] += 1
        return 0

    raw.set_progress_handler(step, 1)
    try:
        conn.execute(statement, params).all()
    finally:
        raw.set_progress_handler(None, 1)
    return steps[0]


def _rows_read(node: dict[str, Any]) -> int:
    own = 0
    if node.get("Relation Name") == "outbox":  # (a bitmap heap scan counts its index's rows)
        loops = node.get("Actual Loops", 1)
        own = (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)
               + node.get("Rows Removed by Index Recheck", 0)) * loops
    return own + sum(_rows_read(child) for child in node.get("Plans", []))


def test_a_games_pending_rows_are_read_without_the_rows_it_sent(db_url: str) -> None:
    store = Store(db_url)
    store.upgrade()
    try:
        with store.engine.begin() as conn:
            ids = _games(conn)
            _outbox(conn, ids, 1, 30, "sent")
            _outbox(conn, ids[:1], 1000, 3, "pending")
        with store.engine.connect() as conn:
            before = (_touched(conn, _PENDING_OF, dict(gids=ids)), _touched(conn, _PENDING, dict(gid=ids[0])))
        with store.engine.begin() as conn:  # the games sent three times as much
            _outbox(conn, ids, 31, 60, "sent")
        with store.engine.connect() as conn:
            after = (_touched(conn, _PENDING_OF, dict(gids=ids)), _touched(conn, _PENDING, dict(gid=ids[0])))
        assert after == before
        if store.engine.dialect.name == "postgresql":
            assert after == (3, 3)  # the pending rows, and no other
        assert [r.seq for r in store.pending_for_games(ids)] == [1000, 1001, 1002]
        assert [r.seq for r in store.pending_outbox(ids[0])] == [1000, 1001, 1002]
    finally:
        store.close()


def test_migration_0010_adds_the_pending_index_and_its_downgrade_drops_it(db_url: str) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from tianshen.store.store import alembic_config

    def pending_index() -> list[Any]:
        return [ix["column_names"] for ix in inspect(store.engine).get_indexes("outbox")
                if ix["name"] == "ix_outbox_pending"]

    store = Store(db_url)
    store.upgrade()
    try:
        assert pending_index() == [["game_id", "seq"]]
        cfg = alembic_config(db_url)
        with store.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0009")
        store.engine.dispose()
        assert pending_index() == []
        store.upgrade()
        assert pending_index() == [["game_id", "seq"]]
        with store.engine.begin() as conn:  # the index holds the pending rows only
            ids = _games(conn)
            _outbox(conn, ids[:2], 1, 2, "sent")
            _outbox(conn, ids[:1], 3, 1, "pending")
            if conn.dialect.name == "sqlite":
                plan = " ".join(str(r) for r in conn.exec_driver_sql(
                    "EXPLAIN QUERY PLAN SELECT id FROM outbox WHERE game_id = 1 AND status = 'pending'"))
                assert "ix_outbox_pending" in plan
        assert [r.seq for r in store.pending_outbox(ids[0])] == [3]
    finally:
        store.close()
