"""Issue 32 item 12: a deadline that fell while the daemon was stopped is folded at the
restart, and that is said in the log, with what it costs: a short stop is taken out of the
phase the deadline opens (given back only past `[run] late_window_minutes`)."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import pytest

from daemon_config import START, HandClock, memory_config
from tianshen.config import load_config
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.service.daemon import Daemon
from tianshen.sim import DaemonPlayers

Clock = HandClock


def _config(tmp_path: Path) -> Path:
    return memory_config(tmp_path, "cu", 5)


@pytest.mark.parametrize("down,cost", [(timedelta(seconds=64), "shorter by that"),
                                       (timedelta(hours=2), "extended by the time")])
def test_a_stop_across_a_deadline_is_logged_at_the_catch_up(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                             down: timedelta, cost: str) -> None:
    path = _config(tmp_path)
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    daemon = Daemon(load_config(path), forum=MemoryForum(board), clock=clock, players=DaemonPlayers())
    daemon.tick()  # the deal
    driver = daemon.driver("cu")
    night_end = driver.ruleset.next_deadline(driver.state()).at
    clock.at = night_end - timedelta(seconds=30)
    daemon.tick()
    daemon.store.close()  # stopped 30 s before the night's end

    clock.at += down
    again = Daemon(load_config(path), forum=MemoryForum(board), clock=clock, players=DaemonPlayers())
    with caplog.at_level(logging.INFO, logger="tianshen.service.daemon"):
        again.tick()
        again.tick()
    assert again.driver("cu").state().phase.kind == "day"
    lines = [r.getMessage() for r in caplog.records if "catching up" in r.getMessage()]
    assert len(lines) == 1, lines
    assert "night_end" in lines[0] and str(down - timedelta(seconds=30)) in lines[0] and cost in lines[0]
    again.store.close()
