"""The players' names listed once per state (issue 37: every vote post and power PM read
them): `core.names.seat_names` is kept with the state's facts and is always the names of its
players in seat order — through whole games in place and by `apply`, and a substitution
(the seat keeps its 马甲, only the account behind it changes)."""

from __future__ import annotations

import pytest

from folded_games import check_every_fold
from test_substitution import game_with_subs, substitute
from tianshen.core.model import GameState
from tianshen.core.names import seat_names
from tianshen.rules import load_ruleset


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13", "game_ten"])
@pytest.mark.parametrize("by_apply", [False, True])
def test_the_names_are_the_players_after_every_fold(variant: str, by_apply: bool) -> None:
    ruleset = load_ruleset(variant)

    def check(state: GameState) -> None:
        names = seat_names(state)
        assert names == tuple(p.name for p in state.players)
        assert seat_names(state) is names  # listed once

    checked = check_every_fold(ruleset, by_apply, check, range(3))
    assert checked > 50


def test_a_substitute_takes_the_seat_and_its_name() -> None:
    g = game_with_subs()
    before = seat_names(g.state)
    substitute(g, "庚")
    g.pm("替补乙", "可以，马上来", hours=3)
    assert g.state.player("庚").forum_name == "替补乙"
    assert seat_names(g.state) == before == tuple(p.name for p in g.state.players)


@pytest.mark.parametrize("variant", ["classic_10", "game_ten", "butterfly_elder", "n_lives"])
@pytest.mark.parametrize("by_apply", [False, True])
def test_find_answers_as_the_list_after_every_fold(variant: str, by_apply: bool) -> None:
    """`GameState.find` looks a 马甲's seat up in a table kept with the facts: after every fold
    it answers as a scan of the players does, for every name and a stranger's."""
    ruleset = load_ruleset(variant)

    def check(state: GameState) -> None:
        for p in state.players:
            assert state.find(p.name) is p and state.player(p.name) is p
        assert state.find("路人") is None and "seat_of" in state.facts

    checked = check_every_fold(ruleset, by_apply, check, range(2))
    assert checked > 50


def test_find_reads_a_list_of_players_set_anew() -> None:
    """The table is only a hint: players set in another order (the facts kept) are found."""
    g = game_with_subs()
    state = g.state
    first = state.players[0]
    assert state.find(first.name) is first
    state.players = state.players[::-1]
    assert state.find(first.name) is first and state.player(first.name) is first
    state.players = [p for p in state.players if p is not first]
    assert state.find(first.name) is None
    with pytest.raises(KeyError):
        state.player(first.name)
