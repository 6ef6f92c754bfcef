"""`tianshen admin` overrides on a stored game: committed with the reason, sent later by the
process that holds the forum connection."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from board_game import GM, KILL_庚, board_game
from tianshen.cli import app
from tianshen.core.model import GameState, InputEnvelope
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VirtualClock
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
ROLES = {"甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
         "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner"}


def make_game(tmp_path: Path) -> tuple[str, MemoryBoard, VirtualClock]:
    g = board_game(tmp_path, seed=3, start=START)
    g.board.pm("甲", GM, KILL_庚)
    g.run_to(1)
    g.store.close()
    return g.store.url, g.board, g.clock


def run(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_preview_then_advance_then_the_daemon_sends_it(tmp_path: Path) -> None:
    url, board, clock = make_game(tmp_path)
    at = (START + timedelta(hours=5)).isoformat()
    preview = run("admin", "preview", "--db", url)
    assert preview.exit_code == 0, preview.output
    assert "nothing committed" in preview.output and "庚" in preview.output and "prayer threshold" in preview.output
    done = run("admin", "advance", "--reason", "大家都行动完了", "--db", url, "--at", at)
    assert done.exit_code == 0, done.output
    assert "第1夜结束" in done.output
    store = Store(url)
    game = store.game_id("g")
    assert store.load_game(game).phase_label == "day 1"
    assert store.pending_outbox(game)  # not sent: the admin CLI has no forum connection
    gm_events = [InputEnvelope.model_validate_json(f'{{"input": {e.payload_json}}}').input
                 for e in store.events(game) if e.kind == "gm"]
    assert [(e.command, e.reason) for e in gm_events] == [("advance", "大家都行动完了")]
    forum = board.gm()
    forum.login()
    GameDriver(store, forum, game).advance(clock.now())  # the daemon's next tick
    assert not store.pending_outbox(game)
    assert any("第1夜结束" in p.text for t, _ in board.threads() for p in board.thread_posts(t))
    status = run("admin", "status", "--db", url)
    assert "GM" in status.output and "advance" in status.output and "大家都行动完了" in status.output
    store.close()


def test_refused_overrides_exit_2_with_the_reason(tmp_path: Path) -> None:
    url, _, _ = make_game(tmp_path)
    bad = run("admin", "modkill", "黑熊", "--reason", "x", "--db", url)
    assert bad.exit_code == 2 and "没有叫" in bad.output
    bad_at = run("admin", "pause", "--reason", "x", "--db", url, "--at", "tonight")
    assert bad_at.exit_code == 2 and "accepted" in bad_at.output and "+08:00" in bad_at.output
    missing = run("admin", "advance", "--reason", "x", "--db", url, "--game", "nope")
    assert missing.exit_code == 2 and "no game named" in missing.output


def test_an_at_without_offset_is_read_in_the_games_zone(tmp_path: Path) -> None:
    """Issue 23 item 1: `--at 2026-01-02T06:00` is 06:00 in the game's display zone (Beijing:
    22:00 UTC), no longer an error."""
    url, _, _ = make_game(tmp_path)
    naive = run("admin", "pause", "--reason", "x", "--db", url, "--at", "2026-01-02T06:00")
    assert naive.exit_code == 0, naive.output
    store = Store(url)
    state = GameState.model_validate_json(store.load_game(store.game_id("g")).state_json)
    assert datetime.fromisoformat(state.data["paused_at"]) == datetime(2026, 1, 1, 22, tzinfo=UTC)
    store.close()


def test_every_override_command_is_there() -> None:
    result = run("admin", "--help")
    for command in ("status", "preview", "advance", "extend", "pause", "resume", "void-action", "enter-action",
                    "void-vote", "enter-vote", "reject-declaration", "modkill", "leave", "end-game"):
        assert command in result.output


def test_export_gives_the_whole_log_as_json_and_as_a_report(tmp_path: Path) -> None:
    import json

    url, _, _ = make_game(tmp_path)
    run("admin", "extend", "--hours", "2", "--reason", "论坛维护", "--db", url,
        "--at", (START + timedelta(hours=2)).isoformat())
    out_json, out_report = tmp_path / "g.json", tmp_path / "g.md"
    result = run("admin", "export", "--db", url, "--json", str(out_json), "--report", str(out_report))
    assert result.exit_code == 0, result.output
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert [e["kind"] for e in data["events"]][:2] == ["setup", "pm"]
    assert data["events"][-1]["input"]["reason"] == "论坛维护"
    assert data["gm_log"][0]["command"] == "extend"
    assert {p["name"]: p["role"] for p in data["players"]}["甲"] == "killer"
    assert all(o["event"] for o in data["outbox"])  # every message is tied to the input that caused it
    text = out_report.read_text(encoding="utf-8")
    assert "GM extend" in text and "论坛维护" in text and "PM from 甲" in text and "《游戏者名单》" in text


def test_status_public_view_shows_no_secret(tmp_path: Path) -> None:
    url, _, _ = make_game(tmp_path)
    run("admin", "advance", "--reason", "测试", "--db", url, "--at", (START + timedelta(hours=2)).isoformat())
    secret = run("admin", "status", "--db", url)
    public = run("admin", "status", "--public", "--db", url)
    assert public.exit_code == 0, public.output
    assert "killer" in secret.output or "杀手" in secret.output
    assert "杀手" not in public.output and "killer" not in public.output and "束魂" not in public.output
    assert "庚" in public.output and "平民" in public.output  # the dead show their side
    assert "PM" not in public.output and "GM" not in public.output


def _sign_up(url: str, name: str, start: datetime) -> None:
    """A second game on the same database, signed up, not dealt."""
    from tianshen.core.ruleset import GameSetup, Seat

    store = Store(url)
    GameDriver.register(store, name, "classic_10", GameSetup(seats=[Seat(name=n, forum_name=n) for n in ROLES],
                                                             seed=1, start=start, fixed_roles=ROLES))
    store.close()


def _one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    return lines[0]


def test_overrides_without_game_aim_at_the_running_game_not_the_next(tmp_path: Path) -> None:
    """Issue 32 item 3: with a second game signed up, extend, void-vote, substitute and preview
    without --game act on the running game; an override of the undealt one is one line."""
    g = board_game(tmp_path, seed=3, start=START, substitutes=["替补甲"])
    g.board.pm("甲", GM, KILL_庚)
    g.run_to(1)
    g.store.close()
    url = g.store.url
    _sign_up(url, "next", START + timedelta(days=3))
    at = (START + timedelta(hours=2)).isoformat()
    preview = run("admin", "preview", "--db", url)
    assert preview.exit_code == 0 and "nothing committed" in preview.output, preview.output
    for args in (["extend", "--hours", "2"], ["substitute", "--players", "辛"]):
        done = run("admin", *args, "--reason", "x", "--db", url, "--at", at)
        assert done.exit_code == 0 and "done — night 1" in done.output, (args, done.output)
    night = _one_line_error(run("admin", "void-vote", "甲", "--reason", "x", "--db", url, "--at", at))
    assert "甲在当前计票中没有票" in night  # judged by g's rules, in its night
    store = Store(url)
    gm_log = GameState.model_validate_json(store.load_game(store.game_id("g")).state_json).data["gm_log"]
    assert [e["command"] for e in gm_log] == ["extend", "substitute"]
    assert store.load_game(store.game_id("next")).status == "new"
    store.close()
    for args in (["extend", "--hours", "2", "--reason", "x"], ["void-vote", "甲", "--reason", "x"],
                 ["substitute", "--players", "辛", "--reason", "x"], ["preview"], ["export"]):
        line = _one_line_error(run("admin", *args, "--game", "next", "--db", url))
        assert "next" in line and "not dealt yet" in line and "admin start --game next" in line, line


def test_several_running_games_need_a_game_name(tmp_path: Path) -> None:
    g = board_game(tmp_path, seed=3, start=START)
    g.run_to(1)
    g.store.close()
    url = g.store.url
    _sign_up(url, "h", START)
    assert run("admin", "start", "--db", url, "--at", START.isoformat()).exit_code == 0  # deals h: the one undealt
    line = _one_line_error(run("admin", "extend", "--hours", "1", "--reason", "x", "--db", url))
    assert "2 games are running" in line and "g (" in line and "h (" in line and "--game" in line, line
    assert run("admin", "extend", "--hours", "1", "--reason", "x", "--db", url, "--game", "h",
               "--at", START.isoformat()).exit_code == 0


def test_a_gm_slip_is_one_line_never_a_traceback(tmp_path: Path) -> None:
    """Issue 32 item 3: a bad --sent-at, hours past any calendar, an export to a missing
    directory: one line each, exit 2."""
    url, _, _ = make_game(tmp_path)
    for args, words in (
        (["enter-vote", "甲", "乙", "--sent-at", "yesterday"], "--sent-at yesterday: accepted"),
        (["enter-action", "甲", "杀 乙", "--sent-at", "garbage"], "--sent-at garbage: accepted"),
        (["leave", "甲", "--hours", "1e9"], "at most"),
        (["extend", "--hours", "1e12"], "at most"),
    ):
        assert words in _one_line_error(run("admin", *args, "--reason", "x", "--db", url)), args
    line = _one_line_error(run("admin", "export", "--db", url, "--json", str(tmp_path / "no" / "g.json")))
    assert "cannot write" in line and "g.json" in line, line


def test_resume_at_a_time_before_the_pause_is_refused_in_one_line(tmp_path: Path) -> None:
    url, _, _ = make_game(tmp_path)
    paused_at = START + timedelta(hours=3)
    assert run("admin", "pause", "--reason", "x", "--db", url, "--at", paused_at.isoformat()).exit_code == 0
    early = run("admin", "resume", "--reason", "x", "--db", url, "--at", (paused_at - timedelta(hours=1)).isoformat())
    assert early.exit_code == 2, early.output
    assert len(early.output.strip().splitlines()) == 1 and "Traceback" not in early.output
    assert "before the pause" in early.output and "--at accepted" in early.output
    assert "2026-01-02T07:00:00+08:00" in early.output  # the pause, in the game's zone, as --at takes it
    store = Store(url)
    state = GameState.model_validate_json(store.load_game(store.game_id("g")).state_json)
    assert state.data["paused_at"] == paused_at.isoformat()  # still paused: nothing was folded
    store.close()
    later = run("admin", "resume", "--reason", "x", "--db", url, "--at", (paused_at + timedelta(hours=1)).isoformat())
    assert later.exit_code == 0, later.output
