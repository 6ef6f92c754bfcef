"""Issue 5: the daemon restarted in the middle of a night resumes on schedule — deadlines
missed while it was down are handled at once, in order — with no message lost or repeated;
and `tianshen run` stops cleanly on SIGTERM."""

from __future__ import annotations

import signal
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from board_game import GM, KILL_庚, board_game
from processes import Child
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard, StoredPm, StoredPost
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VirtualClock
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
ROLES = {"甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
         "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner"}


def test_a_restart_mid_night_resumes_without_losing_or_repeating(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    store = Store(url)
    store.upgrade()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=5, start=START, fixed_roles=ROLES)
    driver = GameDriver.create(store, forum, "r", "classic_10", setup)
    board.pm("甲", "神的使者", "杀 庚\n" + "夜色深沉杀手悄然潜入" * 12)
    clock.set(START + timedelta(hours=2))
    driver.advance(clock.now())
    store.close()  # the process stops at hour 2 of the night

    board.pm("丁", "神的使者", "束魂 丙")  # sent while the bot was down
    clock.set(START + timedelta(hours=24 + 13))  # it comes back after the night and the vote opening
    store = Store(url)
    forum = board.gm()
    forum.login()
    driver = GameDriver(store, forum, store.game_id("r"))
    driver.advance(clock.now())
    state = driver.state()
    # The night ends as it should; the dawn post reached the board 13 hours late, so the day
    # is extended by that (issue 22 item 7): the vote opens 13 hours later than planned.
    assert state.phase.label == "day 1" and state.phase.step == "discussion"
    assert [e["command"] for e in state.data["gm_log"]] == ["extend"]
    assert driver.ruleset.next_deadline(state).at == START + timedelta(hours=36 + 13)
    assert not state.player("庚").alive
    assert state.data["day"]["cannot_vote"] == []  # 丁's late-read PM counted (bound 丙, not attacked)
    gm_items = [x for x in board.activity() if (x.author if isinstance(x, StoredPost) else x.sender) == "神的使者"]
    texts = Counter((getattr(x, "recipient", ""), x.text) for x in gm_items)
    assert all(n == 1 for n in texts.values())  # nothing repeated
    assert sum(1 for x in gm_items if isinstance(x, StoredPm) and x.recipient == "丁") == 2  # role + receipt
    assert not store.pending_outbox(driver.game_id)  # nothing lost
    store.close()


def test_run_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f"""
[database]
url = "sqlite:///{(tmp_path / 'd.db').as_posix()}"
[forum]
kind = "memory"
[game]
name = "sig"
ruleset = "classic_10"
seed = 1
start = "2026-01-01T20:00:00Z"
[run]
simulate = true
time_scale = 1.0
poll_seconds = 0.2
""", encoding="utf-8")
    child = Child("run", "--config", str(config), "--verbose")
    try:  # its handler is set before the deal: SIGTERM once the game is started, not after a guessed time
        assert child.wait_for_line("game=sig started"), child.output
        child.proc.send_signal(signal.SIGTERM)
        code = child.finish()
    finally:
        if child.proc.poll() is None:
            child.proc.kill()
    output = child.output
    assert code == 0, output
    assert "signal SIGTERM: stopping" in output and "game=sig stopped phase=night 1" in output
    store = Store(f"sqlite:///{(tmp_path / 'd.db').as_posix()}")
    assert store.load_game(store.game_id("sig")).phase_label == "night 1"
    store.close()


def test_the_human_gm_is_told_by_pm(tmp_path: Path) -> None:
    """Issue 5: what the GM should know (诈尸, a removal for not voting) reaches his own forum
    account by PM, through the outbox like every message."""
    g = board_game(tmp_path, gm_contact="真天神")
    g.board.pm("甲", GM, KILL_庚)
    g.run_to(24)  # dawn
    g.run_to(24 + 12)  # the vote thread opens (each on time: a late one would extend the day)
    vote = g.thread("vote:1")
    g.board.post("庚", vote, "投票 甲")  # the dead man posts in the vote thread: 诈尸
    for name in ROLES:
        if name not in ("庚", "癸"):
            g.board.post(name, vote, "投票 乙")
    g.run_to(24 + 36)
    notes = [pm.text for pm in g.board.inbox("真天神")]
    assert any("庚" in n and "已死亡" in n for n in notes)
    assert any("癸" in n and "没有投票" in n for n in notes)
    g.store.close()
