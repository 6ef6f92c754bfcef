"""Issue 32 item 1: a step of the host's clock (NTP after a VM resume, a manual `date`) moves
no deadline.  Deadlines are judged by the board's clock, read again on every poll and run on
by the monotonic clock between readings; a jump is logged once.  On the memory board, with
the board's clock, the host's wall clock and its monotonic clock all held by the test."""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from daemon_config import START, memory_config
from tianshen.config import load_config
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.service.daemon import Daemon, ForumClock, StepFollowingScheduler
from tianshen.sim import DaemonPlayers

GM = "神的使者"


class Host:
    """The board's clock, and the host's wall and monotonic clocks.  The board's time and the
    monotonic clock run together; the wall clock is the board's plus `step` (0 until it jumps)."""

    def __init__(self) -> None:
        self.board = START
        self.step = timedelta(0)

    def board_now(self) -> datetime:
        return self.board

    def wall(self) -> datetime:
        return self.board + self.step

    def monotonic(self) -> float:
        return (self.board - START).total_seconds()


def _config(tmp_path: Path) -> Path:
    return memory_config(tmp_path, "cj", 0.05)


def _daemon(tmp_path: Path) -> tuple[Daemon, MemoryBoard, Host]:
    host = Host()
    board = MemoryBoard(host.board_now)
    forum = MemoryForum(board)
    forum.login()
    clock = ForumClock(forum, local_now=host.wall, monotonic=host.monotonic)
    daemon = Daemon(load_config(_config(tmp_path)), forum=forum, clock=clock, players=DaemonPlayers())
    daemon.tick()  # the deal
    return daemon, board, host


def _to_vote_end(daemon: Daemon, host: Host) -> datetime:
    """On to day 1's vote, its thread open; the vote's end."""
    driver = daemon.driver("cj")
    while (due := driver.ruleset.next_deadline(driver.state())).kind != "vote_end":
        host.board = due.at + timedelta(minutes=1)
        daemon.tick()
    daemon.tick()
    assert "vote:1" in daemon.store.threads(driver.game_id).values()
    return due.at


def _jumps(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "clock moved" in r.getMessage()]


def test_a_forward_step_of_two_hours_closes_nothing_early(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    daemon, board, host = _daemon(tmp_path)
    vote_end = _to_vote_end(daemon, host)
    driver = daemon.driver("cj")
    host.board = vote_end - timedelta(hours=1, minutes=50)
    host.step = timedelta(hours=2)  # the host's clock says 10 minutes past the vote's end
    with caplog.at_level(logging.WARNING, logger="tianshen.service.daemon"):
        daemon.tick()
        assert driver.state().phase.kind == "day"  # still open: the board's clock is short of it
        host.board = vote_end - timedelta(hours=1)
        voter = driver.state().players[0].name
        board.post(voter, daemon.store.thread_id(driver.game_id, "vote:1"), "投票 " + driver.state().players[1].name)
        daemon.tick()
        assert driver.state().phase.kind == "day"
        assert [r.sender for r in daemon.store.inbound(driver.game_id) if r.source == "post"] == [voter]
        host.board = vote_end + timedelta(seconds=30)
        daemon.tick()
    assert driver.state().phase.kind != "day"  # closed at the board's 08:00, not the host's
    lines = _jumps(caplog)
    assert len(lines) == 1 and "+2:00:00" in lines[0]  # logged once


def test_a_step_back_of_ten_minutes_does_not_hold_the_deadline(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    daemon, _, host = _daemon(tmp_path)
    vote_end = _to_vote_end(daemon, host)
    driver = daemon.driver("cj")
    host.board = vote_end - timedelta(minutes=5)
    host.step = -timedelta(minutes=10)
    with caplog.at_level(logging.WARNING, logger="tianshen.service.daemon"):
        daemon.tick()
    assert driver.state().phase.kind == "day"
    # the deadline's job is set at the host's time of the board's deadline, 10 minutes earlier
    assert daemon._scheduled[f"deadline:{driver.game_id}"] == vote_end - timedelta(minutes=10)
    host.board = vote_end + timedelta(seconds=30)
    daemon.tick()
    assert driver.state().phase.kind != "day"
    assert len(_jumps(caplog)) == 1 and "-0:10:00" in _jumps(caplog)[0]


def test_a_step_while_the_deadline_job_waits_fires_it_at_the_boards_time(tmp_path: Path) -> None:
    """The job of the vote's end was set on the host's clock; the host's clock jumps past it,
    so the job fires early: the tick finds the board short of the deadline, folds nothing,
    and sets the job again at the host's new time of the deadline."""
    daemon, _, host = _daemon(tmp_path)
    vote_end = _to_vote_end(daemon, host)
    driver = daemon.driver("cj")
    job = f"deadline:{driver.game_id}"
    host.board = vote_end - timedelta(minutes=1)
    daemon.tick()
    assert daemon._scheduled[job] == vote_end
    host.step = timedelta(minutes=5)  # the job's moment has passed on the host's clock
    daemon.tick()  # as the job fires it
    assert driver.state().phase.kind == "day"
    assert daemon._scheduled[job] == vote_end + timedelta(minutes=5)
    host.board = vote_end
    daemon.tick()
    assert driver.state().phase.kind != "day"


def test_the_scheduler_moves_its_jobs_with_a_step_of_the_hosts_clock() -> None:
    """After a step back of 10 minutes the poll is not 10 minutes away (APScheduler runs on
    the host's clock); after a step forward the jobs do not all fire at once."""
    drift = [0.0]
    steps: list[bool] = []
    scheduler = StepFollowingScheduler(longest=0.05, drift=lambda: drift[0], on_step=lambda: steps.append(True),
                                       timezone=UTC)
    at = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    scheduler.add_job(lambda: None, "date", run_date=at, id="job")
    runner = threading.Thread(target=scheduler.start, daemon=True)
    runner.start()
    try:
        assert _wait_for(lambda: scheduler.running)
        drift[0] = -600.0  # the host's clock went back 10 minutes
        assert _wait_for(lambda: scheduler.get_job("job").next_run_time == at - timedelta(minutes=10))
        drift[0] = -600.0 + 7200.0  # and then 2 hours forward
        assert _wait_for(lambda: scheduler.get_job("job").next_run_time == at + timedelta(hours=1, minutes=50))
        assert len(steps) == 2  # the daemon is told, and sets its deadline jobs again
    finally:
        scheduler.shutdown(wait=False)
        runner.join(5)


def _wait_for(condition, seconds: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_the_adapters_run_the_boards_time_on_by_the_monotonic_clock() -> None:
    """Discuz and Spirit read the board's time from each answer's `Date`; between answers it
    runs on by the monotonic clock, not the host's wall clock (which may have jumped)."""
    import httpx

    from tianshen.forum.discuz.client import DiscuzClient

    host = Host()
    host.board = datetime(2026, 12, 2, 13, 0, tzinfo=UTC)
    client = DiscuzClient("http://b/", "gm", "pw", clock=host.wall, monotonic=lambda: 100.0 + host.monotonic(),
                          transport=httpx.MockTransport(lambda r: httpx.Response(
                              200, text="<html></html>", headers={"Date": "Wed, 02 Dec 2026 13:00:00 GMT"})))
    assert client.server_now() == host.board
    host.board += timedelta(minutes=3)
    host.step = timedelta(hours=2)
    assert client.server_now() == host.board  # 13:03, not 15:03
