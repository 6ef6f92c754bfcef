"""The daemon keeps its adapter's PM read positions with the board (Spirit: how far each
private topic of the GM was read), and a restarted daemon hands them back before its first
read, so it reads only what is new rather than every PM above the trailing mark.  They are
kept only once every PM handed out is stored: a PM a game left for later is read again."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from daemon_config import NAMES, START, HandClock, memory_config
from tianshen.config import load_config
from tianshen.forum.base import ForumPm
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.service.daemon import Daemon
from tianshen.service.driver import GameDriver
from tianshen.sim import DaemonPlayers

GM = "神的使者"


class PositionsForum(MemoryForum):
    """The GM's adapter with read positions, as the Spirit adapter has them: the newest PM
    id handed out; `calls` notes each resume and read in order."""

    calls: list[str] = []

    def __init__(self, board: MemoryBoard) -> None:
        super().__init__(board)
        self.read_upto = 0

    def fetch_pms(self, after_id: int | None) -> list[ForumPm]:
        pms = [pm for pm in super().fetch_pms(after_id) if pm.id > self.read_upto]
        self.read_upto = max([self.read_upto] + [pm.id for pm in pms])
        self.calls.append("fetch")
        return pms

    def pm_positions(self) -> str:
        return str(self.read_upto)

    def resume_pms(self, positions: str) -> None:
        self.calls.append(f"resume {positions}")
        self.read_upto = int(positions)


def _daemon(tmp_path: Path, board: MemoryBoard, clock: HandClock) -> Daemon:
    return Daemon(load_config(memory_config(tmp_path, "pos", 60)), forum=PositionsForum(board), clock=clock,
                  players=DaemonPlayers())


def test_a_restarted_daemon_resumes_the_read_positions_kept_once_every_pm_was_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = HandClock(START)
    board = MemoryBoard(clock.now)
    daemon = _daemon(tmp_path, board, clock)
    daemon.tick()  # the deal
    clock.at = START + timedelta(hours=1)
    first = board.pm(NAMES[0], GM, "帮助")
    daemon.tick()
    assert daemon.store.mark(daemon.board_row, "pm_topics") == str(first)

    # a PM the game leaves for later (its advance stores nothing): the positions stay
    clock.at += timedelta(minutes=1)
    held = board.pm(NAMES[1], GM, "帮助")
    with monkeypatch.context() as mp:
        mp.setattr(GameDriver, "advance", lambda self, now, **kw: 0)
        daemon.tick()
    assert daemon.store.mark(daemon.board_row, "pm_topics") == str(first)

    PositionsForum.calls = []
    again = _daemon(tmp_path, board, clock)  # a restart: a new process, a new adapter
    again.tick()
    assert PositionsForum.calls[:2] == [f"resume {first}", "fetch"]
    driver = again.driver("pos")
    stored = [r.forum_id for r in again.store.inbound(driver.game_id) if r.source == "pm"]
    assert stored == [str(first), str(held)]  # the held PM read again and stored, the first not twice
    assert again.store.mark(again.board_row, "pm_topics") == str(held)


def test_positions_that_cannot_be_kept_stop_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """Keeping the positions only saves a restart's reads: when the store refuses them (a
    value too long for the column, as PostgreSQL once did), the tick goes on, the PM is
    answered, and the GM's log says so in one line."""
    from tianshen.store import Store

    clock = HandClock(START)
    board = MemoryBoard(clock.now)
    daemon = _daemon(tmp_path, board, clock)
    daemon.tick()  # the deal
    kept = daemon.store.mark(daemon.board_row, "pm_topics")
    real = Store.set_mark

    def refusing(self, game_id, name, value):  # type: ignore[no-untyped-def]
        if name == "pm_topics":
            raise ValueError("value too long for type character varying(200)")
        return real(self, game_id, name, value)

    monkeypatch.setattr(Store, "set_mark", refusing)
    clock.at = START + timedelta(hours=1)
    board.pm(NAMES[0], GM, "帮助")
    daemon.tick()
    assert any(pm.sender == GM for pm in board.inbox(NAMES[0]))  # answered
    assert daemon.store.mark(daemon.board_row, "pm_topics") == kept  # as before the refused write
    assert "read positions could not be kept" in caplog.text
