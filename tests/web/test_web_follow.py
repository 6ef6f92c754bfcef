"""Issue 38, a view per game that follows the log by sequence number: a page made from the
game's fold carried on event by event is byte for byte the page of a fresh full fold.

Each variant is played to its end by the simulated players (with a GM extension and a
void-vote on the way); after every commit of the driver and after every post sent, the
public page, the GM page and one player's panel (a different seat each time) of an app that
has followed the game all along are compared with those of an app whose folds and views were
just dropped (and the GM page's 「步骤」 with the family record's word, item 7); at the end
every phase page, every panel, the fragments and the JSON."""

from __future__ import annotations

import re
import warnings
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from itertools import takewhile

import pytest
from sqlalchemy import update
from web_game import TOKEN, at_vote, play_until, vote

import tianshen.web.app as web_app
import tianshen.web.follow as follow
from tianshen.core.fold import steps
from tianshen.core.model import GameState, GmIn
from tianshen.core.ruleset import GameSetup
from tianshen.forum.memory import MemoryBoard
from tianshen.rules import families
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for
from tianshen.sim.rehearsal import DEFAULT_START, VirtualClock, default_seats
from tianshen.specs import load_spec
from tianshen.store import Store
from tianshen.store.models import OutboxRow, ThreadRow
from tianshen.web import views
from tianshen.web.app import WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

VARIANTS = {"classic_8": 11, "classic_10": 12, "classic_13": 13, "game_ten": 14, "n_lives": 15,
            "hex_survival_12": 16, "hex_survival_14": 17, "butterfly_elder": 18}  # variant: seed
BEARER = {"Authorization": f"Bearer {TOKEN}"}
NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


class _FixedNow(datetime):
    @classmethod
    def now(cls, tz=None):  # both apps serve at one time: the kept views' clock words agree
        return NOW


def _clear(app) -> None:
    app.state.folds.games.clear()
    app.state.views.views.clear()
    app.state.gm_views.views.clear()


class Compare:
    def __init__(self, store: Store, game_id: int, seats: int) -> None:
        self.store = store
        self.settings = settings = WebSettings(token=TOKEN, post_url="https://bbs.example/p/{thread}/{post}",
                                               thread_url="https://bbs.example/t/{thread}")
        self.followed_app, self.fresh_app = create_app(store, settings), create_app(store, settings)
        self.followed, self.fresh = TestClient(self.followed_app), TestClient(self.fresh_app)
        self.followed.__enter__(), self.fresh.__enter__()  # one event loop each, not one a request
        self.game_id, self.seats, self.checks = game_id, seats, 0
        self.folded = 0  # events the followed app folded (each once)

    def paths(self) -> list[str]:
        g = self.game_id
        return [f"/game/{g}", f"/game/{g}/gm", f"/game/{g}/player/{self.checks % self.seats + 1}"]

    def check(self, paths: list[str] | None = None, what: str = "") -> None:
        _clear(self.fresh_app)
        for path in paths or self.paths():
            counting = [True]
            real = follow.stored_input

            def counted(payload: str, counting=counting, real=real):
                self.folded += counting[0]
                return real(payload)

            follow.stored_input = counted
            try:
                mine = self.followed.get(path, headers=BEARER)
                counting[0] = False
                full = self.fresh.get(path, headers=BEARER)
            finally:
                follow.stored_input = real
            assert mine.status_code == full.status_code, (what, path)
            assert mine.text == full.text, f"{what} {path}: the followed view differs from a full fold"
            if path.endswith("/gm"):
                self.step_words_of_the_family_record(mine.text, what)
        self.same_as_the_one_fold(what)
        self.checks += 1

    def step_words_of_the_family_record(self, html: str, what: str) -> None:
        """Issue 38 item 7: the GM page's 「步骤」 is the family record's word for the step."""
        record = self.store.load_game(self.game_id)
        if record.status == "new":
            return
        state = GameState.model_validate_json(record.state_json)
        word = families()[state.ruleset].step_words().get(state.phase.step)
        assert word and re.search(r"步骤：([^\s<]+)", html).group(1) == word, (what, state.phase.step)

    def same_as_the_one_fold(self, what: str) -> None:
        """The followed fold's data is core.fold's over the stored events up to its seq."""
        game = self.followed_app.state.folds.games.get(self.game_id)
        fold = game.public if game is not None else None
        if fold is None:
            return
        events, ruleset = self.store.events(self.game_id), fold.ruleset
        threads = {key: forum_id for forum_id, key in self.store.threads(self.game_id).items()}
        links = views.PostLinks((self.settings.post_url, self.settings.thread_url), threads)
        folded = list(takewhile(lambda step: step.seq <= fold.seq, steps(ruleset, events)))  # one pass
        assert fold.state == (folded[-1].outcome.state if folded else views.replay_state(ruleset, events, fold.seq + 1)), what
        assert fold.counts == views.vote_counts(ruleset, folded, links), what
        assert fold.timeline() == views.phase_ends(ruleset, folded), what
        assert game.gm.overrides == [GmIn.model_validate_json(e.payload_json) for e in events
                                     if e.kind == "gm" and e.seq <= game.gm.seq], what


def _play(variant: str, seed: int, db_url: str, monkeypatch) -> tuple[Compare, Store, int]:
    monkeypatch.setattr(web_app, "datetime", _FixedNow)
    clock = VirtualClock(DEFAULT_START)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    store = Store(db_url)
    store.upgrade()
    spec = load_spec(variant)
    setup = GameSetup(seats=default_seats(spec.players), seed=seed, start=DEFAULT_START)
    driver = GameDriver.create(store, forum, f"{variant}-follow", spec.id, setup)
    compare = Compare(store, driver.game_id, spec.players)
    commit, record = store.commit_step, store.record_parts

    def one_by_one(game_id, *, then=None, expected_seq=None, head=None, **step):
        """The driver's run of inputs written an event a commit, each compared after it."""
        seq = commit(game_id, expected_seq=expected_seq, head=head, **step)
        compare.check(what=f"{variant} seed {seed}, after event {seq}:")
        for more in then or []:
            seq = commit(game_id, expected_seq=seq, **{f.name: getattr(more, f.name) for f in fields(more)})
            compare.check(what=f"{variant} seed {seed}, after event {seq}:")
        return seq

    def sent(*args, **kwargs):
        record(*args, **kwargs)
        compare.check(what=f"{variant} seed {seed}, after a send:")

    monkeypatch.setattr(store, "commit_step", one_by_one)
    # a run of inputs keeps only its last state (issue 37); written one by one here, each
    # step carries its own, as a commit of its own does
    step_of = GameDriver._step_of
    monkeypatch.setattr(GameDriver, "_step_of", lambda self, *args, whole=True, **kw: step_of(self, *args, **kw))
    monkeypatch.setattr(store, "record_parts", sent)
    sims = sims_for(spec.ruleset, board, forum.account, seed)
    gm_done = set()
    for _ in range(80):
        state = driver.state()
        if state.winner is not None or state.phase.kind == "over":
            return compare, store, driver.game_id
        deadline = driver.ruleset.next_deadline(state)
        assert deadline is not None
        clock.set(min(clock.now() + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
        sims.act(state, clock.now(), lambda key: store.thread_id(driver.game_id, key))
        if state.phase.kind == "day" and not gm_done:  # a GM input: the GM page's fold takes it
            gm_done.add("extend")
            driver.gm("extend", "论坛维护，顺延一小时", clock.now(), hours=1)
            deadline = driver.ruleset.next_deadline(driver.state())
        if state.phase.kind == "day" and state.phase.number == 2 and "void" not in gm_done:
            voted = [p.name for p in driver.state().alive()][:1]
            gm_done.add("void")
            driver.gm("void-vote", "测试作废", clock.now(), player=voted[0])
        driver.advance(clock.now())
        clock.set(deadline.at)
        driver.advance(clock.now())
    raise AssertionError(f"{variant} seed {seed} did not end")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_followed_view_gives_a_full_folds_pages_after_every_event(variant, monkeypatch) -> None:
    seed = VARIANTS[variant]
    compare, store, gid = _play(variant, seed, "sqlite://", monkeypatch)  # in memory: no disk writes an event
    events = store.events(gid)
    assert compare.checks >= len(events)  # after every event, and after every send
    assert compare.folded == sum(1 for e in events if e.kind != "setup")  # each event folded once
    fold = compare.followed_app.state.folds.games[gid].public
    phases = [f"/game/{gid}/{p.path}" for p in fold.phases]
    players = [f"/game/{gid}/player/{seat}" for seat in range(1, compare.seats + 2)]  # and one past the last
    assert len(phases) >= 3
    fragments = [f"/game/{gid}/fragment", f"/game/{gid}/gm/fragment", f"/game/{gid}/record.json"]
    compare.check(phases + players + fragments, what=f"{variant} seed {seed}, the end:")
    compare.followed.__exit__(None, None, None), compare.fresh.__exit__(None, None, None)



@pytest.fixture
def voting(tmp_path, monkeypatch):
    monkeypatch.setattr(web_app, "datetime", _FixedNow)
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    alive = [p.name for p in running.state().alive()]
    vote(running, alive[0], alive[1], "9401")
    vote(running, alive[2], alive[1], "9402")
    return running, Compare(running.store, running.driver.game_id, 8)


def test_a_held_post_of_an_event_folded_already_starts_the_fold_again(voting) -> None:
    """A post sent long ago put back to pending (`admin resend` of a refused one): the page
    goes back to the state before its event, as a full fold would."""
    running, compare = voting
    gid, name = running.driver.game_id, running.driver.name
    compare.check(what="before:")
    newest = compare.followed_app.state.folds.games[gid].public.seq
    row = next(o for o in running.store.outbox(gid)
               if o.kind == "post" and (views.event_of(name, o.key) or newest) < newest - 2)
    with running.store.engine.begin() as conn:
        conn.execute(update(OutboxRow).where(OutboxRow.id == row.id).values(status="pending"))
    compare.check(what="held again:")
    assert compare.followed_app.state.folds.games[gid].public.seq == views.event_of(name, row.key) - 1


def test_a_thread_link_that_changed_starts_the_fold_again(voting) -> None:
    running, compare = voting
    gid = running.driver.game_id
    compare.check(what="before:")
    assert "https://bbs.example/p/" in compare.followed.get(f"/game/{gid}").text
    outbox = OutboxRow.__table__
    with running.store.engine.begin() as conn:  # the vote thread's id changed (and a part was written)
        conn.execute(update(ThreadRow).where(ThreadRow.game_id == gid, ThreadRow.key == "vote:1")
                     .values(forum_thread_id="77777"))
        conn.execute(update(outbox).where(outbox.c.game_id == gid).values(parts_done=outbox.c.parts_done + 1))
    compare.check(what="moved:")
    assert "https://bbs.example/p/77777/9401" in compare.followed.get(f"/game/{gid}").text
