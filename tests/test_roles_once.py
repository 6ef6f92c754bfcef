"""The roles' look-ups (issue 37): each acting group's seats are worked out once while the
roles stay as they are (`GameState.facts`), and `members`, `partners` and `winner` read
them or count in one pass — the same answers as the plain definitions, through whole games
(game_ten's conversions included) and `apply`'s copies."""

from __future__ import annotations

import pytest

from folded_games import check_every_fold
from tianshen.core.abilities import table
from tianshen.core.model import GameState, Player
from tianshen.rules import load_ruleset
from tianshen.rules.common import roles
from tianshen.sim.montecarlo import Game


def plain_members(of: dict, state: GameState, group: str) -> list[Player]:
    return [p for p in state.players if p.alive and of[p.name] == group]


def plain_partners(of: dict, state: GameState, p: Player) -> list[Player]:
    group = of[p.name]
    if group is None or group.endswith(":" + p.name):
        return []
    return [q for q in state.players if of[q.name] == group and q.name != p.name]


def plain_holding(of: dict, state: GameState, held_by: tuple[str, ...]) -> tuple[str, ...]:
    found: list[str] = []
    for p in state.players:
        group = of[p.name]
        if p.role in held_by and group is not None and group not in found:
            found.append(group)
    return tuple(found)


def plain_winner(state: GameState, tie_holders: tuple[str, ...]) -> str | None:
    killers, civilians = roles.living_killers(state), roles.living_civilians(state)
    if not killers:
        if not roles.living_commoners(state):
            return str(state.data["options"].get("simultaneous_win", roles.CIVILIANS))
        return roles.CIVILIANS
    if len(killers) > len(civilians):
        return roles.KILLERS
    if len(killers) == len(civilians) and not any(p.alive for p in state.players if p.role in tie_holders):
        return roles.KILLERS
    if not roles.living_commoners(state):
        return roles.KILLERS
    return None


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13", "game_ten"])
@pytest.mark.parametrize("by_apply", [False, True])
def test_group_look_ups_answer_as_the_plain_definitions(variant: str, by_apply: bool) -> None:
    ruleset = load_ruleset(variant)
    spec = ruleset.spec
    tie_holders = ruleset.TIE_HOLDERS  # type: ignore[attr-defined]

    def check(state: GameState) -> None:
        of = roles.groups(spec, state)
        for group in set(of.values()) - {None}:
            assert roles.members(spec, state, group) == plain_members(of, state, group)
        assert "group_seats" in state.facts  # worked out once, kept with the groups
        roles.partners(spec, state, state.players[0])
        assert "partner_seats" in state.facts  # so are each seat's partners
        for p in state.players:
            assert roles.partners(spec, state, p) == plain_partners(of, state, p)
            assert all(q is state.player(q.name) for q in roles.partners(spec, state, p))  # this state's
        assert roles.winner(state, tie_holders) == plain_winner(state, tie_holders)
        for ability in table(spec).by_id.values():  # each ability's holders' groups, kept
            assert roles.groups_holding(spec, state, ability.roles) == plain_holding(of, state, ability.roles)
        assert "holding" in state.facts

    checked = check_every_fold(ruleset, by_apply, check, range(4))
    assert checked > 100


@pytest.mark.parametrize("policy", ["default", "smart"])
def test_the_classic_sims_read_the_groups_once_a_night(policy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tianshen.sim import classic, smart

    asked: list[str] = []

    def counting(name: str, real):  # type: ignore[no-untyped-def]
        def ask(*args):  # type: ignore[no-untyped-def]
            asked.append(name)
            return real(*args)
        return ask

    for module in (classic, smart):
        for name in ("group_of", "acts_alone"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, counting(name, getattr(module, name)))
    ruleset = load_ruleset("classic_10")
    game = Game(ruleset, 3, 10, policy)
    game.play()
    assert game.state.winner and asked == []
