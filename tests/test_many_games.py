"""Issue 14: one service for a whole board — three games of different rulesets on one
built-in board and one GM account, in one process, played by simulated players to their
winners: every PM is answered by its own game, nobody is refused as a stranger by another
game, and a sender in two games is asked to say which."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from daemon_config import rehearsal_daemon, tick_to_the_end
from tianshen.config import load_config
from tianshen.forum.base import ForumPm
from tianshen.service.daemon import Daemon, _chosen, _without_game_word
from tianshen.service.driver import signed_up
from tianshen.sim import DaemonPlayers
from tianshen.sim.rehearsal import VESTS
from tianshen.store import GameRecord, Store

GAMES = [("经典", "classic_8", 8, ""), ("游戏十", "game_ten", 14, "小"), ("九命猫", "n_lives", 6, "老")]
NOT_A_PLAYER = "你不是本局游戏者"
START = datetime(2026, 1, 1, 20, tzinfo=UTC)


def _config(tmp_path: Path, db: str) -> Path:
    tables = []
    for name, ruleset, n, prefix in GAMES:
        players = ", ".join(f'{{ name = "{prefix}{v}" }}' for v in VESTS[:n])
        tables.append(f'[[game]]\nname = "{name}"\nruleset = "{ruleset}"\nseed = 4\n'
                      f'start = 2026-01-01T20:00:00Z\nplayers = [{players}]\n')
    path = tmp_path / "board.toml"
    path.write_text(f'[database]\nurl = "{db}"\n[forum]\nkind = "memory"\n'
                    f"[run]\nsimulate = true\ntime_scale = 36000\npoll_seconds = 0.05\n\n" + "\n".join(tables),
                    encoding="utf-8")
    return path


def test_three_games_on_one_board_and_one_gm_account(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'board.db'}"
    daemon = rehearsal_daemon(load_config(_config(tmp_path, db)), DaemonPlayers())
    tick_to_the_end(daemon)  # by the game's clock, not the machine's: no window is missed under load
    store = Store(db)
    games = store.list_games()
    assert sorted(g.name for g in games) == sorted(name for name, *_ in GAMES)
    for game in games:
        assert game.status == "over" and game.winner, game.name
        assert signed_up(game.config) == START, game.name  # later, its first PMs were older than it
        names = {p["name"] for p in game.config["setup"]["seats"]}
        received = [i for i in store.inbound(game.id) if i.source == "pm"]
        assert received, game.name
        assert {i.sender for i in received} <= names  # only its own players' PMs reached it
        replies = [o for o in store.outbox(game.id) if o.kind == "pm" and o.subject and o.subject.startswith("天神回复")]
        assert not [o for o in replies if NOT_A_PLAYER in o.body], game.name
        assert {o.target for o in replies} >= {i.sender for i in received}
        assert not store.pending_outbox(game.id)
    board = store.board_game(daemon.board_key)
    assert store.inbound(board) == []  # no PM of a player was taken for a stranger's
    store.close()


def _game(id_: int, name: str) -> GameRecord:
    return GameRecord(id=id_, name=name, ruleset="classic_8", seed=1, status="running", phase_label="night 1",
                      deadline_at=None, winner=None, state_json="{}", config={})


def test_a_player_in_two_games_names_the_game_first() -> None:
    a, b = _game(1, "春季局"), _game(2, "夏季局")
    pm = ForumPm(7, "白狐", datetime(2026, 1, 1, tzinfo=UTC), "", "夏季局 杀 青竹")
    assert _chosen(pm.text, [a, b]) == [b]
    assert _without_game_word(pm, b).text == "杀 青竹"
    assert _chosen("2号：杀 青竹", [a, b]) == [b]
    assert _chosen("杀 青竹", [a, b]) == []  # he did not say: refused with both games listed


def test_strangers_and_undecided_players_get_one_refusal_each(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'board.db'}"
    config = load_config(_config(tmp_path, db))
    config.run.simulate = False
    daemon = Daemon(config, players=DaemonPlayers())
    daemon.tick()  # deals all three games
    assert daemon.board is not None
    daemon.board.pm("路人甲", daemon.forum.account, "杀 白狐")
    daemon.tick()
    daemon.tick()  # read again: still one refusal
    refusals = [m for m in daemon.board.inbox("路人甲") if m.sender == daemon.forum.account]
    assert len(refusals) == 1 and "不在本版正在进行的任何一局游戏中" in refusals[0].text
    daemon.store.close()


def test_a_restarted_daemon_takes_its_dead_predecessors_leases_at_once(tmp_path: Path) -> None:
    """Issue 14: a process of this host that is gone holds no game for a lease period."""
    import socket
    import subprocess
    import sys

    db = f"sqlite:///{tmp_path / 'board.db'}"
    config = load_config(_config(tmp_path, db))
    config.run.simulate = False
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_owner = f"{socket.gethostname()}:{gone.stdout.strip()}"
    store = Store(db)
    store.upgrade()
    first = Daemon(config, players=DaemonPlayers())
    for r in first.games():
        assert store.acquire_lease(r.id, dead_owner, datetime.now(UTC), 600)
    first.tick()
    assert len(first.served) == len(GAMES)  # not 10 minutes later: now
    store.close()
    first.store.close()
