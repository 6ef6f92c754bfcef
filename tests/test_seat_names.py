"""The players' names listed once per state (issue 37: every vote post and power PM read
them): `core.names.seat_names` is kept with the state's facts and is always the names of its
players in seat order — through whole games in place and by `apply`, and a substitution
(the seat keeps its 马甲, only the account behind it changes)."""

from __future__ import annotations

import pytest

from test_substitution import game_with_subs, substitute
from tianshen.core.names import seat_names
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13", "game_ten"])
@pytest.mark.parametrize("by_apply", [False, True])
def test_the_names_are_the_players_after_every_fold(variant: str, by_apply: bool) -> None:
    ruleset = load_ruleset(variant)
    checked = 0

    class Checked(Game):
        def fold(self, event):  # type: ignore[no-untyped-def]
            if by_apply:
                self.state = self._took(ruleset.apply(self.state, event))
            else:
                super().fold(event)
            nonlocal checked
            names = seat_names(self.state)
            assert names == tuple(p.name for p in self.state.players)
            assert seat_names(self.state) is names  # listed once
            checked += 1

    for seed in range(3):
        Checked(ruleset, seed, ruleset.spec.players).play()
    assert checked > 50


def test_a_substitute_takes_the_seat_and_its_name() -> None:
    g = game_with_subs()
    before = seat_names(g.state)
    substitute(g, "庚")
    g.pm("替补乙", "可以，马上来", hours=3)
    assert g.state.player("庚").forum_name == "替补乙"
    assert seat_names(g.state) == before == tuple(p.name for p in g.state.players)
