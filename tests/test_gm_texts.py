"""Issue 32 item 9: what the GM reads is words — times in the board's zone with its label,
durations as people say them, no names from the code, no clause numbers in a PM read on the
forum, whole tables and unbroken sentences when the output is piped, no 「winner None」."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from board_game import GM, KILL_庚, board_game
from tianshen.cli import app

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
WIDE = {"COLUMNS": "250"}


def run(*args: str):
    return CliRunner().invoke(app, list(args), env=WIDE)


def _day_one(tmp_path: Path, **setup):
    g = board_game(tmp_path, seed=3, start=START, **setup)
    g.board.pm("甲", GM, KILL_庚)
    g.run_to(24)
    g.run_to(24 + 12)  # the vote thread opens
    g.clock.set(g.at(37))
    g.board.post("辛", g.thread("vote:1"), "投票 丁")
    g.run_to(38)
    return g


def test_status_names_no_code_words(tmp_path: Path) -> None:
    g = _day_one(tmp_path)
    g.store.close()
    out = run("admin", "status", "--db", g.store.url).output
    for word in ("bind_streak", "on_duty", "can_vote", "=False", "=True", "vote:1", "vote_end"):
        assert word not in out, (word, out)
    assert "可投票：否" in out and "第1天投票帖" in out and "next: the vote's close at" in out, out
    preview = run("admin", "preview", "--db", g.store.url).output
    assert "preview of the vote's close" in preview and "[公开帖子 主帖]" in preview, preview


def test_last_seen_is_shown_in_the_boards_zone(tmp_path: Path) -> None:
    g = _day_one(tmp_path, substitutes=["替补甲"])
    g.store.close()
    at = (START + timedelta(hours=38)).isoformat()
    out = run("admin", "substitute", "--players", "壬", "--reason", "潜水", "--db", g.store.url, "--at", at).output
    [line] = [ln for ln in out.splitlines() if ln.startswith("GM substitute")]
    assert "辛 1月3日 17:00（北京时间）" in line and "2026-01-03" not in line, line  # 09:00 UTC
    report = run("admin", "export", "--db", g.store.url).output
    assert "GM substitute players=壬 last_seen=" in report and "（北京时间）" in report, report
    assert "{'" not in report


def test_a_gm_note_by_pm_cites_no_clause(tmp_path: Path) -> None:
    """The notes keep their citations in the log and the status views; the PM to the human GM
    on the forum is plain (「DECISIONS §3.1.7」 is nothing a forum reader can open)."""
    g = _day_one(tmp_path, gm_contact="人工天神")
    g.run_to(24 + 36)  # the day ends: everyone but 辛 did not vote
    notes = [pm.text for pm in g.board.inbox("人工天神")]
    assert any("没有投票也没有委托投票" in n for n in notes), notes
    assert not any("DECISIONS" in n or "§" in n for n in notes), notes
    assert any("按规则" in n for n in notes), notes
    g.store.close()


def test_citations_leave_a_plain_sentence() -> None:
    from tianshen.gmwords import without_citations

    assert without_citations("甲 没有投票，已按 DECISIONS §3.1.7（弃权者退出游戏）退出游戏") == \
        "甲 没有投票，已按规则（弃权者退出游戏）退出游戏"
    assert without_citations("请判断是否删除（003 §8.4）。") == "请判断是否删除。"
    assert without_citations("已按 001 §5.3 退出游戏") == "已按规则退出游戏"


def test_durations_are_words() -> None:
    from tianshen.gmwords import span

    assert span(timedelta(minutes=25, seconds=5.975911)) == "25 min 6 s"
    assert span(timedelta(days=3, minutes=7)) == "3 d"
    assert span(timedelta(hours=1, minutes=5, seconds=9)) == "1 h 5 min"
    assert span(timedelta(seconds=0.2)) == "0 s"


def test_a_late_deal_is_logged_as_a_duration(tmp_path: Path, caplog) -> None:
    from test_times import _daemon

    start = datetime(2026, 3, 1, 12, tzinfo=UTC)
    with caplog.at_level(logging.WARNING, logger="tianshen"):
        daemon = _daemon(tmp_path, start, start + timedelta(minutes=25, seconds=5.975911))
    [line] = [r.getMessage() for r in caplog.records if "after its start" in r.getMessage()]
    assert "dealt 25 min 6 s after its start" in line and "0:25:05" not in line, line
    daemon.store.close()


def test_a_stopped_run_says_the_game_goes_on_not_winner_none(tmp_path: Path) -> None:
    from tianshen.cli import _stopped_lines

    g = board_game(tmp_path, seed=3, start=START)
    g.run_to(1)
    [running] = g.store.list_games()
    assert _stopped_lines([running]) == ["game g: night 1, not over (`tianshen run` carries on with it)"]
    g.driver.gm("end-game", "测试", g.clock.now(), winner="killers")
    [over] = g.store.list_games()
    assert _stopped_lines([over]) == ["game g: over, winner 杀手方 (killers)"]
    g.store.close()


def test_piped_output_is_neither_cut_nor_wrapped(tmp_path: Path) -> None:
    """No terminal, no $COLUMNS (`tianshen admin status | less`): tables whole, lines unbroken."""
    g = _day_one(tmp_path)
    g.clock.set(g.at(38.5))
    g.board.post("壬", g.thread("vote:1"), "投票 丁，他昨天晚上说的话前后矛盾，我觉得他很可疑")
    g.run_to(39)
    g.store.close()
    reason = "论坛维护，所有游戏者都同意把本时段顺延两个小时，之后照常进行"
    assert run("admin", "extend", "--hours", "2", "--reason", reason, "--db", g.store.url).exit_code == 0
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run([sys.executable, "-m", "tianshen.cli", "admin", "status", "--db", g.store.url],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    rows = [ln for ln in done.stdout.splitlines() if ln.startswith("│")]
    assert rows and all(ln.endswith("│") for ln in rows), done.stdout  # not cut
    vote = next(ln for ln in rows if "壬" in ln and "accepted" in ln)
    assert "投票 丁，他昨天晚上说的话前后矛盾" in vote and "壬 投票给 丁" in vote, vote  # each cell on its row
    assert any(ln.startswith("  GM ") and ln.endswith(reason) for ln in done.stdout.splitlines()), done.stdout
    missing = subprocess.run([sys.executable, "-m", "tianshen.cli", "admin", "status", "--game", "nope" * 30,
                              "--db", g.store.url], capture_output=True, text=True, timeout=60, env=env)
    assert len(missing.stdout.strip().splitlines()) == 1, missing.stdout  # one sentence, one line
