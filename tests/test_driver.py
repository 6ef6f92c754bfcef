"""The phase driver on the memory board: dedup, commit-then-send, outages, post times,
whole rehearsals and re-folding the event log."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tianshen.core.fold import fold, steps
from tianshen.core.model import GameState, PmIn
from tianshen.core.ruleset import GameSetup, Ruleset, Seat
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.rules import load_ruleset
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VirtualClock, rehearse
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
GM = "神的使者"
ROLES = {
    "甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
    "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner",
}
DECL = "夜色深沉杀手悄然潜入目标的房间" * 10  # 150 characters: a valid 杀人宣言


class Crash(Exception):
    """The process dies here."""


class RecordingForum(MemoryForum):
    """The GM adapter, remembering the key of every write that went through."""

    def __init__(self, board: MemoryBoard) -> None:
        super().__init__(board)
        self.sent: list[str] = []

    def create_thread(self, title: str, body: str, key: str) -> str:
        thread_id = super().create_thread(title, body, key)
        self.sent.append(key)
        return thread_id

    def reply(self, thread_id: str, body: str, key: str) -> int:
        post_id = super().reply(thread_id, body, key)
        self.sent.append(key)
        return post_id

    def send_pm(self, to: str, subject: str, body: str, key: str) -> None:
        super().send_pm(to, subject, body, key)
        self.sent.append(key)


@dataclass
class Env:
    clock: VirtualClock
    board: MemoryBoard
    forum: RecordingForum
    store: Store
    driver: GameDriver

    @property
    def game_id(self) -> int:
        return self.driver.game_id

    def at(self, hours: float) -> datetime:
        """`hours` into the current phase."""
        started = self.driver.state().phase.started_at
        assert started is not None
        return started + timedelta(hours=hours)

    def goto(self, t: datetime) -> None:
        self.clock.set(t)
        assert self.clock.now() == t

    def restart(self) -> GameDriver:
        """A new process: a new Store on the same database, a new logged-in adapter."""
        store = Store(self.store.url)
        forum = RecordingForum(self.board)
        forum.login()
        self.store, self.forum = store, forum
        self.driver = GameDriver(store, forum, self.game_id)
        return self.driver

    def thread(self, key: str) -> str:
        thread_id = self.store.thread_id(self.game_id, key)
        assert thread_id is not None, key
        return thread_id

    def gm_posts(self, key: str = "main") -> list[str]:
        return [p.text for p in self.board.thread_posts(self.thread(key)) if p.author == GM]

    def due(self) -> datetime:
        dl = self.driver.ruleset.next_deadline(self.driver.state())
        assert dl is not None
        return dl.at


def gm_pms(board: MemoryBoard, to: str) -> list[str]:
    return [pm.text for pm in board.inbox(to) if pm.sender == GM]


def all_gm_pms(board: MemoryBoard) -> int:
    return sum(1 for item in board.activity() if getattr(item, "sender", None) == GM)


@pytest.fixture
def env(db_url: str):
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now)
    forum = RecordingForum(board)
    forum.login()
    store = Store(db_url)
    store.upgrade()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=7, start=START, fixed_roles=ROLES)
    driver = GameDriver.create(store, forum, "g1", "classic_10", setup)
    e = Env(clock, board, forum, store, driver)
    yield e
    e.store.close()
    store.close()


def to_day_vote(env: Env) -> None:
    """Night 1 without actions, dawn, and the vote thread opens (day 1, step vote)."""
    env.goto(env.due())
    env.driver.advance(env.clock.now())
    state = env.driver.state()
    assert (state.phase.label, state.phase.step) == ("day 1", "discussion")
    env.goto(env.due())
    env.driver.advance(env.clock.now())
    state = env.driver.state()
    assert (state.phase.label, state.phase.step) == ("day 1", "vote")


# ---- dedup -----------------------------------------------------------------------------


def test_pm_delivered_twice_is_stored_and_answered_once(env: Env) -> None:
    assert len(gm_pms(env.board, "丙")) == 1  # the role PM
    env.goto(env.at(1))
    env.board.pm("丙", GM, "占卜 甲")
    assert env.driver.advance(env.clock.now()) == 1
    assert len(env.store.inbound(env.game_id)) == 1
    answers = gm_pms(env.board, "丙")
    assert len(answers) == 2 and "占卜 甲" in answers[1]

    # the high-water mark is lost: the adapter returns the same PM again
    env.store.set_mark(env.game_id, "pm", "0")
    env.goto(env.at(2))
    assert env.driver.advance(env.clock.now()) == 0
    # and the same input handed over directly
    pm = env.board.inbox(GM)[0]
    assert env.driver.handle(PmIn(id=str(pm.id), sender="丙", at=pm.sent_at, text=pm.text)) is False
    # a new process that lost every mark
    env.restart()
    env.store.set_mark(env.game_id, "pm", "0")
    assert env.driver.advance(env.clock.now()) == 0

    assert len(env.store.inbound(env.game_id)) == 1
    assert [e.kind for e in env.store.events(env.game_id)] == ["setup", "pm"]
    assert gm_pms(env.board, "丙") == answers
    assert env.store.pending_outbox(env.game_id) == []


# ---- crashes ---------------------------------------------------------------------------


def _crash() -> None:
    raise Crash


def test_crash_between_commit_and_send(env: Env) -> None:
    env.goto(env.at(1))
    env.board.pm("甲", GM, f"杀 庚\n{DECL}")
    env.driver.after_commit = _crash
    with pytest.raises(Crash):
        env.driver.advance(env.clock.now())
    pending = env.store.pending_outbox(env.game_id)
    assert [(o.kind, o.target) for o in pending] == [("pm", "乙"), ("pm", "甲")]  # partner, receipt
    assert len(gm_pms(env.board, "甲")) == 1 and len(gm_pms(env.board, "乙")) == 1  # role PMs only

    driver = env.restart()
    assert driver.flush() == 2
    assert env.store.pending_outbox(env.game_id) == []
    assert len(gm_pms(env.board, "甲")) == 2 and "杀 庚" in gm_pms(env.board, "甲")[1]
    assert len(gm_pms(env.board, "乙")) == 2 and "甲" in gm_pms(env.board, "乙")[1]

    # the dawn: crash right after the deadline step is committed
    driver.after_commit = _crash
    env.goto(env.due())
    with pytest.raises(Crash):
        driver.advance(env.clock.now())
    assert len(env.gm_posts()) == 1  # the player list only
    [dawn] = env.store.pending_outbox(env.game_id)
    assert dawn.kind == "post" and "庚" in dawn.body

    driver = env.restart()
    driver.advance(env.clock.now())
    driver.flush()
    posts = env.gm_posts()
    assert len(posts) == 2 and "第1夜结束" in posts[1] and "庚" in posts[1]
    assert env.store.pending_outbox(env.game_id) == []
    outbox = env.store.outbox(env.game_id)
    assert all_gm_pms(env.board) == sum(1 for o in outbox if o.kind == "pm")
    assert [e.kind for e in env.store.events(env.game_id)] == ["setup", "pm", "deadline"]
    assert not env.driver.state().player("庚").alive


def test_crash_between_reading_and_committing_loses_no_input(env: Env) -> None:
    """The forum was read (and the marks moved on) but the step never committed."""
    env.goto(env.at(1))
    env.board.pm("丙", GM, "占卜 甲")
    real_commit = env.store.commit_step

    def dying_commit(*args, **kwargs):
        raise Crash

    env.store.commit_step = dying_commit  # type: ignore[method-assign]
    with pytest.raises(Crash):
        env.driver.advance(env.clock.now())
    env.store.commit_step = real_commit  # type: ignore[method-assign]
    assert env.store.inbound(env.game_id) == []

    driver = env.restart()
    assert driver.advance(env.clock.now()) == 1
    assert [i.text for i in env.store.inbound(env.game_id)] == ["占卜 甲"]
    assert len(gm_pms(env.board, "丙")) == 2


# ---- forum failures ----------------------------------------------------------------------


@pytest.mark.parametrize("operation", ["reply", "send_pm", "create_thread"])
def test_failure_after_the_write_does_not_post_twice(env: Env, operation: str) -> None:
    """The forum took the write but the answer was lost: the retry (same key) posts nothing new."""
    if operation == "create_thread":
        env.goto(env.due())
        env.driver.advance(env.clock.now())  # dawn: next comes the vote thread
    threads, main_posts, pms = len(env.board.threads()), len(env.gm_posts()), all_gm_pms(env.board)

    env.board.fail_next(1, operation, after_write=True)
    if operation == "send_pm":
        env.goto(env.at(1))
        env.board.pm("丙", GM, "占卜 甲")  # answered with a receipt
    else:
        env.goto(env.due())  # the dawn post (reply) or the vote thread (create_thread)
    env.driver.advance(env.clock.now())
    [lost] = env.store.pending_outbox(env.game_id)
    assert lost.kind == ("pm" if operation == "send_pm" else "post")
    assert env.driver.flush() == 1
    assert env.store.pending_outbox(env.game_id) == []
    assert env.driver.flush() == 0

    if operation == "send_pm":
        assert all_gm_pms(env.board) == pms + 1
        assert "占卜 甲" in gm_pms(env.board, "丙")[-1]
    else:
        assert all_gm_pms(env.board) == pms
    if operation == "reply":
        assert len(env.gm_posts()) == main_posts + 1
        assert "第1夜结束" in env.gm_posts()[-1]
    else:
        assert len(env.gm_posts()) == main_posts
    if operation == "create_thread":
        assert len(env.board.threads()) == threads + 1
        assert len(env.gm_posts("vote:1")) == 1
        assert lost.forum_ref is None
        assert env.store.outbox(env.game_id)[-1].forum_ref == env.thread("vote:1")
    else:
        assert len(env.board.threads()) == threads


def test_outage_keeps_the_outbox_in_order(env: Env) -> None:
    for i, (who, text) in enumerate([("丙", "占卜 甲"), ("丁", "束魂 庚"), ("戊", "诅咒 乙")]):
        env.goto(env.at(1 + i))
        env.board.pm(who, GM, text)
    for op in ("send_pm", "reply", "create_thread"):
        env.board.fail_next(1000, op)  # every write fails; reading still works
    env.goto(env.due())
    steps = env.driver.advance(env.clock.now())
    assert steps == 4  # three PMs, then the dawn
    pending = env.store.pending_outbox(env.game_id)
    assert [(o.kind, o.target) for o in pending] == [("pm", "丙"), ("pm", "丁"), ("pm", "戊"), ("post", "main")]
    assert [o.seq for o in pending] == sorted(o.seq for o in pending)
    assert not set(env.forum.sent) & {o.key for o in pending}
    assert env.driver.flush() == 0
    assert len(env.store.pending_outbox(env.game_id)) == 4
    assert len(env.gm_posts()) == 1

    env.board._faults.clear()  # the forum is back
    sent_before = len(env.forum.sent)
    assert env.driver.flush() == 4
    assert env.forum.sent[sent_before:] == [o.key for o in pending]
    assert env.store.pending_outbox(env.game_id) == []
    assert len(env.gm_posts()) == 2
    assert [len(gm_pms(env.board, n)) for n in ("丙", "丁", "戊")] == [2, 2, 2]
    assert env.driver.flush() == 0


# ---- forum time ----------------------------------------------------------------------------


def test_votes_are_judged_by_post_time(env: Env) -> None:
    to_day_vote(env)
    vote_end = env.due()
    thread = env.thread("vote:1")
    env.goto(vote_end - timedelta(minutes=1))
    for voter in ROLES:
        if voter != "癸":
            env.board.post(voter, thread, "投票 甲" if voter == "乙" else "投票 乙")
    env.goto(vote_end + timedelta(minutes=5))  # within the grace: a later dusk would extend the night
    env.board.post("癸", thread, "投票 乙")  # late
    # nothing was read until now: the driver reads all ten posts after the deadline
    env.driver.advance(env.clock.now())

    state = env.driver.state()
    assert state.phase.label == "night 2"
    assert not state.player("乙").alive and state.player("乙").death_cause == "executed"
    assert not state.player("癸").alive and state.player("癸").death_cause == "no_vote"
    tally = env.gm_posts()[-1]
    assert "[td]乙[/td][td]8票[/td]" in tally and "癸" in tally
    assert "投票 乙" not in "".join(gm_pms(env.board, "庚"))  # the timely voters got no refusal
    refusal = gm_pms(env.board, "癸")[-1]
    assert "投票 乙" in refusal and "截止" in refusal
    votes = [i for i in env.store.inbound(env.game_id) if i.source == "post"]
    assert len(votes) == 10
    assert all(i.sent_at < vote_end for i in votes if i.sender != "癸")


def test_a_late_vote_read_after_the_deadline_fired_is_refused(env: Env) -> None:
    to_day_vote(env)
    vote_end = env.due()
    thread = env.thread("vote:1")
    env.goto(vote_end - timedelta(hours=1))
    for voter in ROLES:
        if voter not in ("癸", "乙"):
            env.board.post(voter, thread, "投票 乙")
    env.board.post("乙", thread, "投票 甲")
    env.driver.advance(env.clock.now())
    env.goto(vote_end)
    env.driver.advance(env.clock.now())  # the vote closes: 乙 executed, 癸 removed, night 2
    assert env.driver.state().phase.label == "night 2"
    env.goto(vote_end + timedelta(minutes=5))
    env.board.post("癸", thread, "投票 乙")
    env.goto(vote_end + timedelta(hours=1))
    env.driver.advance(env.clock.now())
    refusal = gm_pms(env.board, "癸")[-1]
    assert "投票 乙" in refusal and "截止" in refusal
    assert [i.sender for i in env.store.inbound(env.game_id) if i.source == "post"][-1] == "癸"


# ---- whole games ---------------------------------------------------------------------------

GM_PM_LINE = re.compile(rf"^── \[[^]]+\] 短消息 {GM} → ")
GM_POST_LINE = re.compile(rf"^── \[[^]]+\] 帖子《.*》 {GM}:$")


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13"])
def test_rehearsals_end_with_the_right_winner_and_no_duplicates(db_url: str, variant: str) -> None:
    ruleset = load_ruleset(variant)
    for seed in range(1, 6):
        result = rehearse(variant, seed, db_url)
        assert result.winner in ("civilians", "killers")
        assert result.state.phase.kind == "over"
        assert ruleset.check_victory(result.state) == result.winner

        store = Store(db_url)
        record = store.load_game(result.game_id)
        assert (record.status, record.winner) == ("over", result.winner)
        assert GameState.model_validate_json(record.state_json) == result.state
        outbox = store.outbox(result.game_id)
        assert store.pending_outbox(result.game_id) == []
        assert all(o.status == "sent" for o in outbox)
        keys = [o.key for o in outbox]
        assert len(keys) == len(set(keys))
        heads = [line.split("\n", 1)[0] for line in result.transcript]
        gm_pm_lines = [line for line in result.transcript if GM_PM_LINE.match(line)]
        assert len(gm_pm_lines) == sum(1 for o in outbox if o.kind == "pm")
        assert sum(1 for h in heads if GM_POST_LINE.match(h)) == sum(1 for o in outbox if o.kind == "post")
        dupes = [line for line, n in Counter(gm_pm_lines).items() if n > 1]
        assert dupes == []
        inbound = store.inbound(result.game_id)
        assert len({(i.source, i.forum_id) for i in inbound}) == len(inbound)
        store.close()


def test_a_rehearsal_builds_its_ruleset_once_and_its_players_read_its_spec(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: `create` hands the driver the ruleset its sign-up built and dealt with (not
    built again), and the simulated players read the game's spec from it (not loaded again)."""
    import tianshen.service.driver as driver_module
    import tianshen.sim.classic as classic_sims

    built: list[str] = []
    real = driver_module.game_ruleset

    def counted(ruleset: str, config: dict[str, object]) -> Ruleset:
        built.append(ruleset)
        return real(ruleset, config)

    def not_again(variant: str) -> None:
        raise AssertionError(f"the simulated players loaded {variant} again")

    monkeypatch.setattr(driver_module, "game_ruleset", counted)
    monkeypatch.setattr(classic_sims, "shared_spec", not_again)
    result = rehearse("classic_8", 1, f"sqlite:///{tmp_path / 'r.db'}")
    assert built == ["classic_8"] and result.winner in ("civilians", "killers")


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13"])
def test_event_log_refolds_to_the_stored_state(db_url: str, variant: str) -> None:
    result = rehearse(variant, 3, db_url)
    store = Store(db_url)
    record = store.load_game(result.game_id)
    events = store.events(result.game_id)
    store.close()
    assert events[0].kind == "setup"
    assert {e.kind for e in events[1:]} <= {"pm", "post", "deadline", "gm"}
    assert [e.seq for e in events] == list(range(1, len(events) + 1))

    ruleset = load_ruleset(record.ruleset)
    assert [s.input.type for s in steps(ruleset, events)] == [e.kind for e in events[1:]]
    state = fold(ruleset, events)
    assert state is not None
    assert json.loads(state.model_dump_json()) == json.loads(record.state_json)
    assert state.winner == result.winner


def test_long_posts_are_split_under_the_forums_cap_and_resumed_after_a_failure(env: Env) -> None:
    """A forum with a post cap (Spirit: 3,000 characters) gets a long announcement in parts;
    a failure half-way resends only the parts not yet sent."""
    env.forum.max_post_chars = 300
    env.board.pm("甲", GM, f"杀 庚\n{DECL * 3}")  # a 450-character declaration, published at dawn
    env.goto(env.due())
    env.board.fail_next(1, "reply")  # the first part of the dawn post fails
    env.driver.advance(env.clock.now())
    assert env.store.pending_outbox(env.game_id)  # kept for the retry
    env.driver.flush()
    posts = env.gm_posts()[1:]  # after the player list
    assert len(posts) >= 2 and all(len(p) <= 300 for p in posts)
    assert "昨夜遇害" in posts[0] and "[quote]" in "".join(posts)
    assert all(p.count("[quote]") == p.count("[/quote]") for p in posts)  # every part well formed
    assert len(posts) == len(set(posts))  # nothing sent twice
    assert not env.store.pending_outbox(env.game_id)
