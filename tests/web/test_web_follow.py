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
from datetime import UTC, datetime

import pytest
from sqlalchemy import update
from web_game import TOKEN, Running, at_vote, play_until, vote

import tianshen.core.fold as fold_module
import tianshen.web.app as web_app
from tianshen.core.fold import Step, steps
from tianshen.core.model import GameState, GmIn
from tianshen.rules import families
from tianshen.service.driver import GameDriver
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


K = 16  # besides each step's end and the game's, the pages of a fresh full fold every K-th check


class OneFold:
    """core.fold over the stored events, carried on step by step as the log grows (every step
    kept): what a fold from the first event gives at any seq, without folding it again."""

    def __init__(self, store: Store, game_id: int) -> None:
        self.store, self.game_id = store, game_id
        self.seq = 0
        self.states: dict[int, GameState] = {}  # the state after each event
        self.made: list[Step] = []
        self.overrides: list[tuple[int, GmIn]] = []  # every GM input with its seq

    def carry_on(self, ruleset) -> None:
        events = web_app._events_after(self.store, self.game_id, self.seq, 2**31 - 1)
        if not self.states and events and events[0].kind == "setup":
            self.states[events[0].seq] = fold_module.fold(ruleset, events[:1])
        state = self.states.get(self.seq)
        for step in steps(ruleset, events, state, self.seq):
            self.made.append(step)
            self.states[step.seq] = step.outcome.state
        self.overrides += [(e.seq, GmIn.model_validate_json(e.payload_json)) for e in events if e.kind == "gm"]
        self.seq = events[-1].seq if events else self.seq


class Compare:
    def __init__(self, store: Store, game_id: int, seats: int, monkeypatch) -> None:
        self.store = store
        self.settings = settings = WebSettings(token=TOKEN, post_url="https://bbs.example/p/{thread}/{post}",
                                               thread_url="https://bbs.example/t/{thread}")
        self.followed_app, self.fresh_app = create_app(store, settings), create_app(store, settings)
        self.followed, self.fresh = TestClient(self.followed_app), TestClient(self.fresh_app)
        self.followed.__enter__(), self.fresh.__enter__()  # one event loop each, not one a request
        self.game_id, self.seats, self.checks, self.full = game_id, seats, 0, 0
        self.folded = 0  # events the followed app folded (each once)
        self.counting = False
        self.seen: tuple[object, ...] = ()  # the steps of the game and of the followed fold at the last check
        self.one = OneFold(store, game_id)
        real = fold_module.stored_input

        def counted(payload: str):
            self.folded += self.counting
            return real(payload)

        monkeypatch.setattr(fold_module, "stored_input", counted)

    def paths(self, full: bool) -> list[str]:
        g = self.game_id
        return [f"/game/{g}", f"/game/{g}/gm", f"/game/{g}/player/{self.full % self.seats + 1}"] if full \
            else [f"/game/{g}"]

    def check(self, paths: list[str] | None = None, what: str = "") -> None:
        """The followed app's public page after every event and send (so it folds each as it
        comes); at each step's end (a new phase or step), every K-th check and when asked
        for `paths`, its public and GM pages and a player's panel (a different seat each
        time) against an app that folds from the first event; the followed fold against the
        one fold always."""
        self.counting = True
        try:
            mine = {path: self.followed.get(path, headers=BEARER) for path in paths or self.paths(False)}
            steps_now = self.steps_now()
            full = paths is not None or self.checks % K == 0 or steps_now != self.seen
            self.seen = steps_now
            if full and paths is None:
                self.full += 1
                mine |= {path: self.followed.get(path, headers=BEARER) for path in self.paths(True)[1:]}
        finally:
            self.counting = False
        if full:
            _clear(self.fresh_app)
        for path, page in mine.items():
            if full:
                fresh = self.fresh.get(path, headers=BEARER)
                assert page.status_code == fresh.status_code, (what, path)
                assert page.text == fresh.text, f"{what} {path}: the followed view differs from a full fold"
            if path.endswith("/gm"):
                self.step_words_of_the_family_record(page.text, what)
        self.same_as_the_one_fold(what, full)
        self.checks += 1

    def steps_now(self) -> tuple[object, ...]:
        """The game's phase and step, and those of the followed fold (held back by a post
        not sent yet)."""
        record = self.store.load_game(self.game_id)
        stored = GameState.model_validate_json(record.state_json) if record.status != "new" else None
        game = self.followed_app.state.folds.games.get(self.game_id)
        state = game.public.state if game is not None and game.public is not None else None
        return tuple(s and (s.phase.label, s.phase.step) for s in (stored, state))

    def step_words_of_the_family_record(self, html: str, what: str) -> None:
        """Issue 38 item 7: the GM page's 「步骤」 is the family record's word for the step."""
        record = self.store.load_game(self.game_id)
        if record.status == "new":
            return
        state = GameState.model_validate_json(record.state_json)
        word = families()[state.ruleset].step_words().get(state.phase.step)
        assert word and re.search(r"步骤：([^\s<]+)", html).group(1) == word, (what, state.phase.step)

    def same_as_the_one_fold(self, what: str, full: bool) -> None:
        """The followed fold's data is core.fold's over the stored events up to its seq: the
        state and the GM inputs at every check, the counts and the timeline when `full`."""
        game = self.followed_app.state.folds.games.get(self.game_id)
        fold = game.public if game is not None else None
        if fold is None:
            return
        self.one.carry_on(fold.ruleset)
        assert fold.state == self.one.states.get(fold.seq), what
        assert game.gm.overrides == [o for seq, o in self.one.overrides if seq <= game.gm.seq], what
        if full:
            threads = {key: forum_id for forum_id, key in self.store.threads(self.game_id).items()}
            links = views.PostLinks((self.settings.post_url, self.settings.thread_url), threads)
            folded = [step for step in self.one.made if step.seq <= fold.seq]
            assert fold.counts == views.vote_counts(fold.ruleset, folded, links), what
            assert fold.timeline() == views.phase_ends(fold.ruleset, folded), what


def _play(variant: str, seed: int, monkeypatch) -> tuple[Compare, Running]:
    """The variant played to its end by the simulated players (web_game.play_until), each
    event written by a commit of its own and compared after it, and after every send; a GM
    extension on the first day and a void-vote on day 2."""
    monkeypatch.setattr(web_app, "datetime", _FixedNow)
    # a run of inputs keeps only its last state (issue 37); written one by one here, each
    # step carries its own, as a commit of its own does
    step_of = GameDriver._step_of
    monkeypatch.setattr(GameDriver, "_step_of", lambda self, *args, whole=True, **kw: step_of(self, *args, **kw))
    made: list[Compare] = []
    said = f"{variant} seed {seed}"

    def created(running: Running) -> None:
        store = running.store
        compare = Compare(store, running.driver.game_id, load_spec(variant).players, monkeypatch)
        made.append(compare)
        commit, record = store.commit_step, store.record_parts

        def one_by_one(game_id, *, then=None, expected_seq=None, head=None, **step):
            """The driver's run of inputs written an event a commit, each compared after it."""
            seq = commit(game_id, expected_seq=expected_seq, head=head, **step)
            compare.check(what=f"{said}, after event {seq}:")
            for more in then or []:
                seq = commit(game_id, expected_seq=seq, **{f.name: getattr(more, f.name) for f in fields(more)})
                compare.check(what=f"{said}, after event {seq}:")
            return seq

        def sent(*args, **kwargs):
            record(*args, **kwargs)
            compare.check(what=f"{said}, after a send:")

        monkeypatch.setattr(store, "commit_step", one_by_one)
        monkeypatch.setattr(store, "record_parts", sent)

    gm_done: set[str] = set()

    def each(running: Running, state: GameState) -> None:
        """A GM input the GM page's fold takes; the players' inputs folded before the deadline."""
        driver, now = running.driver, running.clock.now()
        if state.phase.kind == "day" and not gm_done:
            gm_done.add("extend")
            driver.gm("extend", "论坛维护，顺延一小时", now, hours=1)
        if state.phase.kind == "day" and state.phase.number == 2 and "void" not in gm_done:
            gm_done.add("void")
            driver.gm("void-vote", "测试作废", now, player=driver.state().alive()[0].name)
        driver.advance(now)

    running = play_until("sqlite://", variant, seed, lambda s: s.winner is not None or s.phase.kind == "over",
                         max_steps=80, name=f"{variant}-follow", created=created, each=each)  # in memory
    return made[0], running


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_followed_view_gives_a_full_folds_pages_after_every_event(variant, monkeypatch) -> None:
    seed = VARIANTS[variant]
    compare, running = _play(variant, seed, monkeypatch)
    gid = running.driver.game_id
    events = running.store.events(gid)
    assert compare.checks >= len(events)  # after every event, and after every send
    assert compare.folded == sum(1 for e in events if e.kind != "setup")  # each event folded once
    fold = compare.followed_app.state.folds.games[gid].public
    phases = [f"/game/{gid}/{p.path}" for p in fold.phases]
    assert len(phases) >= 3 and compare.full > len(phases)  # a full fold's pages at each phase's end
    players = [f"/game/{gid}/player/{seat}" for seat in range(1, compare.seats + 2)]  # and one past the last
    fragments = [f"/game/{gid}/fragment", f"/game/{gid}/gm/fragment", f"/game/{gid}/record.json"]
    compare.check(phases + players + fragments, what=f"{variant} seed {seed}, the end:")
    compare.followed.__exit__(None, None, None), compare.fresh.__exit__(None, None, None)


def test_a_fold_carried_on_from_a_state_makes_the_same_steps() -> None:
    """core.fold.steps from the state after some event gives the steps a fold from the first
    event gives after it (what web/follow.py folds a new event with)."""
    running = play_until("sqlite://", "classic_8", 3, at_vote(1))
    events, ruleset = running.store.events(running.driver.game_id), running.driver.ruleset
    whole = list(steps(ruleset, events))
    half = whole[len(whole) // 2]
    carried = list(steps(ruleset, events, half.outcome.state, half.seq))
    assert [(s.seq, s.outcome.state) for s in carried] == [(s.seq, s.outcome.state) for s in whole if s.seq > half.seq]
    assert len(carried) >= 3


@pytest.fixture
def voting(tmp_path, monkeypatch):
    monkeypatch.setattr(web_app, "datetime", _FixedNow)
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    alive = [p.name for p in running.state().alive()]
    vote(running, alive[0], alive[1], "9401")
    vote(running, alive[2], alive[1], "9402")
    return running, Compare(running.store, running.driver.game_id, 8, monkeypatch)


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
