"""The parts a flush sent, recorded with the next transaction (`record_parts(later=True)`),
ride the next step (issue 37): on PostgreSQL part of the step's own statement, every record
a row of one JSON parameter, with the threads they opened.  What could go wrong there: a
record or a thread not written, a row's parts out of order, records lost with a step that
fails.  Each is pinned on both databases (on SQLite the records are statements of their own
in the same transaction, as before)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event

from tianshen.store import OutboxItem, SentPart, Store
from tianshen.store.store import StaleState

T0 = datetime(2026, 12, 7, 3, 0, tzinfo=UTC)


def _step(store: Store, game_id: int, seq: int, items: list[OutboxItem]) -> int | None:
    return store.commit_step(game_id, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                             state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                             outbox=items, expected_seq=seq, head=("g", "night 1"), at=T0)


def _game(store: Store) -> tuple[int, list[Any]]:
    """A game with four pending rows: three PMs and a post."""
    game_id = store.create_game(f"ride-{id(store)}", "classic_10", 1, {}, "{}", "night 1", None, [])
    _step(store, game_id, 0, [*(OutboxItem(kind="pm", target=f"p{n}", body=f"第{n}条") for n in range(3)),
                              OutboxItem(kind="post", target="main", title="开局", body="公告")])
    return game_id, store.pending_outbox(game_id)


def _statements(store: Store) -> list[str]:
    said: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: said.append(a[2].split(" (")[0][:40]))
    return said


def test_the_records_and_threads_ride_the_next_step(store: Store) -> None:
    game_id, (a, b, c, post) = _game(store)
    store.record_parts([SentPart(outbox_id=a.id, parts_done=1, done=True, game_id=game_id),
                        SentPart(outbox_id=b.id, parts_done=1, done=False, game_id=game_id),
                        SentPart(outbox_id=post.id, parts_done=1, done=True, forum_ref="77", game_id=game_id,
                                 thread=("main", "t-9"), board_at=T0)], later=True)
    said = _statements(store)
    assert _step(store, game_id, 1, [OutboxItem(kind="pm", target="p9", body="新的")]) == 2
    if store.engine.dialect.name == "postgresql":
        assert len(said) == 1 and said[0].startswith("WITH g AS")  # the step's statement alone
    rows = {r.id: r for r in store.outbox(game_id)}
    assert (rows[a.id].status, rows[a.id].parts_done) == ("sent", 1)
    assert (rows[b.id].status, rows[b.id].parts_done) == ("pending", 1)
    assert (rows[c.id].status, rows[c.id].parts_done) == ("pending", 0)
    assert (rows[post.id].status, rows[post.id].forum_ref, rows[post.id].board_at) == ("sent", "77", T0)
    assert store.threads(game_id) == {"t-9": "main"}
    assert [r.target for r in store.pending_outbox(game_id)] == ["p1", "p2", "p9"]


def test_a_rows_parts_in_one_flush_are_recorded_in_order_before_the_step(store: Store) -> None:
    """A row's two parts (one UPDATE cannot set a row twice) go as statements of their own,
    first, in order: the row ends sent at its last part."""
    game_id, (a, b, _, _) = _game(store)
    store.record_parts([SentPart(outbox_id=a.id, parts_done=1, done=False, game_id=game_id),
                        SentPart(outbox_id=a.id, parts_done=2, done=True, game_id=game_id),
                        SentPart(outbox_id=b.id, parts_done=1, done=True, game_id=game_id)], later=True)
    assert _step(store, game_id, 1, []) == 2
    rows = {r.id: r for r in store.outbox(game_id)}
    assert (rows[a.id].status, rows[a.id].parts_done) == ("sent", 2)
    assert (rows[b.id].status, rows[b.id].parts_done) == ("sent", 1)


def test_records_riding_a_stale_step_are_written_by_the_next_transaction(store: Store) -> None:
    game_id, (a, *_) = _game(store)
    store.record_parts([SentPart(outbox_id=a.id, parts_done=1, done=True, game_id=game_id,
                                 thread=("day", "t-1"))], later=True)
    with pytest.raises(StaleState):
        _step(store, game_id, 0, [OutboxItem(kind="pm", target="p9", body="旧的")])
    assert store.threads(game_id) == {"t-1": "day"}  # (this read's transaction wrote them)
    assert {r.id: r.status for r in store.outbox(game_id)}[a.id] == "sent"
    assert [r.target for r in store.outbox(game_id)] == ["p0", "p1", "p2", "main"]
