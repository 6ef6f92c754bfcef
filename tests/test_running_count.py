"""One running count (issue 34, last point): the count during the day is the ballots ledger's.

Over random play with the simulated players of every variant, at every point of a day:
- the ledger's running count (`Ballots.running`) equals the tally the day's close makes
  when nothing more is posted (the deadlines folded on a copy): the same ballots, how each
  came, their weights, the rows with their modifiers, the non-voters and the abstentions;
- the public view (`Ballots.shown`) holds only ballots the board has shown: a vote posted in
  the thread, one the GM entered, or one the board itself posted for a PM (003 §9.9) — never a
  delegation the board keeps secret until the count;
- reading either changes nothing in the state (a tie's lot is drawn only at the close);
- the readers of a live count read it: the ruleset's `vote_count` (GM page, public page,
  `admin status`, observation) and the page's running rows (`views.vote_counts`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from test_one_count import NO_LINKS, RecordedGame
from tianshen.core.events import tallies
from tianshen.core.model import DeadlineIn, GameState, GmIn, PmIn, PostIn
from tianshen.core.ruleset import Ruleset
from tianshen.core.tally import DELEGATED, DayTally
from tianshen.specs import available_variants, load_spec
from tianshen.web import views

CASES = [(v, n) for v in available_variants() for n in (load_spec(v).player_counts or [load_spec(v).players])]
IDS = [f"{v}-{n}" for v, n in CASES]


def closed_now(ruleset: Ruleset, state: GameState) -> DayTally | None:
    """The tally the close makes if nothing more comes: the deadlines folded on copies until
    one counts (a reminder may come first); None when the day ends without a count."""
    for _ in range(6):
        due = ruleset.next_deadline(state)
        if due is None:
            return None
        outcome = ruleset.apply(state, DeadlineIn(id=f"{due.kind}@{due.at.isoformat()}", at=due.at, kind=due.kind))
        if found := tallies(outcome.events):
            return found[0]
        state = outcome.state
    return None


class WatchedGame(RecordedGame):
    """A pure-core game that checks the running count after every input of a day."""

    def __init__(self, variant: str, seed: int, players: int) -> None:
        self.checked = 0
        self.day_label = ""
        self.on_board: set[str] = set()  # voters whose ballot the board has shown today
        self.last_shown: dict[int, tuple[int, list[tuple[str, int]]]] = {}  # day -> (event, rows) last seen
        super().__init__(variant, seed, players)

    def fold(self, event) -> None:  # type: ignore[no-untyped-def]
        super().fold(event)
        state = self.state
        if state.phase.kind != "day":
            return
        if state.phase.label != self.day_label:
            self.day_label, self.on_board = state.phase.label, set()
        thread = f"vote:{state.phase.number}"
        if isinstance(event, PostIn) and event.thread == thread:
            self.on_board.add(event.author)
        if isinstance(event, PmIn) and any(p.thread == thread for p in self.outcomes[-1].posts):
            self.on_board.add(event.sender)  # the board posted it (003 §9.9)
        if isinstance(event, GmIn) and event.command == "enter-vote":
            self.on_board.add(str(event.args.get("player")))
        self.check(state)

    def check(self, state: GameState) -> None:
        ballots = self.ruleset.ballots
        assert ballots is not None
        full = self.checked % 10 == 0  # reading a count changes nothing (the RNG, the state every 10th time)
        stored = state.model_dump_json() if full else state.rng_draws
        running = ballots.running(state)
        if running is None:
            assert not ballots.open(state)
            return
        closing = closed_now(self.ruleset, state)
        assert closing is not None, state.phase
        assert running == replace(closing, executed=()), state.phase.label
        shown = ballots.shown(state)
        assert shown is not None
        for b in shown.ballots:
            assert b.voter in self.on_board, f"{state.phase.label}: {b} is not on the board"
        hidden = {b.voter for b in running.ballots if b.how == DELEGATED} - self.on_board
        assert not hidden & {b.voter for b in shown.ballots}
        count = self.ruleset.vote_count(state)
        assert count is not None
        if count.rows:
            assert sorted((name, n) for name, n, _ in count.rows) == sorted((r.name, r.total) for r in shown.rows)
        assert (state.model_dump_json() if full else state.rng_draws) == stored
        self.last_shown[state.phase.number] = (len(self.inputs), sorted((r.name, r.total) for r in shown.rows))
        self.checked += 1

    def check_the_page(self) -> None:
        """The page's running rows (views.vote_counts) at the last input of each day before
        its close are the ledger's shown count."""
        for number, (seq, rows) in self.last_shown.items():
            day = views.vote_counts(self.ruleset, self.events(), NO_LINKS, last_event=seq)[number]
            if not day.counted:
                assert sorted((r.target, r.votes) for r in day.rows if r.votes) == rows, f"day {number}"

    def play_watched(self, meddle: bool) -> None:
        """`Game.play`, with the sims' posts and PMs folded one by one before the deadline;
        with `meddle`, in each vote a voter without a ballot delegates by PM and the GM voids
        a ballot and enters one."""
        for _ in range(400):
            deadline = self.ruleset.next_deadline(self.state)
            if deadline is None:
                return
            self.now = max(self.now, min(self.now + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
            if meddle:
                self._meddle()
            self.sims.act(self.state, self.now, self.thread)
            self.advance(self._read())
            self.now = max(self.now, deadline.at)
            self.advance([])
        raise AssertionError("the game did not end")


    def _meddle(self) -> None:
        ballots, state = self.ruleset.ballots, self.state
        assert ballots is not None
        if not ballots.open(state):
            return
        alive = [p for p in state.players if p.alive]
        without = [p for p in alive if ballots.may_vote(state, p) and ballots.ballot(state, p) is None]
        if len(without) > 2:
            self.fold(PmIn(id=f"d{len(self.outcomes)}", sender=without[0].name, at=self.now,
                           text=f"委托投票 {alive[-1].name}"))
            self._gm("enter-vote", player=without[1].name, target=alive[0].name)
        cast = [p for p in alive if ballots.ballot(self.state, p) is not None]
        if cast:
            self._gm("void-vote", player=cast[-1].name)

    def _gm(self, command: str, **args: object) -> None:
        self.fold(GmIn(id=f"gm{len(self.outcomes)}", at=self.now, command=command, args=args, reason="测试"))


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@pytest.mark.parametrize("meddle", [False, True], ids=["sims", "meddled"])
def test_the_running_count_is_the_close_s_and_the_public_one_hides_what_the_board_hides(
        variant: str, players: int, meddle: bool) -> None:
    game = WatchedGame(variant, 4 if meddle else 5, players)
    game.play_watched(meddle)
    assert game.checked > 0
    game.check_the_page()


def test_the_tie_break_rounds_running_counts_are_their_closes() -> None:
    """001 §5.2–§5.5 (random play rarely reaches them): in the 生死投票 and in a 招魂 round,
    the ledger's running count is what the round's close counts; the summoned's vote by post
    is shown, the 生死投票's delegation is not."""
    from classic_helpers import Game as ClassicGame
    from test_classic_rules import THREE_WAY_KILLERS, _tie_day

    g = ClassicGame(10)
    _tie_day(g)
    ballots = g.ruleset.ballots
    first = next(v for v in THREE_WAY_KILLERS)
    assert not g.pm(first, f"委托投票 {THREE_WAY_KILLERS[first]}").refusals
    for v, t in THREE_WAY_KILLERS.items():
        if v != first:
            g.post(v, f"投票 {t}")
    running, shown = ballots.running(g.state), ballots.shown(g.state)
    assert running.ballot == "ld" and running == replace(closed_now(g.ruleset, g.state), executed=())
    assert first in {b.voter for b in running.ballots} - {b.voter for b in shown.ballots}
    g.advance("ld_end")
    assert g.state.phase.step == "summon"
    g.post("庚", "投票 乙")
    running = ballots.running(g.state)
    assert running.ballot == "summon" and running == replace(closed_now(g.ruleset, g.state), executed=())
    assert [b.voter for b in ballots.shown(g.state).ballots] == ["庚"]
