"""Issue 23 item 7: a second `tianshen run` on a SQLite database another process serves says
which games that process holds, and that SQLite is for one process; it does not sit silent."""

from __future__ import annotations

import logging
import signal
import socket
from datetime import UTC, datetime
from pathlib import Path

import pytest

from processes import Child
from tianshen.store import Store


def _config(tmp_path: Path) -> Path:
    config = tmp_path / "c.toml"
    config.write_text(f"""
[database]
url = "sqlite:///{(tmp_path / 'd.db').as_posix()}"
[forum]
kind = "memory"
[game]
name = "held"
ruleset = "classic_8"
seed = 1
start = 2026-01-01T20:00:00Z
[run]
simulate = true
poll_seconds = 0.5
""", encoding="utf-8")
    return config


def _lease(url: str, game: str) -> str | None:
    store = Store(url)
    try:
        game_id = store.game_id(game)
        held = store.lease(game_id) if game_id is not None else None
    except Exception:  # noqa: BLE001 - the first process is still making the schema
        held = None
    finally:
        store.close()
    return held[0] if held else None


def test_a_second_daemon_on_sqlite_says_who_holds_the_games(tmp_path: Path) -> None:
    config = _config(tmp_path)
    url = f"sqlite:///{(tmp_path / 'd.db').as_posix()}"
    first = Child("run", "--config", str(config))
    try:  # polled until it holds the game, however long a loaded machine takes to start it
        assert first.wait_for(lambda: _lease(url, "held") is not None), first.output
        owner = _lease(url, "held")
        assert owner == f"{socket.gethostname()}:{first.proc.pid}"
        second = Child("run", "--config", str(config))
        code, out = second.finish(), second.output
        assert code == 2, out[-2000:]
        assert f"{owner} holds game held and the board's PMs" in out, out[-2000:]
        assert "SQLite is for one process" in out, out[-2000:]
    finally:
        first.proc.send_signal(signal.SIGTERM)
        first.finish()


def test_the_holders_are_told_and_only_sqlite_refuses(db_url: str, tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL serves a board from several processes: the second one waits (and says so)."""
    from tianshen.config import load_config
    from tianshen.service.daemon import Daemon
    from tianshen.service.holders import refuse_if_held
    from tianshen.sim import DaemonPlayers

    config = _config(tmp_path)
    config.write_text(config.read_text(encoding="utf-8").replace(
        f"sqlite:///{(tmp_path / 'd.db').as_posix()}", db_url), encoding="utf-8")
    daemon = Daemon(load_config(config), players=DaemonPlayers())
    game_id = daemon.store.game_id("held")
    now = datetime.now(UTC)
    assert daemon.store.acquire_lease(game_id, "elsewhere:1", now, 300)
    with caplog.at_level(logging.WARNING, logger="tianshen.service.holders"):
        if db_url.startswith("sqlite"):
            with pytest.raises(ValueError, match="elsewhere:1 holds game held .*SQLite is for one process"):
                refuse_if_held(daemon)
        else:
            refuse_if_held(daemon)
    assert [r.getMessage().split(" until ")[0] for r in caplog.records] == ["game held is held by elsewhere:1"]
    daemon.store.close()
