"""Issue 37: the sender makes each part's write as a small tuple (`sender._Part`), and a
`Write` only for `find_written` (a retry after a crash).  Each kind of part asks the forum
the same question as before and writes the same thing."""

from __future__ import annotations

from datetime import UTC, datetime

from tianshen.forum.base import Write
from tianshen.forum.memory import MemoryBoard
from tianshen.service.sender import OutboxSender
from tianshen.store import OutboxRecord

T = datetime(2026, 1, 1, 20, tzinfo=UTC)


def _row(kind: str, target: str, key: str, title: str | None = None, subject: str | None = None) -> OutboxRecord:
    return OutboxRecord(id=1, game_id=1, seq=1, kind=kind, target=target, title=title, subject=subject, body="x",
                        key=key, status="pending", forum_ref=None, created_at=T, sent_at=None)


def _sender() -> tuple[OutboxSender, MemoryBoard]:
    board = MemoryBoard(lambda: T)
    forum = board.gm()
    forum.login()
    sender = OutboxSender(None, forum, "test")  # type: ignore[arg-type]  (no store read: threads known)
    sender.none_opened(1)
    return sender, board


def test_each_kind_of_part_is_the_write_find_written_is_asked_about() -> None:
    sender, _ = _sender()
    pm = sender._to_write(_row("pm", "甲", "g:1:0", subject="天神回复"), 1, ["一", "二"], "g:1:0#2")
    assert pm.write() == Write(kind="pm", key="g:1:0#2", body="二", to="甲", subject="天神回复（2/2）")
    opened = sender._to_write(_row("post", "vote:1", "g:2:0", title="投票贴"), 0, ["开帖"], "g:2:0")
    assert opened.write() == Write(kind="thread", key="g:2:0", body="开帖", title="投票贴")
    sender._threads[(1, "vote:1")] = "7"
    reply = sender._to_write(_row("post", "vote:1", "g:3:0"), 0, ["回帖"], "g:3:0")
    assert reply.write() == Write(kind="reply", key="g:3:0", body="回帖", thread_id="7")


def test_each_kind_of_part_is_written_to_the_board_as_it_says() -> None:
    sender, board = _sender()
    pm = sender._to_write(_row("pm", "甲", "k1", subject="天神回复"), 0, ["你好"], "k1")
    assert sender._do(pm) == ""
    assert [(p.sender, p.subject, p.text) for p in board.inbox("甲")] == [("神的使者", "天神回复", "你好")]
    opened = sender._to_write(_row("post", "vote:1", "k2", title="投票贴"), 0, ["开帖"], "k2")
    thread = sender._do(opened)
    assert board.threads() == [(thread, "投票贴")]
    sender._note_thread(_row("post", "vote:1", "k2"), opened, thread)
    reply = sender._to_write(_row("post", "vote:1", "k3"), 0, ["回帖"], "k3")
    post = int(sender._do(reply))
    assert [(p.id, p.text) for p in board.thread_posts(thread)][1:] == [(post, "回帖")]
