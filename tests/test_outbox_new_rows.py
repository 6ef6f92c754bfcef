"""Issue 37: a step's new outbox rows — on SQLite the values every new row holds are written
into the INSERT (`_NEW_OUTBOX`), not bound a row, and the records a step answers are made
with their instance dict whole (`_new_record`).  What the database holds and what the
store answers must still be the same row."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime

from tianshen.store import OutboxItem, Store
from tianshen.store.store import OutboxRecord, _new_record

T0 = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)


def test_a_steps_rows_read_back_are_the_records_it_answered(store: Store) -> None:
    """Every field of each new row as the database holds it equals the queued record's
    (status, sent_at, forum_ref, parts_done: the constants; the rest bound)."""
    gid = store.create_game(name="g", ruleset="classic_10", seed=1, config={}, state_json="{}",
                            phase_label="night 1", deadline_at=None, players=[], at=T0)
    items = [OutboxItem(kind="pm", target="玩家1", body="一"), OutboxItem(kind="post", target="main", body="二",
                                                                       title="题"),
             OutboxItem(kind="pm", target="玩家2", body="三", subject="主题", key="k3")]
    for _ in range(2):  # the first step's rows and the next one's (its first row alone, the rest one statement)
        store.commit_step(gid, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                          state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                          outbox=items[:2] if _ else items, at=T0)
    queued = store.queued(gid)
    assert len(queued) == 5
    read = Store(store.url).outbox(gid)  # another store: read from the database
    assert read == queued
    assert {(r.status, r.sent_at, r.forum_ref, r.parts_done) for r in read} == {("pending", None, None, 0)}


def test_a_new_record_is_the_dataclass_made_by_keyword() -> None:
    """`_new_record` gives every field of `OutboxRecord`, in order, as its `__init__` would."""
    row = {"game_id": 3, "seq": 7, "kind": "post", "target": "main", "title": "t", "subject": None, "body": "b",
           "key": "g:1:0", "status": "pending", "created_at": T0, "sent_at": None, "forum_ref": None, "parts_done": 0}
    made = _new_record(11, row)
    assert made == OutboxRecord(id=11, game_id=3, seq=7, kind="post", target="main", title="t", subject=None,
                                body="b", key="g:1:0", status="pending", forum_ref=None, created_at=T0, sent_at=None)
    assert list(vars(made)) == [f.name for f in fields(OutboxRecord)]
