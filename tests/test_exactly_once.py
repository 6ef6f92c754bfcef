"""Issue 13 (items 1, 2, 8, 13) and 14 (optimistic commits, claims, deadlines once): the
driver never loses or doubles a message, whichever point the process dies at — on a board
that remembers idempotency keys and on one that does not (like Discuz and Spirit)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from forgetful import ForgetfulForum
from migrated import migrated_sqlite
from tianshen.core.model import DeadlineIn, PmIn
from tianshen.core.ruleset import GameSetup
from tianshen.forum.memory import MemoryBoard, MemoryForum, StoredPm, StoredPost
from tianshen.service import crash
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for
from tianshen.sim.rehearsal import VirtualClock, default_seats
from tianshen.store import StaleState, Store

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
GM = "神的使者"


class Crash(BaseException):
    """The process dies here (BaseException: no `except Exception` in the driver catches it)."""


def _arm(monkeypatch: pytest.MonkeyPatch, at: int | None) -> Callable[[], int]:
    """Make `crash.point` raise Crash at the `at`-th point passed; returns a counter."""
    passed = [0]

    def point(name: str) -> None:
        passed[0] += 1
        if passed[0] == at:
            raise Crash(name)

    monkeypatch.setattr(crash, "point", point)
    return lambda: passed[0]


class Game:
    """A whole classic_8 game on the memory board, which the test may kill and restart."""

    def __init__(self, tmp_path: Path, adapter: type[MemoryForum], max_post_chars: int | None = 400) -> None:
        self.clock = VirtualClock(START)
        self.board = MemoryBoard(self.clock.now)
        self.adapter, self.max_post_chars = adapter, max_post_chars
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.url = migrated_sqlite(tmp_path / 'g.db')
        self.store = Store(self.url, durable=False)
        self.store.upgrade()
        setup = GameSetup(seats=default_seats(8), seed=3, start=START, salt="ab" * 16)
        self.game_id = GameDriver.register(self.store, "g", "classic_8", setup)
        self.driver = self._driver()
        self.sims = sims_for("classic", self.board, GM, 3)
        self.restarts = 0

    def _driver(self) -> GameDriver:
        forum = self.adapter(self.board)
        forum.max_post_chars = self.max_post_chars  # long posts go in parts
        forum.login()
        return GameDriver(self.store, forum, self.game_id)

    def restart(self) -> None:
        self.store.close()
        self.store = Store(self.url, durable=False)
        self.driver = self._driver()
        self.restarts += 1

    def play(self) -> None:
        acted: set[str] = set()
        for _ in range(400):
            try:
                if not self.driver.is_started():
                    self.driver.start()
                    continue
                self.driver.flush()
                state = self.driver.state()
                deadline = self.driver.ruleset.next_deadline(state)
                if deadline is None:
                    if self.store.pending_outbox(self.game_id):
                        continue
                    return
                point = f"{state.phase.label}:{state.phase.step}"
                if point not in acted:
                    acted.add(point)
                    self.clock.set(min(self.clock.now() + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
                    self.sims.act(state, self.clock.now(), lambda key: self.store.thread_id(self.game_id, key))
                self.clock.set(deadline.at)
                self.driver.advance(self.clock.now())
            except Crash:
                self.restart()
        raise AssertionError("the game did not end")

    def seen(self) -> tuple[list[tuple[str, str, str]], Counter[tuple[str, str]]]:
        """What everyone saw: the posts of every thread in order, and the PMs per recipient."""
        posts = [(self.board.thread_title(p.thread_id), p.author, p.text)
                 for p in self.board.activity() if isinstance(p, StoredPost)]
        pms = Counter((m.recipient, m.text) for m in self.board.activity() if isinstance(m, StoredPm))
        return posts, pms


@pytest.mark.parametrize("adapter", [MemoryForum, ForgetfulForum], ids=["remembers-keys", "forgets-keys"])
def test_killed_at_every_point_of_a_game_nothing_is_lost_or_doubled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    adapter: type[MemoryForum]) -> None:
    count = _arm(monkeypatch, None)
    reference = Game(tmp_path / "ref", adapter)
    reference.play()
    total = count()
    want = reference.seen()
    assert reference.driver.state().winner and total > 30

    points = sorted({1 + (total - 1) * i // 59 for i in range(60)})  # every point, or 60 spread over the game
    for at in points:
        _arm(monkeypatch, at)
        game = Game(tmp_path / f"crash{at}", adapter)
        game.play()
        assert game.restarts == 1, at
        assert game.seen() == want, f"killed at point {at}"
        assert game.driver.state().winner == reference.driver.state().winner
        assert not game.store.pending_outbox(game.game_id)


def test_a_crash_after_opening_a_thread_does_not_turn_its_opening_into_a_reply(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 1: the player list (several parts) is written, the process dies before the
    write is recorded; after the restart the thread is not opened twice, and its first part
    is not posted again as a reply."""
    _arm(monkeypatch, None)
    game = Game(tmp_path, ForgetfulForum, max_post_chars=80)
    names: list[str] = []
    monkeypatch.setattr(crash, "point", lambda name: names.append(name) if name != "after-write" or
                        names.count("after-write") else (names.append(name), _raise(Crash(name))))
    with pytest.raises(Crash):
        game.driver.start()
    _arm(monkeypatch, None)
    game.restart()
    game.driver.flush()
    threads = game.board.threads()
    assert len(threads) == 1
    texts = [p.text for p in game.board.thread_posts(threads[0][0])]
    assert len(texts) == len(set(texts)) >= 2  # every part once, the first as the opening post
    assert not game.store.pending_outbox(game.game_id)


def _raise(exc: BaseException) -> None:
    raise exc


def test_a_burst_of_pms_is_folded_before_anything_is_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 8: every due input (and the deadline behind them) is folded first, then the
    outbox is sent once."""
    _arm(monkeypatch, None)
    game = Game(tmp_path, MemoryForum)
    game.driver.start()
    sent_while_folding: list[int] = []
    game.driver.on_step = lambda *_: sent_while_folding.append(
        sum(1 for o in game.store.outbox(game.game_id) if o.status == "sent"))
    before = sum(1 for o in game.store.outbox(game.game_id) if o.status == "sent")
    players = game.driver.state().players
    for p in players:
        game.board.pm(p.name, GM, "帮助")
    night_end = game.driver.ruleset.next_deadline(game.driver.state())
    assert night_end is not None
    game.clock.set(night_end.at)
    steps = game.driver.advance(game.clock.now())
    assert steps == len(players) + 1  # every PM and the deadline
    assert sent_while_folding == [before] * steps  # nothing went out in between
    assert not game.store.pending_outbox(game.game_id)  # and then everything did


def test_a_vote_edited_after_it_was_read_is_judged_before_the_count(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 13: the vote thread is read whole again before the deadline; the edited post
    reaches the ruleset as an edit, with the text first read as its original."""
    _arm(monkeypatch, None)
    game = Game(tmp_path, MemoryForum)
    driver = game.driver
    driver.start()
    while driver.state().phase.kind != "day" or driver.state().phase.step != "vote":
        deadline = driver.ruleset.next_deadline(driver.state())
        assert deadline is not None
        game.clock.set(deadline.at)
        driver.advance(game.clock.now())
    state = driver.state()
    voter, first, second = [p for p in state.players if p.alive][:3]
    thread = game.store.thread_id(game.game_id, f"vote:{state.phase.number}")
    assert thread is not None
    post_id = game.board.post(voter.name, thread, f"投票 {first.name}")
    driver.advance(game.clock.now())
    game.board.edit(post_id, voter.name, f"投票 {second.name}")
    before = len(game.store.outbox(game.game_id))
    deadline = driver.ruleset.next_deadline(driver.state())
    assert deadline is not None
    game.clock.set(deadline.at)
    driver.advance(game.clock.now())
    edits = [i for i in game.store.inbound(game.game_id) if i.forum_id.startswith(f"{post_id}~")]
    assert len(edits) == 1 and edits[0].edited and edits[0].text == f"投票 {second.name}"
    after = game.store.outbox(game.game_id)[before:]
    # 001 §5.1 投票一旦投出，就禁止修改: the vote stands as first read, and the voter is told
    assert any(o.target == voter.name and "禁止修改" in o.body for o in after if o.kind == "pm")
    result = next(o.body for o in after if o.kind == "post" and "投票结果" in o.body)
    assert f"| {first.name} | 1票 | {voter.name} |" in result


def test_a_stale_commit_is_refused_on_every_database(db_url: str) -> None:
    store = Store(db_url)
    store.upgrade()
    setup = GameSetup(seats=default_seats(8), seed=1, start=START)
    game_id = GameDriver.register(store, "s", "classic_8", setup)
    args = dict(inbound=None, event_kind="x", event_payload="{}", phase_label="setup", state_json="{}",
                status="new", deadline_at=None, winner=None, players=None, outbox=[])
    assert store.commit_step(game_id, expected_seq=0, **args) == 1
    with pytest.raises(StaleState):
        store.commit_step(game_id, expected_seq=0, **args)  # another process committed seq 1 first
    assert store.step_seq(game_id) == 1 and len(store.events(game_id)) == 1
    store.close()


def test_a_commit_on_a_stale_state_is_refused_and_folded_again(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14: two drivers (two processes) on one game; each step commits only on the
    newest state."""
    _arm(monkeypatch, None)
    game = Game(tmp_path, MemoryForum)
    game.driver.start()
    other = GameDriver(Store(game.url), game.adapter(game.board), game.game_id)
    other.forum.login()
    p1, p2 = game.driver.state().players[:2]
    assert game.driver.state().phase.label == other.state().phase.label  # both have read the state
    other.handle(PmIn(id="pm-a", sender=p1.name, at=game.clock.now(), text="帮助"))
    seq = game.store.step_seq(game.game_id)
    with pytest.raises(StaleState):
        game.store.commit_step(game.game_id, inbound=None, event_kind="x", event_payload="{}", phase_label="x",
                               state_json="{}", status="running", deadline_at=None, winner=None, players=[],
                               outbox=[], expected_seq=seq - 1)
    assert game.driver.handle(PmIn(id="pm-b", sender=p2.name, at=game.clock.now(), text="帮助"))
    assert game.store.step_seq(game.game_id) == seq + 1  # folded on the newest state, not lost
    answered = {o.target for o in game.store.outbox(game.game_id) if (o.subject or "").startswith("天神回复")}
    assert {p1.name, p2.name} <= answered


def test_a_deadline_is_folded_once_whichever_process_fires_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _arm(monkeypatch, None)
    game = Game(tmp_path, MemoryForum)
    game.driver.start()
    other = GameDriver(Store(game.url), game.adapter(game.board), game.game_id)
    due = game.driver.ruleset.next_deadline(game.driver.state())
    assert due is not None
    event = DeadlineIn(id=f"{due.kind}@{due.at.isoformat()}", at=due.at, kind=due.kind)
    assert game.driver.handle(event, send=False)
    assert not other.handle(event, send=False)  # stored once: the second is a duplicate
    assert [e.kind for e in game.store.events(game.game_id)].count("deadline") == 1


def test_an_outbox_row_claimed_by_one_process_is_not_sent_by_another(db_url: str) -> None:
    store = Store(db_url)
    store.upgrade()
    setup = GameSetup(seats=default_seats(8), seed=1, start=START)
    game_id = GameDriver.register(store, "c", "classic_8", setup)
    board = MemoryBoard(lambda: START)
    driver = GameDriver(store, board.gm(), game_id)
    driver.forum.login()
    driver.start(send=False)
    row = store.pending_outbox(game_id)[0]
    now = datetime.now(UTC)
    assert store.claim(row.id, "a", now + timedelta(minutes=5))
    assert not store.claim(row.id, "b", now + timedelta(minutes=5))
    assert store.claim(row.id, "a", now + timedelta(minutes=5))  # the owner renews
    store.record_parts([])  # nothing to record is fine
    store.close()


def test_a_lease_is_held_by_one_process_and_taken_over_when_it_lapses(db_url: str) -> None:
    store = Store(db_url)
    store.upgrade()
    setup = GameSetup(seats=default_seats(8), seed=1, start=START)
    game_id = GameDriver.register(store, "l", "classic_8", setup)
    t = datetime(2026, 1, 1, tzinfo=UTC)
    assert store.acquire_lease(game_id, "a", t, 30)
    assert not store.acquire_lease(game_id, "b", t + timedelta(seconds=10), 30)
    assert store.acquire_lease(game_id, "a", t + timedelta(seconds=20), 30)  # renewed to t+50
    assert not store.acquire_lease(game_id, "b", t + timedelta(seconds=49), 30)
    assert store.acquire_lease(game_id, "b", t + timedelta(seconds=51), 30)  # a is gone: b takes over
    assert store.lease(game_id) == ("b", t + timedelta(seconds=81))
    store.close()


def test_an_admin_command_leaves_the_sending_to_the_daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tianshen admin` folds with an offline forum: its messages are neither claimed nor
    marked as tried, so the daemon sends them at once, without asking the forum first."""
    from tianshen.service.driver import OfflineForum

    _arm(monkeypatch, None)
    game = Game(tmp_path, ForgetfulForum)
    game.driver.start()
    admin = GameDriver(Store(game.url), OfflineForum(), game.game_id)
    admin.gm("extend", "测试", game.clock.now(), hours=1)
    [row] = game.store.pending_outbox(game.game_id)
    assert row.attempt_part is None
    assert game.driver.flush() == 1
    assert not game.store.pending_outbox(game.game_id)


def test_a_receipt_like_an_earlier_one_is_not_taken_for_it_after_a_crash(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the Spirit crash test: the same command twice gets the same receipt twice.
    Killed just before the second is written, the restart must not take the first one, on
    the forum, for the second."""
    _arm(monkeypatch, None)
    game = Game(tmp_path, ForgetfulForum)
    game.driver.start()
    player = game.driver.state().players[0]
    game.board.pm(player.name, GM, "帮助")
    game.driver.advance(game.clock.now())
    first = [m for m in game.board.inbox(player.name) if m.sender == GM]
    game.board.pm(player.name, GM, "帮助")
    monkeypatch.setattr(crash, "point", lambda name: _raise(Crash(name)) if name == "before-write" else None)
    with pytest.raises(Crash):
        game.driver.advance(game.clock.now())
    _arm(monkeypatch, None)
    game.restart()
    game.driver.flush()
    now = [m for m in game.board.inbox(player.name) if m.sender == GM]
    assert len(now) == len(first) + 1 and now[-1].text == first[-1].text  # the second receipt went out
    assert not game.store.pending_outbox(game.game_id)
