"""Issue 13 item 14: a service logs at INFO to stdout by default, one line per step, and
warns when a game's start time is in the past."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tianshen.config import load_config
from tianshen.forum.memory import MemoryBoard
from tianshen.service.daemon import Daemon, ForumClock
from tianshen.sim import DaemonPlayers


def _config(tmp_path: Path, start: str) -> Path:
    config = tmp_path / "c.toml"
    config.write_text(f"""
[database]
url = "sqlite:///{(tmp_path / 'd.db').as_posix()}"
[forum]
kind = "memory"
[game]
name = "log"
ruleset = "classic_8"
seed = 1
start = "{start}"
[run]
simulate = true
time_scale = 3600.0
poll_seconds = 0.2
""", encoding="utf-8")
    return config


def _steps(out: str) -> list[str]:
    return [line for line in out.splitlines() if "level=INFO" in line and " seq=" in line and "input=" in line]


def test_run_logs_every_step_at_info_on_stdout_by_default(tmp_path: Path) -> None:
    config = _config(tmp_path, "2026-01-01T20:00:00Z")
    out, err = _run_until(config, lambda out: "game=log started" in out and len(_steps(out)) >= 3)
    assert "game=log started" in out and len(_steps(out)) >= 3, out[-2000:]
    assert "level=INFO" not in err  # the log goes to stdout


def test_a_start_time_in_the_past_is_warned_about(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    past = datetime.now(UTC) - timedelta(hours=3)
    config = load_config(_config(tmp_path, past.isoformat()))
    board = MemoryBoard(lambda: datetime.now(UTC))
    forum = board.gm()
    with caplog.at_level(logging.WARNING, logger="tianshen.service.daemon"):
        daemon = Daemon(config, forum=forum, clock=ForumClock(forum), players=DaemonPlayers())
    assert any("start time" in r.message and "in the past" in r.message for r in caplog.records)
    daemon.store.close()


def _run_until(config: Path, done: Callable[[str], bool], timeout: float = 180) -> tuple[str, str]:
    """`tianshen run` until its stdout so far satisfies `done` (or `timeout` passed), then
    SIGTERM; it must stop cleanly.  Returns its stdout and stderr."""
    out_path, err_path = config.with_suffix(".out"), config.with_suffix(".err")
    with open(out_path, "w") as out_fh, open(err_path, "w") as err_fh:
        proc = subprocess.Popen([sys.executable, "-m", "tianshen.cli", "run", "--config", str(config)],
                                stdout=out_fh, stderr=err_fh, text=True,
                                env={**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < deadline \
                and not done(out_path.read_text(encoding="utf-8")):
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = out_path.read_text(encoding="utf-8"), err_path.read_text(encoding="utf-8")
    assert proc.returncode == 0, out[-2000:] + err[-2000:]
    return out, err


def _sent(lines: list[str]) -> list[str]:
    return [line for line in lines if " sent pm " in line or " sent post " in line or " sent thread " in line]


def test_info_is_one_line_per_event_without_scheduler_chatter(tmp_path: Path) -> None:
    """Issue 23 item 8: no APScheduler "Running job", no Alembic; a line per message sent."""
    def enough(out: str) -> bool:
        lines = [line for line in out.splitlines() if "level=" in line]
        return len(_sent(lines)) >= 8 and any("game=log seq=" in line and "input=pm" in line for line in lines)

    out, err = _run_until(_config(tmp_path, "2026-01-01T20:00:00Z"), enough)
    out += err
    lines = [line for line in out.splitlines() if "level=" in line]
    chatter = [line for line in lines if "logger=tianshen." not in line]
    assert not chatter, "\n".join(chatter[:10])
    sent = _sent(lines)
    assert len(sent) >= 8, out[-3000:]  # the role PMs, the player list
    assert any("game=log seq=" in line and "input=pm" in line for line in lines)


def test_a_gm_override_made_beside_the_daemon_is_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from typer.testing import CliRunner

    from tianshen.cli import app

    config = load_config(_config(tmp_path, "2026-01-01T21:00:00Z"))  # dealt on time: no late-window extension
    board = MemoryBoard(lambda: datetime(2026, 1, 1, 21, tzinfo=UTC))
    forum = board.gm()
    daemon = Daemon(config, forum=forum, clock=ForumClock(forum), players=DaemonPlayers())
    daemon.tick()  # dealt, night 1
    result = CliRunner().invoke(app, ["admin", "pause", "--reason", "论坛维护", "--at", "2026-01-01T21:00:00Z",
                                      "--db", config.database.url])
    assert result.exit_code == 0, result.output
    with caplog.at_level(logging.INFO, logger="tianshen"):
        daemon.tick()
        daemon.tick()
    overrides = [r.getMessage() for r in caplog.records if "override" in r.getMessage()]
    assert overrides == ["game=log GM override pause: 论坛维护"], overrides
    daemon.store.close()
