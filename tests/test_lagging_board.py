"""Issue 27 item 1 on the memory board: a board whose PM list lags (Discuz X3.5's mobile API
showed a PM minutes late).  `MemoryBoard(pm_lag_s=…)` imitates it.  With `[run]
deadline_grace_seconds` longer than the lag, a kill sent just before dawn is read and counted
before the night is resolved (DECISIONS §0.1: the forum's time decides); without it, the
killer is told his PM came too late, never 「现在是白天」."""

from __future__ import annotations

from datetime import datetime, timedelta

from test_driver import DECL, GM, ROLES, START
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VirtualClock
from tianshen.store import Store


def _game(db_url: str, lag_s: float, grace_s: float):
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now, pm_lag_s=lag_s)
    forum = MemoryForum(board)
    forum.login()
    store = Store(db_url)
    store.upgrade()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=7, start=START, fixed_roles=ROLES)
    driver = GameDriver.create(store, forum, "lag", "classic_10", setup)
    driver.deadline_grace = timedelta(seconds=grace_s)
    driver.advance(clock.now())  # the deal
    return clock, board, store, driver


def _kill_just_before_dawn(clock, board, driver) -> datetime:
    dawn = driver.ruleset.next_deadline(driver.state()).at
    clock.set(dawn - timedelta(seconds=20))
    board.pm("甲", GM, f"杀 庚\n{DECL}")
    driver.advance(clock.now())
    assert driver.state().phase.kind == "night"
    return dawn


def test_a_kill_the_board_shows_late_counts_within_the_grace(db_url: str) -> None:
    clock, board, store, driver = _game(db_url, lag_s=60, grace_s=120)
    dawn = _kill_just_before_dawn(clock, board, driver)
    clock.set(dawn)
    driver.advance(clock.now())
    assert driver.state().phase.kind == "night"  # the deadline waits out its grace
    clock.set(dawn + timedelta(seconds=60))
    driver.advance(clock.now())
    assert driver.state().phase.kind == "night"
    clock.set(dawn + timedelta(seconds=120))
    driver.advance(clock.now())
    state = driver.state()
    assert state.phase.kind == "day"
    assert not state.player("庚").alive, "the kill sent before dawn did not count"
    assert "现在是白天" not in "".join(pm.text for pm in board.inbox("甲"))
    store.close()


def test_input_after_the_deadline_waits_for_the_fold_in_the_grace(db_url: str) -> None:
    """A PM sent after night end but read inside the grace is judged after the fold (the
    night's end is past for it), and is not lost."""
    clock, board, store, driver = _game(db_url, lag_s=0, grace_s=120)
    dawn = driver.ruleset.next_deadline(driver.state()).at
    clock.set(dawn + timedelta(seconds=30))
    board.pm("丁", GM, "束魂 庚")
    driver.advance(clock.now())
    assert driver.state().phase.kind == "night"
    clock.set(dawn + timedelta(seconds=120))
    driver.advance(clock.now())
    assert driver.state().phase.kind == "day"
    replies = [pm.text for pm in board.inbox("丁") if pm.sender == GM and pm.sent_at > dawn]
    assert len(replies) == 1, replies  # answered once, after the fold: the night was over
    assert "束魂" in replies[0] or "白天" in replies[0] or "结束" in replies[0], replies
    assert not driver.state().data.get("night", {}).get("actions"), "an action after night end was taken"
    store.close()


def test_without_grace_a_lagging_kill_is_answered_late_not_day(db_url: str) -> None:
    clock, board, store, driver = _game(db_url, lag_s=60, grace_s=0)
    dawn = _kill_just_before_dawn(clock, board, driver)
    clock.set(dawn)
    driver.advance(clock.now())
    assert driver.state().phase.kind == "day"
    clock.set(dawn + timedelta(seconds=61))
    driver.advance(clock.now())
    assert driver.state().player("庚").alive
    answer = [pm.text for pm in board.inbox("甲") if pm.sender == GM][-1]
    assert answer == driver.ruleset.spec.text("pm_read_late")
    store.close()
