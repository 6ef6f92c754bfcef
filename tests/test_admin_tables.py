"""Issue 23 item 13: `tianshen admin status` shows how each input of the phase was judged
(accepted with its receipt, refused and why, not a vote) as a table, and `admin substitute`
and the GM log show the last-seen times as a table, never a Python dict."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from board_game import GM, KILL_庚, board_game
from tianshen.cli import app

START = datetime(2026, 1, 1, 20, tzinfo=UTC)


def run(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})


def test_status_shows_how_each_input_was_judged(tmp_path: Path) -> None:
    g = board_game(tmp_path, seed=3, start=START)
    g.board.pm("甲", GM, KILL_庚)
    g.board.pm("丙", GM, "占卜 某某某")
    g.run_to(1)
    night = run("admin", "status", "--db", g.store.url)
    assert night.exit_code == 0, night.output
    rows = {line for line in night.output.splitlines() if "│" in line}
    assert any("甲" in r and "accepted" in r for r in rows)
    assert any("丙" in r and "refused" in r and "某某某" in r for r in rows)  # why, in the player's words
    g.run_to(24)  # dawn
    g.run_to(24 + 12)  # the vote thread opens
    vote = g.thread("vote:1")
    g.clock.set(g.at(37))
    g.board.post("辛", vote, "投票 丁，他昨天很可疑")
    g.board.post("壬", vote, "大家好，我再想想")
    g.board.post("癸", vote, "投票 某某某")
    g.run_to(38)
    day = run("admin", "status", "--db", g.store.url)
    assert day.exit_code == 0, day.output
    rows = [line for line in day.output.splitlines() if "│" in line]
    assert any("辛" in r and "accepted" in r for r in rows)
    assert any("壬" in r and "not a vote" in r for r in rows)
    assert any("癸" in r and "refused" in r and "某某某" in r for r in rows)
    assert "judged" in day.output
    g.store.close()


def test_substitute_and_the_gm_log_show_last_seen_as_a_table(tmp_path: Path) -> None:
    g = board_game(tmp_path, seed=3, start=START, substitutes=["替补甲"])
    g.board.pm("甲", GM, KILL_庚)
    g.run_to(1)
    g.store.close()
    at = (START + timedelta(hours=2)).isoformat()
    out = run("admin", "substitute", "--players", "辛", "--reason", "潜水", "--db", g.store.url, "--at", at)
    assert out.exit_code == 0, out.output
    assert "last seen" in out.output and "{'" not in out.output and "never" in out.output
    row = next(line for line in out.output.splitlines() if "│" in line and " 辛 " in line)
    assert "yes" in row
    status = run("admin", "status", "--db", g.store.url)
    assert status.exit_code == 0, status.output
    assert "substitute players=辛 — 潜水" in status.output and "{'" not in status.output
    assert "last seen" in status.output


def test_gm_arguments_are_words() -> None:
    """The GM log line (replay, `admin`, the web GM page) names arguments as key=value."""
    from tianshen.core.ruleset import gm_args

    text = gm_args({"players": "辛", "last_seen": {"甲": "2026-01-01T20:00:00+00:00"}, "at": None})
    assert text == "players=辛 last_seen=甲 2026-01-01 20:00" and "{" not in text
