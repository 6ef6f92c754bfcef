"""`tianshen forum check --thread` on the recorded Discuz pages, and how `tianshen run` stops
when the forum refuses the GM's login."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from forums.discuz_fixtures import make_forum, needs_recordings, x34_board, x35_board
from tianshen.cli import app
from tianshen.forum.base import ForumError, LoginRefused

WIDE = {"COLUMNS": "250"}


def discuz_config(tmp_path: Path) -> Path:
    config = tmp_path / "config.toml"
    config.write_text('[forum]\nkind = "discuz"\nbase_url = "http://127.0.0.1:18080/"\nusername = "mafiagm"\n'
                      'password = "gm123456"\nfid = 3\n', encoding="utf-8")
    return config


@needs_recordings
@pytest.mark.parametrize("board_of", [x35_board, x34_board])
def test_forum_check_lists_every_post_with_author_time_edits_and_quotes(
        board_of, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    board = board_of()
    monkeypatch.setattr("tianshen.forum.factory.make_forum", lambda cfg, clock: (make_forum(board), None))
    result = CliRunner().invoke(app, ["forum", "check", "--config", str(discuz_config(tmp_path)), "--thread", "1"],
                                env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.output
    total = 17 if board.version == "x3.5" else 13
    assert f"✔ read thread 1: {total} posts, 2 edited, 1 quoting" in out
    lines = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("#")]
    assert len(lines) == total  # one line per post, not only the last author
    assert lines[0].startswith("#1 id 1 mafiagm 2026年12月2日 2") and "（北京时间）" in lines[0]  # the board is +8
    assert any(ln.startswith("#3 id 3 player2") and " edited by player2 at 2026年12月2日" in ln for ln in lines)
    assert any(ln.startswith("#4 id 4 狼人甲") and " edited by 狼人甲" in ln for ln in lines)
    quoting = [ln for ln in lines if " quoting" in ln]
    assert len(quoting) == 1 and quoting[0].startswith("#9 id 9")


def test_forum_check_shows_player_text_literally(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from tianshen.forum.memory import MemoryBoard

    board = MemoryBoard(lambda: datetime(2026, 12, 2, 12, tzinfo=UTC))
    tid = board.new_thread("神的使者", "投票", "开始")
    board.post("白狐", tid, "[red]投票[/red] 青竹")

    def forum(cfg, clock):
        return board.gm(), board
    import tianshen.forum.factory as factory

    cfg = tmp_path / "c.toml"
    cfg.write_text('[forum]\nkind = "memory"\n', encoding="utf-8")
    original = factory.make_forum
    factory.make_forum = forum  # type: ignore[assignment]
    try:
        result = CliRunner().invoke(app, ["forum", "check", "--config", str(cfg), "--thread", tid], env=WIDE)
    finally:
        factory.make_forum = original
    assert result.exit_code == 0, result.output
    assert "#2 id 2 白狐" in result.output and "[red]投票[/red] 青竹" in result.output  # not eaten as markup


class _Refusing:
    def __init__(self, error: Exception) -> None:
        raise error


@pytest.mark.parametrize(("error", "code", "words"), [
    (LoginRefused("the board refused the GM's password (login_invalid)"), 3, "论坛拒绝了 GM 账号登录"),
    (ForumError("cannot reach the board at http://x/"), 4, "the forum failed"),
])
def test_run_stops_on_a_forum_error_with_one_line_and_an_exit_code(
        error: Exception, code: int, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tianshen.service.daemon.Daemon", lambda cfg, **_: _Refusing(error))
    config = tmp_path / "c.toml"  # a game, so `run` has something to serve and meets the forum
    config.write_text(f'[database]\nurl = "sqlite:///{(tmp_path / "d.db").as_posix()}"\n[forum]\nkind = "memory"\n'
                      '[game]\nname = "g"\nruleset = "classic_8"\nstart = "2026-01-01T20:00:00Z"\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["run", "--config", str(config)], env=WIDE)
    assert result.exit_code == code, result.output
    assert words in result.output and str(error) in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


@needs_recordings
def test_a_discuz_boards_own_offset_is_the_display_zone_when_the_config_sets_none(tmp_path: Path) -> None:
    """Issue 23 item 1: the zone read from the board's footer (GMT+8) is its games' display zone
    unless `display_timezone` (or the Discuz `timezone`) says otherwise."""
    from tianshen.config import load_config

    forum = make_forum(x35_board())
    forum.login()
    assert forum.board_zone() == "+08:00"
    cfg = load_config(discuz_config(tmp_path))
    assert cfg.forum.display_zone(forum.board_zone()) == "+08:00"
    cfg.forum.display_timezone = "Asia/Tokyo"
    assert cfg.forum.display_zone(forum.board_zone()) == "Asia/Tokyo"
    configured = make_forum(x35_board(), timezone="+09:00")
    configured.login()
    assert configured.board_zone() is None  # the config's, not read: display_zone uses `timezone`
    cfg.forum.display_timezone, cfg.forum.timezone = None, "+09:00"
    assert cfg.forum.display_zone(None) == "+09:00"


def test_forum_check_on_the_recorded_phpwind_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39: `tianshen forum check` logs in through the three steps, reads the clock, the
    PMs and the vote thread (pids, floors, the edit mark, the quote), checks the board and the
    accounts, and says what the board is like."""
    from forums import phpwind_fixtures as pw

    if not pw.PAGES.is_dir():
        pytest.skip("recorded PHPWind pages not found (docs/testing.md)")
    board = pw.recorded_board()
    board.on("GET", "index.php", "profile-username-nonexistent.html", m="space", username="player9")
    monkeypatch.setattr("tianshen.forum.factory.make_forum", lambda cfg, clock: (pw.make_forum(board), None))
    config = tmp_path / "config.toml"
    config.write_text('[forum]\nkind = "phpwind"\nbase_url = "http://127.0.0.1:18070/"\nusername = "神的使者"\n'
                      'password = "gm123456"\nfid = 3\n\n[game]\nname = "g"\nruleset = "classic_8"\n'
                      'start = 2026-12-06T20:00:00+08:00\n'
                      + "".join(f'[[game.players]]\nname = "player{i}"\n' for i in range(1, 10)), encoding="utf-8")
    result = CliRunner().invoke(app, ["forum", "check", "--config", str(config), "--thread", "4"], env=WIDE)
    out = result.output
    assert "✔ log in as 神的使者" in out and "✔ read the GM's private messages: 8 messages" in out, out
    assert "✔ read thread 4: 17 posts, 1 edited, 2 quoting" in out, out
    assert "player9" in out and "✘" in out and result.exit_code == 1  # the one account the board lacks
    assert "✔ game board: 杀人游戏 (fid 3)" in out and "#17 id 17 player5" in out
