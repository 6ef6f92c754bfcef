"""Whole simulated games with a check after every fold, in place or by `apply` (the tests of
what the engine keeps with a state: it must stay true however the state was made)."""

from __future__ import annotations

from collections.abc import Callable

from tianshen.core.model import GameState
from tianshen.core.ruleset import Ruleset
from tianshen.sim.montecarlo import Game


def check_every_fold(ruleset: Ruleset, by_apply: bool, check: Callable[[GameState], None], seeds: range) -> int:
    """Play a game of `ruleset` for each seed, `check(state)` after every fold; returns how
    many states were checked."""
    checked = 0

    class Checked(Game):
        def fold(self, event):  # type: ignore[no-untyped-def]
            nonlocal checked
            if by_apply:
                self.state = self._took(ruleset.apply(self.state, event))
            else:
                super().fold(event)
            check(self.state)
            checked += 1

    for seed in seeds:
        Checked(ruleset, seed, ruleset.spec.players).play()
    return checked
