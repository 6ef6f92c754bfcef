"""The GM's controls on an n_lives game on the built-in board (000 §9, DECISIONS §0.3): a voided
privilege is refunded, a removed player's side stays secret (§5.8) in the public status."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from typer.testing import CliRunner

from board_game import GM, START, board_game
from n_lives_helpers import FACTIONS_6, HANDS_6
from tianshen.cli import app
from tianshen.core.model import GameState
from tianshen.store import Store


def run(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def make_game(tmp_path: Path) -> str:
    g = board_game(tmp_path, variant="n_lives", roles=FACTIONS_6, setup={"hands": HANDS_6})
    g.board.pm("丙", GM, "防弹衣\n诅咒 甲")
    g.run_to(1)
    receipts = [m.text for m in g.board.inbox("丙")]
    assert any("防弹衣（花费1点，剩余2点行动点数）" in t for t in receipts), receipts
    g.store.close()
    return g.store.url


def ap(url: str, name: str) -> int:
    store = Store(url)
    record = store.load_game(store.game_id("g"))
    store.close()
    state = GameState.model_validate_json(record.state_json)
    return int(state.player(name).extra["ap"])


def test_void_action_refunds_the_action_points(tmp_path: Path) -> None:
    url = make_game(tmp_path)
    assert ap(url, "丙") == 1  # 2 + 1 (one 庶民), minus 防弹衣 and 诅咒
    at = (START + timedelta(hours=2)).isoformat()
    done = run("admin", "void-action", "丙", "--ability", "防弹衣", "--reason", "玩家要求", "--db", url, "--at", at)
    assert done.exit_code == 0, done.output
    assert ap(url, "丙") == 2
    again = run("admin", "void-action", "丙", "--ability", "防弹衣", "--reason", "再来", "--db", url, "--at", at)
    assert again.exit_code != 0 and "丙现在没有可以取消的「防弹衣」" in again.output


def test_public_status_never_shows_the_side_of_a_removed_player(tmp_path: Path) -> None:
    url = make_game(tmp_path)
    at = (START + timedelta(hours=2)).isoformat()
    assert run("admin", "modkill", "甲", "--reason", "一人两号", "--db", url, "--at", at).exit_code == 0
    public = run("admin", "status", "--public", "--db", url)
    secret = run("admin", "status", "--db", url)
    assert public.exit_code == 0, public.output
    assert "杀手" in secret.output
    assert "no (night 1)" in public.output
    assert "杀手" not in public.output and "killers" not in public.output
