"""Issue 22 items 1 and 7: before a deadline is folded, everything the game wrote is on the
board and read (a vote posted before the deadline always counts), and a window whose opening
post or thread reached the board late is extended by the time it was missing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from classic_helpers import ROLES_10
from forgetful import ForgetfulForum
from migrated import migrated_sqlite
from tianshen.config import load_config
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard
from tianshen.service import crash
from tianshen.service.daemon import Daemon
from tianshen.service.driver import GameDriver
from tianshen.sim import DaemonPlayers
from tianshen.sim.rehearsal import VirtualClock
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
GM = "神的使者"
VOTE_OPEN = START + timedelta(hours=36)  # classic_10: night 24 h, day discussion 12 h
VOTE_END = START + timedelta(hours=60)


class Crash(BaseException):
    """The process dies here."""


class Game:
    def __init__(self, tmp_path: Path) -> None:
        self.clock = VirtualClock(START)
        self.board = MemoryBoard(self.clock.now)
        self.url = migrated_sqlite(tmp_path / 'w.db')
        self.store = Store(self.url)
        self.store.upgrade()
        setup = GameSetup(seats=[Seat(name=n) for n in ROLES_10], seed=5, start=START, fixed_roles=ROLES_10,
                          salt="ab" * 16)
        self.driver = GameDriver.create(self.store, self._forum(), "w", "classic_10", setup)
        self.game_id = self.driver.game_id

    def _forum(self) -> ForgetfulForum:
        forum = ForgetfulForum(self.board)
        forum.login()
        return forum

    def restart(self) -> GameDriver:
        self.store.close()
        self.store = Store(self.url)
        self.driver = GameDriver(self.store, self._forum(), self.game_id)
        return self.driver

    def run_to(self, at: datetime) -> None:
        self.clock.set(at)
        self.driver.advance(at)

    def vote_thread_on_board(self) -> str:
        [thread] = [t for t, title in self.board.threads() if "投票" in title]
        return thread

    def main_texts(self) -> list[str]:
        main = self.store.thread_id(self.game_id, "main")
        assert main is not None
        return [p.text for p in self.board.thread_posts(main)]


def _crash_after_the_thread_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    def point(name: str) -> None:
        if name == "after-write" and not monkeypatch_state["done"]:
            monkeypatch_state["done"] = True
            raise Crash(name)

    monkeypatch_state = {"done": False}
    monkeypatch.setattr(crash, "point", point)


def _everyone_votes(game: Game, thread: str, at: datetime) -> None:
    game.clock.set(at)
    living = [p.name for p in game.driver.state().players if p.alive]
    for name in living:
        game.board.post(name, thread, "投票 乙" if name != "乙" else "投票 甲")


def test_votes_in_a_thread_written_just_before_a_crash_count_after_a_restart_past_the_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game(tmp_path)
    game.run_to(START + timedelta(hours=24))  # dawn: nobody was killed
    _crash_after_the_thread_is_written(monkeypatch)
    with pytest.raises(Crash):
        game.run_to(VOTE_OPEN)  # the vote thread is on the board, not yet in the store
    assert game.store.thread_id(game.game_id, "vote:1") is None
    monkeypatch.setattr(crash, "point", lambda name: None)
    _everyone_votes(game, game.vote_thread_on_board(), VOTE_OPEN + timedelta(hours=2))

    game.restart()
    game.run_to(VOTE_END + timedelta(minutes=5))  # the restart comes after the vote's end
    state = game.driver.state()
    assert state.phase.label == "night 2"
    assert state.player("乙").death_cause == "executed"
    assert [p.name for p in state.players if p.death_cause == "no_vote"] == []
    votes = [i for i in game.store.inbound(game.game_id) if i.source == "post"]
    assert len(votes) == 10 and all(v.sent_at < VOTE_END for v in votes)
    assert len([t for t, title in game.board.threads() if "投票" in title]) == 1  # not written twice
    assert "gm_log" not in state.data  # the thread was there in time: nothing to extend


def test_a_driver_down_across_the_whole_vote_extends_it_by_the_time_missing(tmp_path: Path) -> None:
    game = Game(tmp_path)
    game.run_to(START + timedelta(hours=24))
    back = VOTE_END + timedelta(hours=3)
    game.restart()
    game.run_to(back)  # down from before the vote opened until after it would have ended
    state = game.driver.state()
    assert (state.phase.label, state.phase.step) == ("day 1", "vote")  # nobody removed, the vote open
    assert all(p.alive for p in state.players)
    missing = back - VOTE_OPEN
    assert game.driver.ruleset.next_deadline(state).at == VOTE_END + missing  # the whole window, again
    [entry] = state.data["gm_log"]
    assert entry["command"] == "extend" and entry["args"]["hours"] == pytest.approx(missing / timedelta(hours=1))
    notice = game.main_texts()[-1]
    assert "延长" in notice and "27小时" in notice and "论坛" in notice
    assert not any(ch.isascii() and ch.isalpha() for ch in notice.split("，至")[0].replace("day", ""))

    _everyone_votes(game, game.vote_thread_on_board(), back + timedelta(hours=1))
    game.run_to(VOTE_END + missing)
    state = game.driver.state()
    assert state.phase.label == "night 2" and state.player("乙").death_cause == "executed"
    assert [p.name for p in state.players if p.death_cause == "no_vote"] == []


def test_a_deal_that_reached_the_board_an_hour_late_extends_night_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def point(name: str) -> None:
        if name == "before-write":
            raise Crash(name)

    monkeypatch.setattr(crash, "point", point)
    with pytest.raises(Crash):
        Game(tmp_path)  # dealt at START; the daemon dies before the first role PM is written
    monkeypatch.setattr(crash, "point", lambda name: None)
    game = Game.__new__(Game)
    game.clock, game.url = VirtualClock(START + timedelta(hours=1)), f"sqlite:///{tmp_path / 'w.db'}"
    game.board = MemoryBoard(game.clock.now)
    game.store = Store(game.url)
    game.game_id = game.store.game_id("w")
    game.restart()
    game.run_to(START + timedelta(hours=1))
    state = game.driver.state()
    assert state.phase.label == "night 1" and len(game.main_texts()) == 2  # the list, then the notice
    assert game.driver.ruleset.next_deadline(state).at == START + timedelta(hours=25)
    [entry] = state.data["gm_log"]
    assert entry["command"] == "extend" and entry["args"]["hours"] == pytest.approx(1)


def test_a_window_a_few_minutes_late_is_not_extended(tmp_path: Path) -> None:
    game = Game(tmp_path)
    game.run_to(START + timedelta(hours=24))
    game.run_to(VOTE_OPEN + timedelta(minutes=5))  # within the grace (10 minutes)
    state = game.driver.state()
    assert "gm_log" not in state.data and game.driver.ruleset.next_deadline(state).at == VOTE_END


def test_the_policy_none_keeps_the_old_clock(tmp_path: Path) -> None:
    game = Game(tmp_path)
    game.run_to(START + timedelta(hours=24))
    game.driver.late_window_policy = "none"
    game.run_to(VOTE_OPEN + timedelta(hours=3))
    state = game.driver.state()
    assert "gm_log" not in state.data and game.driver.ruleset.next_deadline(state).at == VOTE_END


# ---- the same through the daemon, a new Daemon as the restart -----------------------------


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def real_at(self, game_time: datetime) -> datetime:
        return datetime.now(UTC) + (game_time - self.at)


def _daemon_config(tmp_path: Path, policy: str = "extend") -> Path:
    seats = "\n".join(f'[[game.players]]\nname = "{n}"' for n in ROLES_10)
    path = tmp_path / "c.toml"
    path.write_text(f"""
[database]
url = "sqlite:///{(tmp_path / 'd.db').as_posix()}"
[forum]
kind = "memory"
[game]
name = "dw"
ruleset = "classic_10"
seed = 5
start = "{START.isoformat()}"
{seats}
[run]
late_window = "{policy}"
""", encoding="utf-8")
    return path


def _daemon(path: Path, board: MemoryBoard, clock: Clock) -> Daemon:
    forum = ForgetfulForum(board)
    return Daemon(load_config(path), forum=forum, clock=clock, players=DaemonPlayers())


def _daemon_at(path: Path, board: MemoryBoard, clock: Clock, at: datetime) -> Daemon:
    clock.at = at
    daemon = _daemon(path, board, clock)
    daemon.tick()
    return daemon


def test_through_the_daemon_a_crash_after_the_vote_thread_and_a_restart_past_its_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    path = _daemon_config(tmp_path)
    first = _daemon_at(path, board, clock, START)
    clock.at = START + timedelta(hours=24)
    first.tick()
    _crash_after_the_thread_is_written(monkeypatch)
    clock.at = VOTE_OPEN
    with pytest.raises(Crash):
        first.tick()
    first.store.close()
    monkeypatch.setattr(crash, "point", lambda name: None)
    [thread] = [t for t, title in board.threads() if "投票" in title]
    clock.at = VOTE_OPEN + timedelta(hours=1)
    names = list(ROLES_10)
    for name in names:
        board.post(name, thread, "投票 乙" if name != "乙" else "投票 甲")

    again = _daemon_at(path, board, clock, VOTE_END + timedelta(minutes=5))
    driver = again.driver("dw")
    state = driver.state()
    assert state.phase.label == "night 2" and state.player("乙").death_cause == "executed"
    assert [p.name for p in state.players if p.death_cause == "no_vote"] == []
    again.store.close()


def test_through_the_daemon_a_downtime_across_the_vote_extends_it(tmp_path: Path) -> None:
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    path = _daemon_config(tmp_path)
    first = _daemon_at(path, board, clock, START)
    clock.at = START + timedelta(hours=24)
    first.tick()
    first.store.close()  # down from hour 24 to hour 63

    back = VOTE_END + timedelta(hours=3)
    again = _daemon_at(path, board, clock, back)
    driver = again.driver("dw")
    state = driver.state()
    assert (state.phase.label, state.phase.step) == ("day 1", "vote")
    assert all(p.alive for p in state.players)
    assert driver.ruleset.next_deadline(state).at == VOTE_END + (back - VOTE_OPEN)
    assert [e["command"] for e in state.data["gm_log"]] == ["extend"]
    assert len([t for t, title in board.threads() if "投票" in title]) == 1
    again.store.close()


def test_an_extension_moves_an_open_check_in_too() -> None:
    """001 §3.2: the 24 h to reply to the player list are the players'; an extension of night
    1 (a deal that reached the board late) moves the check-in's end with the night's."""
    from tianshen.core.model import GmIn
    from tianshen.rules import load_ruleset
    from tianshen.sim.rehearsal import default_seats

    ruleset = load_ruleset("game_ten")
    state = ruleset.setup(GameSetup(seats=default_seats(14), seed=1, start=START, salt="ab" * 16)).state
    before = ruleset.next_deadline(state)
    assert before is not None and before.kind == "checkin_end"
    out = ruleset.apply(state, GmIn(id="gm:1", at=START, command="extend", args={"hours": 5}, reason="迟到"))
    after = ruleset.next_deadline(out.state)
    assert after is not None and after.at == before.at + timedelta(hours=5)


# ---- issue 31 items 3, 4, 5 and 7: what the extension notice says, and where ---------------


def test_a_vote_thread_88_s_late_is_extended_by_the_time_lost_and_told_in_the_vote_thread(tmp_path: Path) -> None:
    game = Game(tmp_path)
    game.driver.late_window_grace = timedelta(seconds=30)
    game.run_to(START + timedelta(hours=24))
    game.run_to(VOTE_OPEN + timedelta(seconds=88))  # the vote thread reaches the board 88 s late
    state = game.driver.state()
    # at least the 88 s lost, up to the next whole minute of the clock (not 0.02 h = 72 s)
    assert game.driver.ruleset.next_deadline(state).at == VOTE_END + timedelta(minutes=2)
    notice = game.main_texts()[-1]
    assert "延长2分钟，至 1月4日 16:02（北京时间）" in notice and "迟了约1分半钟" in notice
    assert "小时" not in notice
    vote_thread = game.store.thread_id(game.game_id, "vote:1")
    assert vote_thread is not None
    posts = [p.text for p in game.board.thread_posts(vote_thread)]
    first, last = posts[0], posts[-1]
    assert "16:00" in first  # the opening post as it was written
    assert "1月4日 16:02（北京时间）" in last and "顺延" in last  # the deadline that counts, in the same thread


def test_a_late_dawn_post_names_the_end_of_the_day_not_the_vote_threads_opening(tmp_path: Path) -> None:
    game = Game(tmp_path)
    game.run_to(START + timedelta(hours=24, minutes=20))  # the dawn post reaches the board 20 minutes late
    state = game.driver.state()
    assert (state.phase.kind, state.phase.step) == ("day", "discussion")
    notice = game.main_texts()[-1]
    assert "延长20分钟，至 1月4日 16:20（北京时间）" in notice  # the day's end (the vote's), not the vote thread's 1月3日 16:20
    vote_thread = game.store.thread_id(game.game_id, "vote:1")
    assert vote_thread is None  # no vote thread yet: it will be written with the new deadline


@pytest.mark.parametrize("variant", ["classic_10", "game_ten", "n_lives", "hex_survival_12", "butterfly_elder"])
def test_an_extension_during_a_vote_is_told_in_the_vote_thread(variant: str) -> None:
    """Issue 31 item 3: the vote thread's first post gave the old deadline; whatever moves it
    (a GM extend, a leave, a 交替期) gives the new one in the same thread."""
    from tianshen.core import clock
    from tianshen.core.model import GmIn
    from tianshen.rules import load_ruleset
    from tianshen.sim.rehearsal import default_seats

    ruleset = load_ruleset(variant)
    state = ruleset.setup(GameSetup(seats=default_seats(ruleset.spec.players), seed=1, start=START,
                                    salt="ab" * 16, substitutes=["替补甲"])).state
    at = START
    for i in range(8):  # the GM moves the game on until a vote thread is open
        if ruleset.open_vote(state) is not None:
            break
        at += timedelta(minutes=1)
        state = ruleset.apply(state, GmIn(id=f"gm:{i}", at=at, command="advance", args={}, reason="测试")).state
    vote = ruleset.open_vote(state)
    assert vote is not None and state.phase.kind == "day"
    thread, ends = vote
    out = ruleset.apply(state, GmIn(id="gm:x", at=at, command="extend", args={"hours": 2}, reason="论坛维护"))
    told = [p.body for p in out.posts if p.thread == thread]
    assert len(told) == 1 and clock.show(ends + timedelta(hours=2), state.zone) in told[0] and "论坛维护" in told[0]
    assert ruleset.open_vote(out.state) == (thread, ends + timedelta(hours=2))
    if variant == "classic_10":
        living = next(p.name for p in state.players if p.alive)
        out = ruleset.apply(state, GmIn(id="gm:y", at=at, command="substitute", args={"players": living},
                                        reason="潜水"))
        told = [p.body for p in out.posts if p.thread == thread]
        hours = ruleset.spec.timing.substitution_hours
        assert len(told) == 1 and clock.show(ends + timedelta(hours=hours), state.zone) in told[0]
