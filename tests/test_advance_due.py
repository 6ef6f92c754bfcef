"""`Game.advance` (issue 37) reads the state's kept next deadline (`GameState.due`) after a
fold instead of asking the ruleset: what it hands back is what the ruleset works out afresh."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tianshen.core.model import DUE_UNKNOWN, GameState, Outcome, PostIn
from tianshen.core.ruleset import Deadline
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


@pytest.mark.parametrize("variant", ["classic_10", "n_lives", "game_ten"])
def test_advance_hands_back_the_next_deadline_worked_out_afresh(variant: str) -> None:
    ruleset = load_ruleset(variant)
    checked = [0]

    class Checked(Game):
        def advance(self, pending, known=None):  # type: ignore[no-untyped-def]
            found = super().advance(pending, known)
            assert found == ruleset._next_deadline(self.state)
            checked[0] += 1
            return found

    for seed in range(3):
        checked[0] = 0
        game = Checked(ruleset, seed, ruleset.spec.players)
        game.play()
        assert checked[0] > 5



class _Stub:
    """A ruleset whose folds keep the state's next deadline or drop it (as one that moved it)."""

    def __init__(self, keep: bool, before: Deadline, after: Deadline) -> None:
        self.keep, self.before, self.after, self.asked = keep, before, after, 0

    def apply_in_place(self, state: GameState, event: object) -> Outcome:
        new = GameState(ruleset="classic", variant="classic_10", seed=1, players=[])
        new.due = self.before if self.keep else DUE_UNKNOWN
        return Outcome(state=new)

    def next_deadline(self, state: GameState) -> Deadline:
        self.asked += 1
        return self.after


@pytest.mark.parametrize("keep", [True, False])
def test_advance_asks_the_ruleset_only_when_a_fold_dropped_the_kept_deadline(keep: bool) -> None:
    ruleset = load_ruleset("classic_10")
    game = Game(ruleset, 1, ruleset.spec.players)
    now = game.now
    before, after = Deadline(now + timedelta(hours=2), "a"), Deadline(now + timedelta(hours=3), "b")
    stub = _Stub(keep, before, after)
    game.ruleset = stub  # type: ignore[assignment]
    post = PostIn("p1", "main", "甲", now, "hello")
    found = game.advance([post, post], before)
    assert found is (before if keep else after)
    assert stub.asked == (0 if keep else 2)
