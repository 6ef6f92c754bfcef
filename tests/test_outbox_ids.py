"""Issue 37: a step's outbox rows written by one executemany on SQLite, each row's id given
by the store (the first row's its rowid, the others the ones after it).  The ids a store
answers must be the database's while other stores (another daemon, another game) write
outbox rows in between."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import event, select

from tianshen.store import OutboxItem, Store
from tianshen.store.models import OutboxRow

T0 = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)


def _game(store: Store, name: str) -> int:
    return store.create_game(name=name, ruleset="classic_10", seed=1, config={}, state_json="{}",
                             phase_label="night 1", deadline_at=None, players=[], at=T0)


def _step(store: Store, gid: int, count: int, tag: str) -> None:
    items = [OutboxItem(kind="pm", target=f"玩家{n}", body=f"{tag}.{n}") for n in range(count)]
    store.commit_step(gid, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                      state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                      outbox=items, at=T0)


def _stored(store: Store) -> dict[str, tuple[int, int, str]]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(OutboxRow.key, OutboxRow.id, OutboxRow.game_id, OutboxRow.body)).all()
    return {key: (oid, gid, body) for key, oid, gid, body in rows}


def test_two_stores_interleaving_steps_answer_the_databases_ids(db_url: str) -> None:
    """Two stores on one database (and a third's game made between): each step's rows
    queued with the ids the database holds for their keys, every row once."""
    one, two, three = (Store(db_url, durable=durable) for durable in (False, True, False))
    one.upgrade()
    a, b = _game(one, "a"), _game(two, "b")
    for turn, count in enumerate((3, 1, 5, 2, 4)):
        _step(one, a, count, f"a{turn}")
        _step(two, b, count + 1, f"b{turn}")
        if turn == 2:
            _game(three, "c")
            two.add_outbox(a, [OutboxItem(kind="pm", target="GM", body="外")])  # (the ORM's insert)
    stored = _stored(one)
    for store, gid in ((one, a), (two, b)):
        queued = store.queued(gid)
        assert {r.key: (r.id, r.game_id, r.body) for r in queued} == {
            k: v for k, v in stored.items() if v[1] == gid and ":extra:" not in k}
        assert len(queued) == (15 if gid == a else 20)
    assert len({oid for oid, _, _ in stored.values()}) == len(stored) == 36
    for store in (one, two, three):
        store.close()


def test_a_steps_rows_are_one_statement_on_sqlite_after_the_first(store: Store) -> None:
    """On SQLite the first row's INSERT (its id bound NULL: the rowid), then the others' as
    one executemany of the same statement, their ids bound; the ids in the rows' order."""
    gid = _game(store, "g")
    seen: list[tuple[bool, int]] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: seen.append(
        (a[5], len(a[3]) if a[5] else 1)) if a[2].startswith("INSERT INTO outbox") else None)
    _step(store, gid, 6, "g")
    if store.engine.dialect.name == "sqlite":
        assert seen == [(False, 1), (True, 5)]
    queued = store.queued(gid)
    assert [r.id for r in queued] == list(range(queued[0].id, queued[0].id + 6))
    assert {r.key: (r.id, r.game_id, r.body) for r in queued} == _stored(store)
