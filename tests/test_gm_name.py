"""Issue 31 item 2: players are told to PM the GM account tianshen logs in as (`[forum]
username`, as the board shows it), not a fixed 神的使者; `forum check` and `admin new-game`
say which name that is.  Rehearsals and replays keep 神的使者 (the goldens)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from classic_helpers import ROLES_10
from tianshen.cli import app
from tianshen.config import load_config
from tianshen.forum.memory import MemoryBoard
from tianshen.rules import game_ruleset, load_ruleset
from tianshen.service.daemon import Daemon
from tianshen.sim import DaemonPlayers
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, tzinfo=UTC)


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def real_at(self, game_time: datetime) -> datetime:
        return datetime.now(UTC) + (game_time - self.at)


def _config(tmp_path: Path, username: str = "mafiagm", start: datetime = START) -> Path:
    seats = "\n".join(f'[[game.players]]\nname = "{n}"\nforum_name = "acct{i}"' for i, n in enumerate(ROLES_10))
    path = tmp_path / "c.toml"
    path.write_text(f"""
[database]
url = "sqlite:///{(tmp_path / 'd.db').as_posix()}"
[forum]
kind = "memory"
username = "{username}"
[game]
name = "gm-name"
ruleset = "classic_10"
seed = 5
start = "{start.isoformat()}"
{seats}
""", encoding="utf-8")
    return path


def test_every_text_of_a_game_names_the_configured_gm_account(tmp_path: Path) -> None:
    clock = Clock(START)
    board = MemoryBoard(clock.now, gm_account="mafiagm")
    daemon = Daemon(load_config(_config(tmp_path)), forum=board.gm(), clock=clock, players=DaemonPlayers())
    daemon.tick()
    for hours in (24, 36):  # dawn, then the vote thread
        clock.at = START + timedelta(hours=hours)
        daemon.tick()
    texts = [pm.text for n in (f"acct{i}" for i in range(10)) for pm in board.inbox(n)]
    texts += [p.text for t, _ in board.threads() for p in board.thread_posts(t)]
    killer_pm = next(t for t in texts if "【杀手】" in t)
    assert "寄“杀 名字”给mafiagm" in killer_pm
    player_list = next(t for t in texts if "所有特权请用短消息寄给" in t)
    assert "所有特权请用短消息寄给“mafiagm”" in player_list
    vote_thread = next(t for t in texts if "投票截止" in t)
    assert "给mafiagm" in vote_thread
    assert not [t for t in texts if "神的使者" in t]
    daemon.store.close()


def test_a_game_signed_up_before_the_name_was_stored_and_rehearsals_keep_the_old_name() -> None:
    assert "神的使者" in load_ruleset("classic_10").spec.text("not_a_player")
    assert "神的使者" in game_ruleset("classic_10", {"setup": {}}).spec.text("not_a_player")
    named = game_ruleset("classic_10", {"setup": {"gm_account": "mafiagm"}})
    assert named.spec.text("not_a_player") == "你不是本局游戏者，mafiagm不受理你的短消息。"
    assert "神的使者" in load_ruleset("classic_10").spec.text("not_a_player")  # the cached spec is not changed


def test_forum_check_and_new_game_say_which_name_players_are_told(tmp_path: Path) -> None:
    path = _config(tmp_path, start=datetime(2099, 1, 1, 20, tzinfo=UTC))
    check = CliRunner().invoke(app, ["forum", "check", "--config", str(path)])
    assert check.exit_code == 0, check.output
    assert "players will be told to send their PMs to “mafiagm”" in check.output
    signed = CliRunner().invoke(app, ["admin", "new-game", "--config", str(path)])
    assert signed.exit_code == 0, signed.output
    assert "players will be told to send their PMs to “mafiagm”" in signed.output
    store = Store(f"sqlite:///{(tmp_path / 'd.db').as_posix()}")
    [record] = store.list_games()
    assert record.config["setup"]["gm_account"] == "mafiagm"
    store.close()


def test_forum_check_and_new_game_output_piped_is_not_wrapped(tmp_path: Path) -> None:
    path = _config(tmp_path, username="a-gm-account-whose-name-is-long-enough-to-pass-eighty-columns",
                   start=datetime(2099, 1, 1, 20, tzinfo=UTC))
    for args in (["forum", "check", "--config", str(path)], ["admin", "new-game", "--config", str(path)]):
        result = CliRunner().invoke(app, args, env={"COLUMNS": ""})  # not a terminal: rich assumes 80
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        first = "log in as a-gm" if args[0] == "forum" else "game gm-name (#1"
        assert any(first in ln and ln.rstrip().endswith(("columns", "（北京时间）")) for ln in lines)
        line = next(ln for ln in lines if "players will be told" in ln)
        assert line.rstrip().endswith(("(the GM account as the board shows it)", "pass-eighty-columns”"))
        assert len(line) > 80
