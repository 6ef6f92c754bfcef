"""The config of a daemon test on the memory board: one classic_8 game of eight players
under their own accounts, no simulated players (the test writes the inputs)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

from tianshen.config import Config
from tianshen.service import daemon as daemon_module

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
NAMES = ["白狐", "青竹", "夜莺", "孤舟", "寒梅", "石榴", "墨鱼", "飞燕"]


def memory_config(tmp_path: Path, name: str, poll_seconds: float, game_extra: str = "") -> Path:
    """config.toml in `tmp_path` (its database beside it), game `name` at START."""
    path = tmp_path / "config.toml"
    players = ", ".join(f'{{ name = "{n}", forum_name = "{n}" }}' for n in NAMES)
    path.write_text(f"""
[database]
url = "sqlite:///{tmp_path / 'd.db'}"

[forum]
kind = "memory"

[run]
simulate = false
poll_seconds = {poll_seconds}

[game]
name = "{name}"
ruleset = "classic_8"
seed = 5
start = {START.isoformat().replace("+00:00", "Z")}
players = [{players}]
{game_extra}""", encoding="utf-8")
    return path


class HandClock:
    """The daemon's clock in a test that ticks by hand: `at` is moved by the test, and no
    scheduler job ever comes due by itself."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def real_at(self, game_time: datetime) -> datetime:
        return datetime(2100, 1, 1, tzinfo=UTC)


class _HeldClock(daemon_module.GameClock):
    """A rehearsal's GameClock that stands still from its making (tick_to_the_end moves it)."""

    def __init__(self, game_start: datetime, scale: float) -> None:
        at = time.time()
        super().__init__(game_start, scale, lambda: at)


def rehearsal_daemon(config: Config, players: daemon_module.SimulatedPlayers) -> daemon_module.Daemon:
    """A rehearsal daemon whose clock does not run while it is built: what it stamps then (each
    game's sign-up, the board's `since`) is the game's start on an idle machine and a loaded
    one, not hours later (at time_scale 36000 a real 0.1 s is a game hour)."""
    with mock.patch.object(daemon_module, "GameClock", _HeldClock):
        return daemon_module.Daemon(config, players=players)


def tick_to_the_end(daemon, max_moments: int = 2000) -> int:  # daemon: tianshen.service.daemon.Daemon
    """Play a rehearsal (memory board, `[run] simulate`, its GameClock) to the end by hand,
    with no wall-clock wait: at each moment the daemon ticks until a tick changes nothing
    (the simulated players act in one tick, the daemon reads them in the next), then the
    clock jumps to the next moment a game has (its start or deadline).  The game is the same
    on an idle machine and a loaded one.  Returns the number of moments."""
    clock, board = daemon.clock, daemon.board
    real = [clock.real_start]
    clock.real_now = lambda: real[0]  # the rehearsal's real time: moved only here

    def seen() -> tuple:
        return (tuple((r.id, r.step_seq) for r in daemon.store.heads((daemon.board_key,))),
                len(board.activity()) if board is not None else 0)

    for moment in range(max_moments):
        for _ in range(50):
            before = seen()
            daemon.tick()
            if seen() == before:
                break
        if daemon.all_over():
            return moment
        moments = [at for served in daemon.served.values() if (at := daemon._next_moment(served)) is not None]
        if moments:  # a millisecond past it: the clock's float arithmetic must not land just before
            real[0] = max(real[0], clock.real_at(min(moments)).timestamp() + 1e-3)
    phases = [g.phase_label for g in daemon.store.list_games()]
    raise AssertionError(f"not over after {max_moments} moments (at {phases})")
