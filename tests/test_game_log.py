"""A Monte Carlo game opens one log of player writes for all its folds (issue 37: no log begun
and ended a fold): each fold in place reads its own part of it, so its deaths are what the same
input folded alone gives, and no log or mark is left once the game is over."""

from __future__ import annotations

from typing import Any

import pytest

from tianshen.core import model
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


class _Recording(Game):
    """A game that keeps its inputs (its own `fold`: `advance` calls it for every input)."""

    def __init__(self, *args: Any) -> None:
        self.inputs: list[Any] = []
        super().__init__(*args)

    def fold(self, event: Any) -> None:
        self.inputs.append(event)
        super().fold(event)


@pytest.mark.parametrize(("variant", "seed"), [("classic_10", 3), ("classic_10", 8), ("n_lives", 2)])
def test_each_fold_has_the_deaths_of_its_own_writes(variant: str, seed: int) -> None:
    ruleset = load_ruleset(variant)
    game = _Recording(ruleset, seed, ruleset.spec.players)
    game.play()
    assert sum(len(o.deaths) for o in game.outcomes) >= 2
    # the same inputs folded one by one by `apply`, from the same setup (each fold its own log)
    state = Game(ruleset, seed, ruleset.spec.players).state
    folded = []
    for event in game.inputs:
        outcome = ruleset.apply(state, event)
        folded.append(outcome.deaths)
        state = outcome.state
    assert [o.deaths for o in game.outcomes[1:]] == folded


def test_no_log_is_left_open_after_a_game() -> None:
    ruleset = load_ruleset("classic_10")
    game = Game(ruleset, 5, 10)
    state = game.play()
    assert model.WRITES.get() is None and state.logged is False


def test_no_log_is_left_open_when_a_game_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = load_ruleset("classic_10")
    game = Game(ruleset, 5, 10)
    first = game.state

    def failing(*args: Any) -> None:
        raise RuntimeError("a sim's bug")

    monkeypatch.setattr(game.sims, "act", failing)
    with pytest.raises(RuntimeError):
        game.play()
    assert model.WRITES.get() is None and first.logged is False


def test_a_game_inside_a_log_hands_its_writes_on() -> None:
    ruleset = load_ruleset("classic_10")
    log, token = model.watch_alive()
    game = Game(ruleset, 5, 10)
    game.play()
    model.WRITES.reset(token)
    assert any(name == "alive" for _, name, _ in log)
