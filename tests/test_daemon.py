"""`tianshen run`: the APScheduler daemon on the memory board with simulated players."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.config import load_config
from tianshen.core.model import GameState
from tianshen.rules import load_ruleset
from tianshen.service.daemon import Daemon
from tianshen.sim import DaemonPlayers
from tianshen.store import Store

TIMEOUT_S = 30


def write_config(path: Path, db_url: str, kind: str = "memory", name: str = "daemon-test", seed: int = 5,
                 ruleset: str = "classic_8", scale: int = 720000) -> Path:
    path.write_text(f"""
[database]
url = "{db_url}"

[forum]
kind = "{kind}"

[run]
simulate = true
time_scale = {scale}
poll_seconds = 0.05

[game]
name = "{name}"
ruleset = "{ruleset}"
seed = {seed}
start = 2026-01-01T20:00:00Z
""", encoding="utf-8")
    return path


def run_to_the_end(daemon: Daemon) -> float:
    """`run()` in a thread; fails (and stops the scheduler) if it has not returned in time."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            daemon.run()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    t0 = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(TIMEOUT_S)
    if thread.is_alive():
        daemon.scheduler.shutdown(wait=False)
        thread.join(5)
        phases = [g.phase_label for g in daemon.store.list_games()]
        pytest.fail(f"the daemon did not stop within {TIMEOUT_S} s (at {phases})")
    assert errors == []
    return time.monotonic() - t0


def test_daemon_plays_a_whole_game_and_resumes_by_name(db_url: str, tmp_path: Path) -> None:
    # 40 game hours a real second: a tick slowed by a loaded machine does not skip a phase
    path = write_config(tmp_path / "config.toml", db_url, scale=144000)
    daemon = Daemon(load_config(path), players=DaemonPlayers())
    run_to_the_end(daemon)
    daemon.store.close()

    store = Store(db_url)
    [game] = store.list_games()
    state = GameState.model_validate_json(game.state_json)
    assert (game.name, game.ruleset, game.seed, game.status) == ("daemon-test", "classic_8", 5, "over")
    assert state.phase.kind == "over"
    assert game.winner in ("civilians", "killers")
    assert load_ruleset("classic_8").check_victory(state) == game.winner == state.winner
    events = store.events(game.id)
    assert [e.kind for e in events].count("setup") == 1
    assert any(e.kind == "pm" for e in events) and any(e.kind == "deadline" for e in events)
    assert store.pending_outbox(game.id) == []
    board = daemon.board
    assert board is not None
    main = store.thread_id(game.id, "main")
    assert main is not None and "游戏结束" in board.thread_posts(main)[-1].text

    # a second daemon on the same database picks the game up by name: no second setup
    again = Daemon(load_config(path), players=DaemonPlayers())
    assert again.store.game_id("daemon-test") == game.id
    run_to_the_end(again)
    again.store.close()
    assert [g.id for g in store.list_games()] == [game.id]
    assert len(store.events(game.id)) == len(events)
    assert store.load_game(game.id).state_json == game.state_json
    store.close()


def test_an_incomplete_forum_config_is_refused_before_anything_starts(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'd.db'}"
    path = write_config(tmp_path / "config.toml", db, kind="discuz")  # no base_url, account or board
    with pytest.raises(ValueError, match="forum kind 'discuz' needs base_url"):
        Daemon(load_config(path), players=DaemonPlayers())
    assert not (tmp_path / "d.db").exists()  # nothing was started: refused before the database is made

    result = CliRunner().invoke(app, ["run", "--config", str(path)], env={"COLUMNS": "240"})
    assert result.exit_code == 2
    assert "forum kind 'discuz' needs base_url" in result.output


def test_bad_config_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[forum\nkind = 'memory'\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.toml"):
        load_config(bad)
    unknown = write_config(tmp_path / "unknown.toml", "sqlite://", kind="phpbb")
    with pytest.raises(ValueError, match="kind"):
        load_config(unknown)


def test_the_daemon_simulates_a_game_ten_game(tmp_path: Path) -> None:
    """The simulated players of the game's own ruleset family play (here game_ten, 14 players)."""
    db = f"sqlite:///{tmp_path / 'g10.db'}"
    daemon = Daemon(load_config(write_config(tmp_path / "c.toml", db, ruleset="game_ten", seed=2)), players=DaemonPlayers())
    run_to_the_end(daemon)
    assert [type(s.sims).__name__ for s in daemon.served.values()] in ([], ["GameTenSims"])
    state = daemon.driver("daemon-test").state()
    assert state.winner in ("civilians", "killers") and len(state.players) == 14
    daemon.store.close()


def test_a_simulating_daemon_needs_its_players_given(tmp_path: Path) -> None:
    """Issue 24: the service does not import the simulated players; `tianshen run` gives them."""
    path = write_config(tmp_path / "c.toml", f"sqlite:///{tmp_path / 'd.db'}")
    with pytest.raises(ValueError, match=r"simulate = true needs simulated players"):
        Daemon(load_config(path))


def test_a_signal_inside_the_schedulers_pass_stops_the_daemon_cleanly(db_url: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM handled while the scheduler's main loop hands a due job to its executor: the
    handler's shutdown empties the job store, and the pass then updates the job no longer there
    (APScheduler's JobLookupError). `run` ends as a stop, not with a traceback (load1's run)."""
    import signal

    from apscheduler.executors.base import BaseExecutor

    daemon = Daemon(load_config(write_config(tmp_path / "config.toml", db_url)), players=DaemonPlayers())
    submit = BaseExecutor.submit_job

    def signalled_first(executor, job, run_times):  # type: ignore[no-untyped-def]
        daemon._stop(signal.SIGTERM, None)
        return submit(executor, job, run_times)

    monkeypatch.setattr(BaseExecutor, "submit_job", signalled_first)
    daemon.run()  # (the main thread: the signal handlers are set as in `tianshen run`)
    assert not daemon.scheduler.running
    assert daemon.store.load_game(daemon.store.list_games()[0].id).phase_label  # the game kept, unfinished
    daemon.store.close()
