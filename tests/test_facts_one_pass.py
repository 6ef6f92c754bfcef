"""The groups, their seats and each seat's partners are worked out in one pass over the
players (issue 37, `roles._work_out`): whichever of them a game asks for first, each is what
its own definition says, in every variant's deals."""

from __future__ import annotations

import pytest

from tianshen.core.model import GameState
from tianshen.rules import load_ruleset
from tianshen.rules.common import roles
from tianshen.rules.common.game import ForumGame
from tianshen.sim.montecarlo import Game
from tianshen.specs import available_variants


def _expected(spec: object, state: GameState) -> tuple[dict, dict, dict]:
    """The three facts by their definitions, player by player."""
    kinds = roles._group_kinds(spec)  # type: ignore[arg-type]
    of = {p.name: roles._group(kinds.get(p.role), state, p) for p in state.players}
    seats: dict = {}
    for i, p in enumerate(state.players):
        seats.setdefault(of[p.name], []).append(i)
    partners = {}
    for name, group in of.items():
        alone = group is None or group.endswith(":" + name)
        partners[name] = () if alone else tuple(i for i in seats[group] if state.players[i].name != name)
    return of, {g: tuple(s) for g, s in seats.items()}, partners


def _families() -> list[str]:
    """The variants of the families that act by groups (the 001/002 family's)."""
    return [v for v in available_variants() if isinstance(load_ruleset(v), ForumGame)]


@pytest.mark.parametrize("variant", _families())
@pytest.mark.parametrize("first", ["groups", "seats", "partners"])
def test_each_fact_is_its_definition_whichever_is_asked_first(variant: str, first: str) -> None:
    ruleset = load_ruleset(variant)
    spec = ruleset.spec
    for seed in range(4):
        state = Game(ruleset, seed, spec.players).state
        state.roles_changed()
        if first == "groups":
            roles.groups(spec, state)
        elif first == "seats":
            roles._seats_of(spec, state)
        else:
            roles.partners(spec, state, state.players[0])
        of, seats, partners = _expected(spec, state)
        assert roles.groups(spec, state) == of
        assert roles._seats_of(spec, state) == seats
        for q in state.players:
            assert [r.name for r in roles.partners(spec, state, q)] == [state.players[i].name for i in partners[q.name]]


def test_the_killers_of_a_joint_mode_are_partners_and_nobody_else_is() -> None:
    ruleset = load_ruleset("classic_10")
    state = Game(ruleset, 1, 10).state
    state.roles_changed()
    spec = ruleset.spec
    killers = [p.name for p in state.players if roles.is_killer(p)]
    for p in state.players:
        mates = [q.name for q in roles.partners(spec, state, p)]
        assert mates == ([k for k in killers if k != p.name] if p.name in killers else [])
