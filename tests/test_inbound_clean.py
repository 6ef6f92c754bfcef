"""Issue 22 items 3-5: every text an adapter hands out (ForumPm, ForumPost) is cleaned at
one place (forum.base), as the intake validators clean it, so a stranger's PM with a NUL or
a lone surrogate cannot stop the board, and the vote-edit check compares cleaned with
cleaned (no phantom edits, no UnicodeEncodeError at the deadline)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from test_daemon import write_config
from tianshen.config import load_config
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.core.text import clean
from tianshen.forum.base import ForumPm, ForumPost
from tianshen.forum.memory import MemoryBoard
from tianshen.service.daemon import Daemon
from tianshen.service.driver import GameDriver
from tianshen.sim import DaemonPlayers
from tianshen.sim.rehearsal import VirtualClock
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
ROLES = {"甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
         "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner"}


def test_clean_is_idempotent() -> None:
    for text in ["a\r\x00\nb", "\ud83d\x00\ude00", "x\r\r\n\x85\ny", "\udfff\r\n"]:
        assert clean(clean(text)) == clean(text)


def test_forum_records_are_cleaned_where_adapters_hand_them_out() -> None:
    pm = ForumPm(1, "路人\x00", START, "主题\x01", "杀\x00 \ud800\r\n")
    assert (pm.sender, pm.subject, pm.text) == ("路人", "主题", "杀 \ufffd\n")
    post = ForumPost(2, "9", "甲\x00", START, "投票\r\n乙\ud800", True, 3, "投票\x00丙")
    assert (post.author, post.text, post.original_text) == ("甲", "投票\n乙\ufffd", "投票丙")


def test_a_strangers_dirty_pm_does_not_stop_the_board(db_url: str, tmp_path: Path) -> None:
    """Item 3, on SQLite and (TIANSHEN_TEST_DATABASE_URL) PostgreSQL."""
    config = load_config(write_config(tmp_path / "c.toml", db_url))
    daemon = Daemon(config, players=DaemonPlayers())
    daemon.tick()  # deals the game
    assert daemon.board is not None
    daemon.board.pm("路人甲", daemon.forum.account, "杀\x00 \ud800白狐")
    daemon.tick()
    daemon.tick()
    refusals = [m for m in daemon.board.inbox("路人甲") if m.sender == daemon.forum.account]
    assert len(refusals) == 1 and "不在本版正在进行的任何一局游戏中" in refusals[0].text
    board = daemon.store.board_game(daemon.board_key)
    [stored] = daemon.store.inbound(board)
    assert stored.text == "杀 \ufffd白狐"
    game = daemon.store.game_id("daemon-test")
    first = daemon.store.load_game(game)
    for _ in range(200):  # the game's deadlines still fire (under load it may have ended already)
        if first.status == "over" or daemon.store.load_game(game).step_seq > first.step_seq:
            break
        time.sleep(0.05)
        daemon.tick()
    assert first.status == "over" or daemon.store.load_game(game).step_seq > first.step_seq
    daemon.store.close()


def _to_the_vote(store: Store) -> tuple[MemoryBoard, GameDriver, VirtualClock, str]:
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=5, start=START, fixed_roles=ROLES)
    driver = GameDriver.create(store, forum, "edits", "classic_10", setup)
    for _ in range(72):
        clock.set(clock.now() + timedelta(hours=1))
        driver.advance(clock.now())
        thread = store.thread_id(driver.game_id, "vote:1")
        if thread is not None and driver.state().phase.kind == "day":
            return board, driver, clock, thread
    raise AssertionError("no vote thread")


def _run_day(driver: GameDriver, clock: VirtualClock) -> None:
    for _ in range(48):
        clock.set(clock.now() + timedelta(hours=1))
        driver.advance(clock.now())
        if driver.state().phase.kind != "day":
            return


def test_a_lone_surrogate_in_a_vote_post_does_not_freeze_the_game(store: Store) -> None:
    """Item 4: the edit check hashed the raw text (UnicodeEncodeError at every deadline)."""
    board, driver, clock, thread = _to_the_vote(store)
    board.post("庚", thread, "投票 甲\ud800")
    _run_day(driver, clock)
    assert driver.state().phase.kind != "day"


def test_a_post_with_crlf_or_controls_is_not_taken_for_edited(store: Store) -> None:
    """Item 5: the raw forum text was compared with the cleaned stored text."""
    board, driver, clock, thread = _to_the_vote(store)
    board.post("庚", thread, "投票 甲\r\n")
    board.post("辛", thread, "投票\x00 甲")
    board.post("壬", thread, "投票 甲\r\x00\n")
    _run_day(driver, clock)
    posts = [i for i in store.inbound(driver.game_id) if i.source == "post"]
    assert posts and not [i for i in posts if "~" in i.forum_id or i.edited]


def test_a_board_pm_that_cannot_be_stored_is_refused_once_without_its_text(tmp_path: Path, monkeypatch) -> None:
    """Item 3: per-input isolation; the poisoned PM is stored once (no text), answered once."""
    daemon = Daemon(load_config(write_config(tmp_path / "c.toml", f"sqlite:///{tmp_path / 'd.db'}")), players=DaemonPlayers())
    daemon.tick()
    assert daemon.board is not None
    real = daemon.store.commit_step

    def poisoned(game_id, **kw):  # type: ignore[no-untyped-def]
        if kw.get("inbound") is not None and "毒" in kw["inbound"].text:
            raise ValueError("cannot store this")
        return real(game_id, **kw)

    monkeypatch.setattr(daemon.store, "commit_step", poisoned)
    daemon.board.pm("路人乙", daemon.forum.account, "毒")
    daemon.tick()
    daemon.tick()
    refusals = [m for m in daemon.board.inbox("路人乙") if m.sender == daemon.forum.account]
    assert len(refusals) == 1 and "没有被接受" in refusals[0].text
    [stored] = daemon.store.inbound(daemon.store.board_game(daemon.board_key))
    assert stored.text == ""
    daemon.store.close()


def test_a_broken_game_stops_no_other_game_and_the_gm_is_told_once(tmp_path: Path) -> None:
    """Item 3, per game: Daemon._guard around each game's work."""
    import test_many_games

    path = test_many_games._config(tmp_path, f"sqlite:///{tmp_path / 'b.db'}")
    path.write_text(path.read_text(encoding="utf-8").replace("seed = 4\n", 'seed = 4\ngm_contact = "主持人"\n'),
                    encoding="utf-8")
    config = load_config(path)
    config.run.simulate = False
    daemon = Daemon(config, players=DaemonPlayers())
    daemon.tick()  # deals the games
    broken, *others = list(daemon.served.values())

    def boom(*_a: object, **_k: object) -> int:
        raise RuntimeError("坏了")

    broken.driver.advance = boom  # type: ignore[method-assign]
    seqs = {s.driver.game_id: daemon.store.load_game(s.driver.game_id).step_seq for s in others}
    for _ in range(200):
        time.sleep(0.05)
        daemon.tick()
        if all(daemon.store.load_game(g).step_seq > q for g, q in seqs.items()):
            break
    assert all(daemon.store.load_game(g).step_seq > q for g, q in seqs.items())
    told = [o for o in daemon.store.outbox(broken.driver.game_id) if o.target == "主持人" and "坏了" in o.body]
    assert len(told) == 1
    daemon.store.close()
