"""Issue 32 items 5 and 6: the database cannot be used for a while (a full disk, a read-only
file, a PostgreSQL restart).  The GM is told once, in one line and by one PM, not by a
traceback a tick; the games are held meanwhile and the time is given back when it can be
written again; a failure while setting the deadlines' jobs does not escape the tick, and the
next tick sets them."""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from daemon_config import START, memory_config
from tianshen.config import load_config
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.service.daemon import Daemon
from tianshen.sim import DaemonPlayers
from tianshen.store import Store

GM = "神的使者"
BOSS = "主持人"


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def real_at(self, game_time: datetime) -> datetime:
        return datetime(2100, 1, 1, tzinfo=UTC) + (game_time - START)  # the tests tick by hand


def _config(tmp_path: Path) -> Path:
    return memory_config(tmp_path, "sd", 0.05, f'gm_contact = "{BOSS}"\n')


def _daemon(tmp_path: Path) -> tuple[Daemon, MemoryBoard, Clock]:
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    forum = MemoryForum(board)
    daemon = Daemon(load_config(_config(tmp_path)), forum=forum, clock=clock, players=DaemonPlayers())
    # a tick's sending stops after poll_seconds (0.05 s) of real time: the test ticks by hand,
    # so each tick sends all it has, however loaded the machine (as in test_login_refused)
    daemon.sender.monotonic = lambda: 0.0
    daemon.tick()  # the deal
    return daemon, board, clock


class Failing:
    """Every write of the store fails while `on`, as SQLite fails it: a full disk ("database or
    disk is full") or a read-only file (SQLite's own `PRAGMA query_only`)."""

    def __init__(self, store: Store, kind: str) -> None:
        self.store, self.kind, self.on = store, kind, False
        event.listen(store.engine, "before_cursor_execute", self._before)

    def _before(self, conn, cursor, statement, params, context, many) -> None:  # type: ignore[no-untyped-def]
        if not self.on or not statement.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            return
        if self.kind == "full":
            raise sqlite3.OperationalError("database or disk is full")
        cursor.execute("PRAGMA query_only = ON")  # the write below fails as on a read-only file

    def heal(self) -> None:
        self.on = False
        with self.store.engine.connect() as conn:  # the pool's connections writable again
            conn.exec_driver_sql("PRAGMA query_only = OFF")
        self.store.engine.dispose()


def _to_the_gm(board: MemoryBoard) -> list[str]:
    return [pm.text for pm in board.inbox(BOSS)]


WORDS = "数据库写不进去（磁盘已满？）：游戏暂停，恢复后继续"


@pytest.mark.parametrize("kind", ["full", "readonly"])
def test_a_database_that_cannot_be_written_holds_the_game_says_so_once_and_gives_the_time_back(
        tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture) -> None:
    daemon, board, clock = _daemon(tmp_path)
    driver = daemon.driver("sd")
    state = driver.state()
    night_end = driver.ruleset.next_deadline(state).at
    player = state.players[0].name
    clock.at = night_end - timedelta(hours=2)
    daemon.tick()
    before = len(_to_the_gm(board))

    failing = Failing(daemon.store, kind)
    failing.on = True
    down_at = night_end - timedelta(hours=1)
    with caplog.at_level(logging.INFO):
        for minutes in range(0, 20 * 60, 30):  # 20 game hours of ticks, the night's end among them
            clock.at = down_at + timedelta(minutes=minutes)
            board.pm(player, GM, "帮助") if minutes == 0 else None  # its step cannot be written
            daemon.tick()
    assert driver.state().phase.label == "night 1"  # held: nothing could be committed
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "cannot be written" in errors[0].getMessage() and not errors[0].exc_info
    assert not any(r.exc_info for r in caplog.records)  # no traceback a tick
    told = _to_the_gm(board)[before:]
    assert len(told) == 1 and WORDS in told[0]

    failing.heal()
    back = down_at + timedelta(hours=20)
    clock.at = back
    daemon.tick()
    state = driver.state()
    assert state.phase.label == "night 1"  # the 20 hours were given back: the night goes on
    assert driver.ruleset.next_deadline(state).at == night_end + (back - down_at)
    assert state.data["gm_log"][-1]["command"] == "extend"
    daemon.tick()
    told = _to_the_gm(board)[before:]
    assert len(told) == 2 and "数据库恢复，游戏继续" in told[1]
    assert [m.text for m in board.inbox(player) if m.sender == GM][-1]  # 帮助 was answered
    clock.at = driver.ruleset.next_deadline(driver.state()).at + timedelta(minutes=1)
    daemon.tick()
    assert driver.state().phase.kind == "day"  # and the game goes on


def test_a_database_error_while_setting_the_deadline_jobs_is_one_line_and_they_are_set_next_tick(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    daemon, _, clock = _daemon(tmp_path)
    driver = daemon.driver("sd")
    job = f"deadline:{driver.game_id}"
    night_end = driver.ruleset.next_deadline(driver.state()).at
    clock.at = night_end + timedelta(seconds=1)  # the deadline's job fires: it is used up
    daemon.scheduler.remove_job(job)
    real_state, real_tick, armed = driver.state, daemon._tick, []

    def state_once():  # type: ignore[no-untyped-def]
        if armed:  # the tick is done: PostgreSQL restarts while the jobs are set
            armed.clear()
            raise OperationalError("SELECT games.step_seq", {}, Exception(
                "terminating connection due to administrator command"))
        return real_state()

    def tick_then_arm() -> None:
        real_tick()
        armed.append(True)

    driver.state = state_once  # type: ignore[method-assign]
    daemon._tick = tick_then_arm  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO):
        daemon.tick()  # must not raise
    assert driver.state().phase.kind == "day"
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and "terminating connection" in lines[0].getMessage() and not lines[0].exc_info
    assert job not in {j.id for j in daemon.scheduler.get_jobs()}
    daemon._tick = real_tick  # type: ignore[method-assign]
    daemon.tick()  # the next tick sets the job of the next deadline
    at = driver.ruleset.next_deadline(driver.state()).at
    assert daemon.scheduler.get_job(job) is not None and daemon._scheduled[job] == clock.real_at(at)


@pytest.mark.parametrize("back_before_restart", [False, True])
def test_a_restart_during_or_after_an_outage_still_gives_the_time_back_once(
        tmp_path: Path, back_before_restart: bool) -> None:
    """The outage's start outlives the process (a note beside the config): a daemon restarted
    while the database is down, or after it came back but before a tick gave the time back,
    still extends the phase by the whole outage; a second restart does not extend it again."""
    daemon, board, clock = _daemon(tmp_path)
    driver = daemon.driver("sd")
    night_end = driver.ruleset.next_deadline(driver.state()).at
    failing = Failing(daemon.store, "full")
    failing.on = True
    down_at = night_end - timedelta(hours=1)
    for minutes in range(0, 5 * 60, 30):
        clock.at = down_at + timedelta(minutes=minutes)
        board.pm(driver.state().players[0].name, GM, "帮助") if minutes == 0 else None  # cannot be written
        daemon.tick()
    if back_before_restart:
        failing.heal()  # back, but the process stops before its next tick
    daemon.scheduler.shutdown(wait=False) if daemon.scheduler.running else None
    daemon.store.close()
    failing.heal()

    back = down_at + timedelta(hours=20)
    clock.at = back
    again = Daemon(load_config(_config(tmp_path)), forum=MemoryForum(board), clock=clock, players=DaemonPlayers())
    again.tick()
    state = again.driver("sd").state()
    assert state.phase.label == "night 1"  # the 20 hours were given back: the night goes on
    assert again.driver("sd").ruleset.next_deadline(state).at == night_end + (back - down_at)
    assert [e["command"] for e in state.data["gm_log"]] == ["extend"]
    again.store.close()

    third = Daemon(load_config(_config(tmp_path)), forum=MemoryForum(board), clock=clock, players=DaemonPlayers())
    third.tick()
    assert [e["command"] for e in third.driver("sd").state().data["gm_log"]] == ["extend"]  # given once
    third.store.close()
