"""Issue 37: a step's outbox items (`driver._outbox`) and a flush's sent parts
(`OutboxSender._part`) are made by position, not by keyword (half the cost of a dataclass's
`__init__`).  Each must be the record made by keyword: a field of the store's dataclasses
moved or added before these would put a value in the wrong field."""

from __future__ import annotations

from datetime import UTC, datetime

from tianshen.core.model import Outcome, PrivateMessage, PublicPost
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import _ROW, _outbox, _row_dict
from tianshen.service.sender import OutboxSender, _Part
from tianshen.store import OutboxItem, OutboxRecord, SentPart

T = datetime(2026, 1, 1, 20, tzinfo=UTC)


def test_a_steps_outbox_items_are_those_made_by_keyword() -> None:
    outcome = Outcome(state=None, posts=[PublicPost("vote:1", "开帖", "投票帖"), PublicPost("main", "回帖")],
                      pms=[PrivateMessage("甲", "天神回复", "已收到")])  # type: ignore[arg-type]  (no state read)
    assert _outbox(outcome) == [
        OutboxItem(kind="post", target="vote:1", body="开帖", title="投票帖"),
        OutboxItem(kind="post", target="main", body="回帖"),
        OutboxItem(kind="pm", target="甲", body="已收到", subject="天神回复"),
    ]


def _row(kind: str) -> OutboxRecord:
    return OutboxRecord(id=5, game_id=3, seq=1, kind=kind, target="vote:1", title=None, subject=None, body="x",
                        key="k", status="pending", forum_ref=None, created_at=T, sent_at=None)


def test_a_flushs_sent_parts_are_those_made_by_keyword() -> None:
    board = MemoryBoard(lambda: T)
    sender = OutboxSender(None, board.gm(), "test")  # type: ignore[arg-type]  (no store read)
    opened = sender._part(_row("post"), 0, 2, "7", _Part("thread", "k", "开帖", "", "投票帖"))
    assert opened == SentPart(outbox_id=5, parts_done=1, done=False, forum_ref="7", thread=("vote:1", "7"),
                              game_id=3, board_at=T)
    pm = sender._part(_row("pm"), 1, 2, "", _Part("pm", "k#2", "二", "甲", "天神回复（2/2）"))
    assert pm == SentPart(outbox_id=5, parts_done=2, done=True, forum_ref=None, thread=None, game_id=3, board_at=None)


def test_a_players_row_is_its_values_by_the_stores_names_in_order() -> None:
    values = ("甲", "论坛甲", 3, "警察", "好人", False)
    row = _row_dict(values)
    assert row == dict(zip(_ROW, values, strict=True))
    assert list(row) == list(_ROW)
