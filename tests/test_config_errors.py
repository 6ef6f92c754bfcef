"""Issue 23 item 5: a config error is one line with the file, the key and the accepted form;
an unknown key is refused with a did-you-mean, never ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.config import check_games, load_config

WIDE = {"COLUMNS": "240"}
GAME = '[game]\nname = "g"\nruleset = "classic_8"\nstart = 2026-03-01T20:00:00+08:00\n'


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_config(path)
    return str(caught.value)


def _one_line(message: str, tmp_path: Path) -> None:
    assert "\n" not in message, message
    assert message.startswith(f"{tmp_path / 'c.toml'}: "), message
    assert "[type=" not in message and "pydantic" not in message and "validation error" not in message, message


@pytest.mark.parametrize(("table", "written", "meant"), [
    ("game", "substitues = [\"kate\"]", "substitutes"),
    ("game", "gm_contakt = \"me\"", "gm_contact"),
    ("run", "pol_seconds = 5", "poll_seconds"),
    ("forum", "usrname = \"gm\"", "username"),
    ("database", "uri = \"sqlite://\"", "url"),
    ("web", "tokn = \"x\"", "token"),
])
def test_an_unknown_key_is_refused_with_a_did_you_mean(tmp_path: Path, table: str, written: str, meant: str) -> None:
    body = GAME + written + "\n" if table == "game" else GAME + f"[{table}]\n{written}\n"
    message = _error(tmp_path, body)
    _one_line(message, tmp_path)
    key = written.split(" ")[0]
    assert f"[{table}]" in message and f"unknown key '{key}'" in message and f"did you mean '{meant}'?" in message


def test_an_unknown_key_of_a_player_and_of_a_second_game(tmp_path: Path) -> None:
    players = GAME + 'players = [{ name = "白狐", forum_nam = "alice" }]\n'
    message = _error(tmp_path, players)
    _one_line(message, tmp_path)
    assert "[game] players #1" in message and "'forum_nam'" in message and "did you mean 'forum_name'?" in message
    many = GAME.replace("[game]", "[[game]]") + GAME.replace("[game]", "[[game]]").replace("name", "nmae", 1)
    message = _error(tmp_path, many)
    _one_line(message, tmp_path)
    assert "[[game]] #2" in message and "did you mean 'name'?" in message


def test_an_unknown_table_is_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, GAME + "[datbase]\nurl = \"sqlite://\"\n")
    _one_line(message, tmp_path)
    assert "unknown table [datbase]" in message and "did you mean [database]?" in message


@pytest.mark.parametrize(("line", "key", "form"), [
    ("start = \"nope\"", "[game] start", "2026-03-01T20:00:00+08:00"),
    ("display_timezone = \"Mars/Olympus\"", "[forum] display_timezone", "Asia/Shanghai"),
    ("seed = \"abc\"", "[game] seed", "a whole number"),
    ("substitutes = \"kate\"", "[game] substitutes", '["kate", "leo"]'),
])
def test_a_bad_value_names_the_key_and_the_accepted_form(tmp_path: Path, line: str, key: str, form: str) -> None:
    body = GAME.replace("start = 2026-03-01T20:00:00+08:00\n", "") if line.startswith("start") else GAME
    if line.startswith("display_timezone"):
        line = "[forum]\n" + line
    message = _error(tmp_path, body + line + "\n")
    _one_line(message, tmp_path)
    assert key in message and form in message, message


def test_a_bad_forum_kind_and_a_missing_key(tmp_path: Path) -> None:
    message = _error(tmp_path, GAME + '[forum]\nkind = "phpbb"\n')
    _one_line(message, tmp_path)
    assert "[forum] kind" in message and "memory" in message and "discuz" in message
    message = _error(tmp_path, '[game]\nruleset = "classic_8"\nstart = 2026-03-01T20:00:00Z\n')
    _one_line(message, tmp_path)
    assert "[game] name" in message and "missing" in message


def _games_error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        check_games(path, load_config(path))
    return str(caught.value)


def test_an_unknown_ruleset_or_role_names_the_file_and_the_key(tmp_path: Path) -> None:
    message = _games_error(tmp_path, GAME.replace("classic_8", "classic_99"))
    _one_line(message, tmp_path)
    assert "[game] ruleset" in message and "classic_99" in message and "tianshen rulesets" in message
    message = _games_error(tmp_path, GAME + '[game.roles]\n"白狐" = "狼人"\n')
    _one_line(message, tmp_path)
    assert "[game] roles" in message and "狼人" in message and "杀手" in message
    many = GAME.replace("[game]", "[[game]]") + GAME.replace("[game]", "[[game]]").replace("classic_8", "nope")
    assert "[[game]] #2 ruleset" in _games_error(tmp_path, many)


def test_signing_up_names_the_file_and_the_key_of_a_bad_ruleset(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{(tmp_path / "d.db").as_posix()}"\n'
                    + GAME.replace("classic_8", "classic_99"), encoding="utf-8")
    for command in (["admin", "new-game", "--config", str(path)], ["run", "--config", str(path)]):
        result = CliRunner().invoke(app, command, env=WIDE)
        assert result.exit_code == 2 and "[game] ruleset" in result.output, result.output
    assert not (tmp_path / "d.db").exists()


def test_the_cli_prints_the_error_whole_on_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No brackets eaten by rich, no traceback: `[game]` stays in the line."""
    monkeypatch.chdir(tmp_path)  # the default database, were one made, lands here
    path = tmp_path / "c.toml"
    path.write_text(GAME + "substitues = [\"kate\"]\n", encoding="utf-8")
    for command in (["admin", "new-game", "--config", str(path)], ["run", "--config", str(path)],
                    ["forum", "check", "--config", str(path)], ["admin", "status", "--config", str(path)]):
        result = CliRunner().invoke(app, command, env=WIDE)
        assert result.exit_code == 2, (command, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (command, result.output)
        assert "[game] unknown key 'substitues'" in lines[0], (command, result.output)


def test_a_missing_password_variable_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TIANSHEN_NO_SUCH_PASSWORD", raising=False)
    path = tmp_path / "c.toml"
    db = tmp_path / "d.db"
    path.write_text(f'[database]\nurl = "sqlite:///{db.as_posix()}"\n'
                    '[forum]\nkind = "spirit"\nbase_url = "http://127.0.0.1:9/"\n'
                    'password_env = "TIANSHEN_NO_SUCH_PASSWORD"\n', encoding="utf-8")
    for command in (["forum", "check", "--config", str(path)], ["run", "--config", str(path)]):
        result = CliRunner().invoke(app, command, env=WIDE)
        assert result.exit_code == 2, result.output
        line = result.output.strip()
        assert "\n" not in line and str(path) in line, result.output
        assert "[forum] password_env" in line and "TIANSHEN_NO_SUCH_PASSWORD" in line and "not set" in line
    assert not db.exists()  # refused before the database is made


def test_a_start_without_an_offset_is_read_in_the_boards_display_zone(tmp_path: Path) -> None:
    """Issue 23 item 1: `start = 2026-03-01T20:00:00` is no error; it means 20:00 in the board's
    display zone (default Asia/Shanghai, so 12:00 UTC), or in [forum] display_timezone."""
    from datetime import UTC, datetime

    path = tmp_path / "c.toml"
    path.write_text(GAME.replace("+08:00", ""), encoding="utf-8")
    cfg = load_config(path)
    zone = cfg.forum.display_zone()
    assert zone == "Asia/Shanghai"
    assert cfg.games()[0].start_in(zone) == datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    path.write_text(GAME.replace("+08:00", "") + '[forum]\ndisplay_timezone = "Asia/Tokyo"\n', encoding="utf-8")
    cfg = load_config(path)
    assert cfg.games()[0].start_in(cfg.forum.display_zone()) == datetime(2026, 3, 1, 11, 0, tzinfo=UTC)
    path.write_text(GAME, encoding="utf-8")  # an offset written is kept, whatever the zone
    cfg = load_config(path)
    assert cfg.games()[0].start_in("Asia/Tokyo") == datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_a_phpwind_forum_needs_its_board_id(tmp_path: Path) -> None:
    """Issue 39: kind "phpwind" is known, and like Discuz it needs `fid`."""
    forum = '[forum]\nkind = "phpwind"\nbase_url = "http://127.0.0.1:18070/"\npassword = "x"\n'
    message = _error(tmp_path, GAME + forum)
    _one_line(message, tmp_path)
    assert "[forum] missing fid" in message and "phpwind" in message
    path = tmp_path / "ok.toml"
    path.write_text(GAME + forum + "fid = 3\n", encoding="utf-8")
    assert load_config(path).forum.kind == "phpwind"


def test_a_phpwind_forum_with_a_bad_timezone_is_one_line(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from tianshen.forum.factory import make_forum

    path = tmp_path / "c.toml"
    path.write_text(GAME + '[forum]\nkind = "phpwind"\nbase_url = "http://127.0.0.1:18070/"\npassword = "x"\n'
                    'fid = 3\ntimezone = "Mars/Olympus"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"\[forum\] timezone: 'Mars/Olympus' is no time zone"):
        make_forum(load_config(path).forum, lambda: datetime.now(UTC))
