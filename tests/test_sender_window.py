"""Issue 22 item 8: on a board without idempotency keys, a part written and not recorded is
looked for after the restart, and the same text sent earlier by another row is not taken for
it, nor counted when the board's look-back no longer shows it: the sender's count of known
copies and the adapter's look-back use one window (`forum.base.look_back_from`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from forgetful import ForgetfulForum
from migrated import migrated_sqlite
from tianshen.forum.base import Write, look_back_from
from tianshen.forum.memory import MemoryBoard
from tianshen.service import crash
from tianshen.service.sender import OutboxSender
from tianshen.store import OutboxItem, Store

GM = "神的使者"
RECEIPT = "已收到：✔ 祈祷 飞燕"


class Crash(BaseException):
    """The process dies here."""


def _dies_at(point: str) -> Callable[[str], None]:
    def at(name: str) -> None:
        if name == point:
            raise Crash(name)
    return at


def _backdate(store: Store, board: MemoryBoard, minutes: float) -> None:
    """Everything written so far happened `minutes` earlier (on the board and in the store)."""
    delta = timedelta(minutes=minutes)
    for pm in board._pms.values():
        pm.sent_at -= delta
    with store.engine.begin() as conn:
        for column in ("sent_at", "attempt_since", "created_at"):
            rows = conn.execute(text(f"SELECT id, {column} FROM outbox WHERE {column} IS NOT NULL")).all()
            for row_id, at in rows:
                at = datetime.fromisoformat(at) if isinstance(at, str) else at
                conn.execute(text(f"UPDATE outbox SET {column} = :at WHERE id = :id"), {"at": at - delta, "id": row_id})


def _copies_after_retry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gap: float, retry: float,
                        skew: timedelta, point: str = "after-write") -> int:
    """Receipt A is sent; `gap` minutes later the same receipt B is written and the process
    dies before recording it (or, at "before-write", just before writing it); it restarts `retry` minutes after that.  How many copies does
    the player hold?  (The board's clock runs `skew` ahead of ours.)"""
    board = MemoryBoard(lambda: datetime.now(UTC) + skew)
    store = Store(migrated_sqlite(tmp_path / 'w.db'))
    store.upgrade()
    game = store.create_game(name="g", ruleset="classic_8", seed=1, config={}, state_json="{}",
                             phase_label="night 1", deadline_at=None, players=[], at=datetime.now(UTC))
    receipt = OutboxItem(kind="pm", target="白狐", body=RECEIPT, subject="回执")
    forum = ForgetfulForum(board)
    forum.login()
    store.add_outbox(game, [receipt])
    assert OutboxSender(store, forum, "old").send(store.pending_outbox(game)) == 1
    _backdate(store, board, gap)
    store.add_outbox(game, [receipt])
    monkeypatch.setattr(crash, "point", _dies_at(point))
    with pytest.raises(Crash):
        OutboxSender(store, forum, "old").send(store.pending_outbox(game))
    monkeypatch.setattr(crash, "point", lambda name: None)
    _backdate(store, board, retry)
    store.release_claims(game, "new")  # what the daemon does when it takes over a dead owner's game
    fresh = ForgetfulForum(board)
    fresh.login()
    assert OutboxSender(store, fresh, "new").send(store.pending_outbox(game)) == 1
    assert not store.pending_outbox(game)
    store.close()
    return sum(1 for pm in board._pms.values() if pm.recipient == "白狐" and pm.text == RECEIPT)


SKEWS = pytest.mark.parametrize("skew", [timedelta(0), timedelta(minutes=7), -timedelta(minutes=5)],
                                ids=["same-clock", "board-7min-ahead", "board-5min-behind"])
RETRIES = pytest.mark.parametrize("retry", [0.5, 4.5, 6.0])
GAPS = pytest.mark.parametrize("gap", [0.5, 1.5, 2.5, 3.5, 4.5, 6.0])


@SKEWS
@RETRIES
@GAPS
def test_a_receipt_written_before_the_crash_is_not_sent_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              gap: float, retry: float, skew: timedelta) -> None:
    assert _copies_after_retry(tmp_path, monkeypatch, gap, retry, skew) == 2


@SKEWS
@RETRIES
@GAPS
def test_a_receipt_not_yet_written_is_not_taken_for_the_earlier_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    gap: float, retry: float,
                                                                    skew: timedelta) -> None:
    assert _copies_after_retry(tmp_path, monkeypatch, gap, retry, skew, point="before-write") == 2


def test_the_look_back_starts_a_whole_minute_before_the_first_try() -> None:
    """Boards that show post times to the minute (Discuz, Spirit) compare exactly against a
    whole-minute start: a post shown at 12:04 was made at or after 12:04:00."""
    since = datetime(2026, 5, 1, 12, 5, 42, 123, tzinfo=UTC)
    assert look_back_from(since) == datetime(2026, 5, 1, 12, 4, tzinfo=UTC)
    assert look_back_from(since.replace(second=0, microsecond=0)) == datetime(2026, 5, 1, 12, 4, tzinfo=UTC)
    assert Write("pm", "k", "x").since is None


def test_a_text_sent_to_several_players_is_rendered_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: receipts repeat; the sender renders each text once (rendering is pure) and
    every copy still goes out as rendered."""
    import tianshen.service.sender as sender_module

    rendered: list[str] = []
    real = sender_module.render_parts

    def counted(body: str, markup: str, max_chars: int | None) -> list[str]:
        rendered.append(body)
        return real(body, markup, max_chars)

    monkeypatch.setattr(sender_module, "render_parts", counted)
    board = MemoryBoard(lambda: datetime.now(UTC))
    forum = board.gm()
    forum.login()
    store = Store(migrated_sqlite(tmp_path / 'r.db'))
    store.upgrade()
    game = store.create_game(name="g", ruleset="classic_8", seed=1, config={}, state_json="{}",
                             phase_label="night 1", deadline_at=None, players=[], at=datetime.now(UTC))
    body = f"已收到：\n✔ 祈祷 **{tmp_path.name}**"  # a text no earlier test rendered
    store.add_outbox(game, [OutboxItem(kind="pm", target=name, body=body, subject="回执") for name in ("白狐", "青竹")])
    sender = OutboxSender(store, forum, "me")
    assert sender.send(store.pending_outbox(game)) == 2
    assert rendered == [body]
    assert [m.text for m in board.inbox("白狐") + board.inbox("青竹")] == [f"已收到：\n✔ 祈祷 [b]{tmp_path.name}[/b]"] * 2
    store.close()
