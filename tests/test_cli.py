"""The `tianshen` command line (typer)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.core.model import GameState
from tianshen.replay import load_script, replay
from tianshen.rules import load_ruleset
from tianshen.store import Store

SCRIPTS = Path(__file__).resolve().parent / "scripts"
WIDE = {"COLUMNS": "240"}  # rich tables: no wrapping inside a row


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_rehearse_prints_the_winner(runner: CliRunner, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    result = runner.invoke(app, ["rehearse", "--ruleset", "classic_13", "--seed", "7", "--db", db], env=WIDE)
    assert result.exit_code == 0, result.output
    m = re.search(r"winner: (平民方|杀手方) \((civilians|killers)\) — game #1", result.output)
    assert m, result.output[-500:]
    store = Store(db)
    [game] = store.list_games()
    store.close()
    assert (game.ruleset, game.seed, game.status, game.winner) == ("classic_13", 7, "over", m.group(2))
    assert "《游戏者名单》" in result.output  # the transcript is printed unless --quiet


def test_rehearse_unknown_ruleset(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["rehearse", "--ruleset", "classic_99", "--db", f"sqlite:///{tmp_path / 'r.db'}"],
                           env=WIDE)
    assert result.exit_code == 2
    assert "unknown ruleset 'classic_99'" in result.output


def test_replay_json(runner: CliRunner) -> None:
    script = SCRIPTS / "tie_ld.toml"
    result = runner.invoke(app, ["replay", str(script), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == replay(load_script(script))
    assert data["ruleset"] == "classic_10" and data["winner"] is None


def test_replay_text(runner: CliRunner) -> None:
    result = runner.invoke(app, ["replay", str(SCRIPTS / "bind_save.toml")], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "[拒绝] 庚: '投票 甲'" in result.output
    assert result.output.rstrip().endswith("no winner: the script ends in day 1")  # issue 32 item 9: not "winner: None"


def test_replay_missing_file(runner: CliRunner) -> None:
    result = runner.invoke(app, ["replay", "missing.toml"], env=WIDE)
    assert result.exit_code == 2
    assert "error:" in result.output and "missing.toml" in result.output


def test_replay_bad_script(runner: CliRunner) -> None:
    result = runner.invoke(app, ["replay", str(SCRIPTS / "bad_role.toml"), "--json"], env=WIDE)
    assert result.exit_code == 2
    assert "unknown role '狼人' for player '乙'" in result.output


def test_admin_status_after_a_rehearsal(runner: CliRunner, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert runner.invoke(app, ["rehearse", "--ruleset", "classic_10", "--seed", "3", "--db", db, "--quiet"]).exit_code == 0
    result = runner.invoke(app, ["admin", "status", "--db", db], env=WIDE)
    assert result.exit_code == 0, result.output

    store = Store(db)
    [game] = store.list_games()
    store.close()
    state = GameState.model_validate_json(game.state_json)
    ruleset = load_ruleset("classic_10")
    out = result.output
    assert f"{game.name} (classic_10, seed 3) — over" in out
    assert "phase: over" in out
    assert "winner: 平民方" in out or "winner: 杀手方" in out  # the side in words, not its key
    for p in state.players:  # the secret view: every role, on the player's own row
        [row] = [line for line in out.splitlines() if f" {p.forum_name} " in line]
        assert f" {p.name} " in row
        assert f" {ruleset.spec.role_name(p.role)} " in row
        assert (" yes " in row) == p.alive
    assert "messages waiting in the outbox" not in out


def test_admin_status_unknown_game(runner: CliRunner, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    result = runner.invoke(app, ["admin", "status", "--db", db], env=WIDE)
    assert result.exit_code == 2 and "no game in" in result.output
    assert runner.invoke(app, ["rehearse", "--ruleset", "classic_8", "--seed", "1", "--db", db, "--quiet"]).exit_code == 0
    result = runner.invoke(app, ["admin", "status", "nope", "--db", db], env=WIDE)
    assert result.exit_code == 2 and "no game named 'nope'" in result.output


def test_rulesets(runner: CliRunner) -> None:
    result = runner.invoke(app, ["rulesets"])
    assert result.exit_code == 0
    assert {"classic_8", "classic_10", "classic_13"} <= set(result.output.split())
    assert "_classic_common" not in result.output


def test_forum_check_on_the_built_in_board(tmp_path) -> None:
    """`tianshen forum check` logs in, reads the clock and the GM's PMs, and says so."""
    from typer.testing import CliRunner

    from tianshen.cli import app

    cfg = tmp_path / "c.toml"
    cfg.write_text('[forum]\nkind = "memory"\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["forum", "check", "--config", str(cfg)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "log in as 神的使者" in result.output and "server clock" in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text('[forum]\nkind = "spirit"\n', encoding="utf-8")
    refused = CliRunner().invoke(app, ["forum", "check", "--config", str(bad)], env={"COLUMNS": "200"})
    assert refused.exit_code == 2
    assert "base_url" in refused.output


def test_forum_check_reads_a_thread_and_sends_a_test_pm(tmp_path) -> None:
    from typer.testing import CliRunner

    from tianshen.cli import app

    cfg = tmp_path / "c.toml"
    cfg.write_text('[forum]\nkind = "memory"\n', encoding="utf-8")
    sent = CliRunner().invoke(app, ["forum", "check", "--config", str(cfg), "--pm-to", "白狐"],
                              env={"COLUMNS": "200"})
    assert sent.exit_code == 0 and "✔ send a test PM to 白狐" in sent.output
    missing = CliRunner().invoke(app, ["forum", "check", "--config", str(cfg), "--thread", "9"],
                                 env={"COLUMNS": "200"})
    assert "✘ read thread 9" in missing.output  # the built-in board starts empty: a clear failure
    assert missing.exit_code == 1


def test_the_example_config_is_valid() -> None:
    from pathlib import Path

    from tianshen.config import load_config
    from tianshen.specs import load_spec

    cfg = load_config(Path(__file__).resolve().parents[1] / "config.example.toml")
    assert cfg.game is not None and len(cfg.game.players) == load_spec(cfg.game.ruleset).players
    assert cfg.forum.kind == "memory" and cfg.database.url.startswith("sqlite")


def test_a_config_with_a_bare_chinese_key_says_how_to_write_it(tmp_path) -> None:
    import pytest

    from tianshen.config import load_config

    bad = tmp_path / "c.toml"
    bad.write_text('[game]\nname = "g"\nruleset = "classic_10"\nstart = 2026-01-01T00:00:00Z\n'
                   '[game.roles]\n白狐 = "杀手"\n', encoding="utf-8")
    with pytest.raises(ValueError, match='quoted TOML keys: "白狐"'):
        load_config(bad)


def test_db_takes_a_file_path(runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 32 item 8: `--db x.db` is a SQLite file, not a rich traceback; so for `admin`."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["rehearse", "--db", "x.db", "--quiet"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "in sqlite:///x.db" in result.output and (tmp_path / "x.db").is_file()
    status = runner.invoke(app, ["admin", "status", "--db", str(tmp_path / "x.db")], env=WIDE)
    assert status.exit_code == 0 and "winner" in status.output, status.output


@pytest.mark.parametrize("args", [
    ["rehearse", "--db", "foo://", "--quiet"],
    ["admin", "status", "--db", "foo://"],
    ["admin", "status", "--db", "{here}/not-a-db.toml"],
    ["rehearse", "--db", "{here}", "--quiet"],
    ["run", "--config", "{here}/run.toml"],
])
def test_a_database_that_cannot_be_used_is_one_line(runner: CliRunner, tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "not-a-db.toml").write_text("[database]\n", encoding="utf-8")
    (tmp_path / "run.toml").write_text('[database]\nurl = "not-a-db.toml"\n[forum]\nkind = "memory"\n',
                                       encoding="utf-8")
    result = runner.invoke(app, [a.replace("{here}", str(tmp_path)) for a in args], env=WIDE)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "not a database URL" in lines[0] or "cannot use the database" in lines[0], lines[0]


def test_a_config_database_url_may_be_a_path(tmp_path: Path) -> None:
    from tianshen.config import load_config

    path = tmp_path / "c.toml"
    path.write_text('[database]\nurl = "games/x.db"\n', encoding="utf-8")
    assert load_config(str(path)).database.url == f"sqlite:///{(tmp_path / 'games' / 'x.db').as_posix()}"
    path.write_text('[database]\nurl = "postgres://u@h/d"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"\[database\] url.*not a database URL"):
        load_config(str(path))


FAMILY_VARIANTS = ["classic_10", "game_ten", "n_lives", "hex_survival_12", "butterfly_elder"]


@pytest.mark.parametrize("variant", FAMILY_VARIANTS)
def test_admin_status_says_the_step_and_the_winner_in_words_on_every_family(runner: CliRunner, tmp_path: Path,
                                                                          variant: str) -> None:
    """The step and the winner as the game names them, never their keys (`civilians`, `good`)."""
    from datetime import UTC, datetime, timedelta

    from tianshen.cliwords import winner_name
    from tianshen.core.ruleset import GameSetup, Seat
    from tianshen.forum.memory import MemoryBoard
    from tianshen.rules import family
    from tianshen.service.driver import GameDriver
    from tianshen.sim.rehearsal import VirtualClock
    from tianshen.specs import load_spec

    db = f"sqlite:///{tmp_path / 'live.db'}"
    clock = VirtualClock(datetime(2026, 1, 1, 12, tzinfo=UTC))
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    store = Store(db)
    store.upgrade()
    seats = [Seat(name=f"玩家{i}") for i in range(1, load_spec(variant).players + 1)]
    driver = GameDriver.create(store, forum, "live", variant, GameSetup(seats=seats, seed=4, start=clock.now()))
    driver.advance(clock.now())
    for _ in range(3):  # into the first steps with a word of their own
        deadline = driver.ruleset.next_deadline(driver.state())
        if deadline is None or driver.state().phase.step:
            break
        clock.set(deadline.at + timedelta(seconds=1))
        driver.advance(clock.now())
    state = driver.state()
    store.close()
    live = runner.invoke(app, ["admin", "status", "--db", db], env=WIDE)
    assert live.exit_code == 0, live.output
    [phase] = [line for line in live.output.splitlines() if line.startswith("phase: ")]
    if state.phase.step:
        words = family(state.ruleset).step_words()[state.phase.step]
        assert f"phase: {state.phase.label} {words}" in phase, phase
        assert state.phase.step not in phase.split(" — next:")[0].replace(words, ""), phase

    over = f"sqlite:///{tmp_path / 'over.db'}"
    assert runner.invoke(app, ["rehearse", "--ruleset", variant, "--seed", "3", "--db", over, "--quiet"]).exit_code == 0
    result = runner.invoke(app, ["admin", "status", "--db", over], env=WIDE)
    assert result.exit_code == 0, result.output
    store = Store(over)
    [game] = store.list_games()
    store.close()
    winner = GameState.model_validate_json(game.state_json).winner
    [line] = [line for line in result.output.splitlines() if line.startswith("winner: ")]
    assert winner and line == f"winner: {winner_name(game.ruleset, game.config, winner)}", line
    assert winner not in line  # the name, not the key
