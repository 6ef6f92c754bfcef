"""Issue 5 game lifecycle: `admin new-game` signs a game up, it is dealt at its start time
(by the daemon) or at once (`admin start`); PMs the GM account had before are not the game's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VESTS, VirtualClock
from tianshen.store import Store

START = datetime(2099, 3, 1, 12, tzinfo=UTC)  # admin new-game refuses a start in the past


def write_config(tmp_path: Path, players: int = 10, roles: str = "") -> Path:
    rows = ",\n".join(f'  {{ name = "{v}", forum_name = "player{i}" }}' for i, v in enumerate(VESTS[:players]))
    cfg = tmp_path / "game.toml"
    cfg.write_text(f"""
[database]
url = "sqlite:///{(tmp_path / 'g.db').as_posix()}"
[game]
name = "spring"
ruleset = "classic_10"
seed = 9
start = "{START.isoformat()}"
substitutes = ["sub1", "sub2"]
{roles}
players = [
{rows}
]
""", encoding="utf-8")
    return cfg


def run(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_new_game_then_start_deals_and_queues_the_role_pms(tmp_path: Path) -> None:
    cfg = write_config(tmp_path)
    made = run("admin", "new-game", "--config", str(cfg))
    assert made.exit_code == 0, made.output
    assert "signed up" in made.output and "2 substitutes" in made.output
    url = f"sqlite:///{(tmp_path / 'g.db').as_posix()}"
    store = Store(url)
    game = store.game_id("spring")
    assert store.load_game(game).status == "new" and store.events(game) == []
    again = run("admin", "new-game", "--config", str(cfg))
    assert again.exit_code == 2 and "exists already" in again.output
    started = run("admin", "start", "--db", url, "--at", (START - timedelta(hours=1)).isoformat())
    assert started.exit_code == 0, started.output
    record = store.load_game(game)
    assert record.status == "running" and record.phase_label == "night 1"
    pending = store.pending_outbox(game)
    assert sum(1 for o in pending if o.kind == "pm") == 10 and any(o.title for o in pending)
    assert {o.target for o in pending if o.kind == "pm"} == {f"player{i}" for i in range(10)}
    assert run("admin", "start", "--db", url).exit_code == 2  # only once
    store.close()


def test_a_bad_sign_up_is_refused_at_once(tmp_path: Path) -> None:
    short = run("admin", "new-game", "--config", str(write_config(tmp_path, players=9)))
    assert short.exit_code == 2 and "needs 10 players" in short.output
    cfg = write_config(tmp_path, roles='roles = { "白狐" = "杀手", "青竹" = "杀手", "夜莺" = "杀手" }')
    three = run("admin", "new-game", "--config", str(cfg))
    assert three.exit_code == 2 and "killer" in three.output


def test_dealt_at_the_start_time_and_old_pms_are_not_the_games(tmp_path: Path) -> None:
    clock = VirtualClock(START - timedelta(days=1))
    board = MemoryBoard(clock.now)
    board.pm("白狐", "神的使者", "杀 青竹")  # a PM from before the game
    forum = board.gm()
    forum.login()
    store = Store(f"sqlite:///{tmp_path / 'l.db'}")
    store.upgrade()
    from tianshen.core.ruleset import GameSetup, Seat

    setup = GameSetup(seats=[Seat(name=v) for v in VESTS[:10]], seed=4, start=START)
    driver = GameDriver(store, forum, GameDriver.register(store, "l", "classic_10", setup))
    assert not driver.is_started()
    clock.set(START)
    driver.start()
    assert driver.is_started() and driver.state().phase.started_at == START
    clock.set(START + timedelta(hours=1))
    driver.advance(clock.now())
    assert store.inbound(driver.game_id) == []  # the old PM was not taken as a night-1 action
    store.close()
