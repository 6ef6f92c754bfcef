"""Issue 31 item 1 on the memory board: `MemoryBoard(pm_same_second=True)` imitates
UCenter's conversation view, which lists only PMs older than the second of the read.  A PM
written in that very second is answered on a later poll, always (through the driver and
through the daemon); a conversation the adapter reports as never agreeing reaches the GM
once.  The Discuz adapter's side is tests/forums/test_discuz_pm_second.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from test_driver import DECL, GM, ROLES, START
from tianshen.config import load_config
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.base import PmGap
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.service.daemon import Daemon
from tianshen.service.driver import GameDriver
from tianshen.sim import DaemonPlayers
from tianshen.sim.rehearsal import VESTS, VirtualClock
from tianshen.store import Store


def test_the_memory_board_hides_a_pm_of_the_reads_own_second() -> None:
    clock = VirtualClock(START + timedelta(seconds=0.25))
    board = MemoryBoard(clock.now, pm_same_second=True)
    forum = board.gm()
    forum.login()
    pm = board.pm("甲", GM, "你好")
    clock.set(START + timedelta(seconds=0.999))
    assert forum.fetch_pms(None) == []
    clock.set(START + timedelta(seconds=1))
    assert [p.id for p in forum.fetch_pms(None)] == [pm]


@pytest.mark.parametrize("fraction", [0.0, 0.4, 0.999])
def test_a_kill_written_in_the_second_of_the_read_is_counted_on_the_next_poll(db_url: str, fraction: float) -> None:
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now, pm_same_second=True)
    forum = MemoryForum(board)
    forum.login()
    store = Store(db_url)
    store.upgrade()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=7, start=START, fixed_roles=ROLES)
    driver = GameDriver.create(store, forum, "second", "classic_10", setup)
    driver.advance(clock.now())  # the deal
    dawn = driver.ruleset.next_deadline(driver.state()).at
    at = (dawn - timedelta(minutes=30)).replace(microsecond=0) + timedelta(seconds=fraction)
    clock.set(at)
    board.pm("甲", GM, f"杀 庚\n{DECL}")
    driver.advance(clock.now())  # the read of that very second: the board does not list it
    assert not [pm for pm in board.inbox("甲") if pm.sender == GM and pm.sent_at >= at]
    clock.set(at + timedelta(seconds=30))  # the next poll
    driver.advance(clock.now())
    receipts = [pm for pm in board.inbox("甲") if pm.sender == GM and pm.sent_at >= at]
    assert len(receipts) == 1, [pm.text for pm in receipts]
    clock.set(dawn)
    driver.advance(clock.now())
    assert driver.state().phase.kind == "day"
    assert not driver.state().player("庚").alive, "the kill written in the second of a read was lost"
    store.close()


def _daemon(tmp_path: Path, gm_contact: str = "", same_second: bool = True) -> tuple[Daemon, list[float]]:
    """One classic_8 game on a memory board (hiding the PMs of a read's own second), its
    game clock driven by the test (one game second a real one)."""
    db = f"sqlite:///{tmp_path / 'board.db'}"
    players = ", ".join(f'{{ name = "{v}" }}' for v in VESTS[:8])
    contact = f'gm_contact = "{gm_contact}"\n' if gm_contact else ""
    path = tmp_path / "board.toml"
    path.write_text(f'[database]\nurl = "{db}"\n[forum]\nkind = "memory"\n'
                    f'{"pm_same_second = true" if same_second else ""}\n'
                    f'[run]\nsimulate = false\ntime_scale = 1\npoll_seconds = 30\n\n'
                    f'[[game]]\nname = "同秒局"\nruleset = "classic_8"\nseed = 4\n{contact}'
                    f'start = 2026-01-01T20:00:00Z\nplayers = [{players}]\n', encoding="utf-8")
    daemon = Daemon(load_config(path), players=DaemonPlayers())
    real = [0.0]
    daemon.clock.real_now = lambda: real[0]
    daemon.clock.real_start = 0.0
    daemon.clock.game_start = datetime(2026, 1, 1, 20, 5, tzinfo=UTC)
    return daemon, real


def test_through_the_daemon_a_pm_of_the_reads_second_is_answered_later(tmp_path: Path) -> None:
    daemon, real = _daemon(tmp_path)
    board = daemon.board
    assert board is not None
    daemon.tick()  # deals the game
    player, gm = VESTS[0], daemon.forum.account
    real[0] = 60.3
    pm_id = board.pm(player, gm, "你好")
    daemon.tick()  # the same second: not listed
    game = daemon.store.game_id("同秒局")
    assert game is not None and not daemon.store.has_inbound(game, "pm", str(pm_id))
    real[0] = 90.3
    daemon.tick()
    assert daemon.store.has_inbound(game, "pm", str(pm_id))
    replies = [m for m in board.inbox(player) if m.sender == gm and m.subject.startswith("天神回复")]
    assert len(replies) == 1, [m.text for m in replies]
    daemon.store.close()


def test_a_conversation_that_never_agrees_is_told_to_the_gm_once(tmp_path: Path) -> None:
    daemon, real = _daemon(tmp_path, gm_contact="主持人", same_second=False)
    board = daemon.board
    assert board is not None
    daemon.tick()  # deals the game
    player = VESTS[2]
    gaps = [[PmGap(player, 5, 4, daemon.clock.now())]]
    daemon.forum.pm_gaps = lambda: gaps.pop() if gaps else []  # type: ignore[attr-defined]
    for i in range(1, 5):
        real[0] = 30.0 * i
        daemon.tick()
    told = [m.text for m in board.inbox("主持人") if player in m.text and "对不上" in m.text]
    assert len(told) == 1, told
    assert "5条" in told[0] and "4条" in told[0] and "北京时间" in told[0]
    daemon.store.close()


def test_the_gap_told_before_a_restart_is_not_told_again_after_it(tmp_path: Path) -> None:
    """The adapter of a new process hands the same gap out again: the GM is not told twice;
    a gap grown meanwhile (one more message missing) is new, and told."""
    def told(daemon: Daemon) -> list[str]:
        game = daemon.store.game_id("同秒局")
        return [r.body for r in daemon.store.outbox(game) if r.target == "主持人" and "对不上" in r.body]

    def ticks(daemon: Daemon, real: list[float], gap: PmGap) -> None:
        gaps = [[gap]]
        daemon.forum.pm_gaps = lambda: gaps.pop() if gaps else []  # type: ignore[attr-defined]
        for i in range(1, 3):
            real[0] = 30.0 * i
            daemon.tick()

    daemon, real = _daemon(tmp_path, gm_contact="主持人", same_second=False)
    daemon.tick()  # deals the game
    player = VESTS[2]
    ticks(daemon, real, PmGap(player, 5, 4, daemon.clock.now()))
    assert len(told(daemon)) == 1
    daemon.store.close()

    again, real = _daemon(tmp_path, gm_contact="主持人", same_second=False)  # the restart
    ticks(again, real, PmGap(player, 5, 4, again.clock.now()))
    assert len(told(again)) == 1, told(again)
    ticks(again, real, PmGap(player, 7, 5, again.clock.now()))  # two missing now
    assert len(told(again)) == 2 and "7条" in told(again)[1]
    again.store.close()
