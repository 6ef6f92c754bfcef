"""A player's fields are its instance dict (issue 37): made whole at once, written there by
`__setattr__` (logged for `apply` and the fold's deaths), several at once by `write` (a death's
three, a deal's two), each logged as `__setattr__` logs it."""

from __future__ import annotations

from tianshen.core.deaths import die
from tianshen.core.model import GameState, Player, alive_before, fold_sharing_players, watch_alive


def _state() -> GameState:
    return GameState(ruleset="classic", variant="classic_10", seed=1,
                     players=[Player(name="甲", forum_name="a", seat=1), Player(name="乙", forum_name="b", seat=2)])


def test_a_player_is_made_with_every_field_once() -> None:
    p = Player(name="甲", forum_name="a", seat=1)
    assert list(vars(p)) == list(Player._FIELDS)
    assert (p.role, p.faction, p.alive, p.died_in, p.death_cause, p.extra) == ("", "", True, None, None, {})
    assert Player(name="乙", forum_name="b", seat=2).extra is not p.extra


def test_write_logs_each_field_and_the_alive_write_as_setattr_does() -> None:
    p = Player(name="甲", forum_name="a", seat=1)
    log, token = watch_alive()
    p.write({"alive": False, "died_in": "night 1", "death_cause": "killed"})
    assert alive_before(log, token, [p]) == [True]
    assert (p.alive, p.died_in, p.death_cause) == (False, "night 1", "killed")


def test_a_death_by_apply_leaves_the_state_it_was_given_as_it_was() -> None:
    state = _state()
    state.phase.kind, state.phase.number = "night", 2

    def fold(s: GameState, event: object):  # type: ignore[no-untyped-def]
        die(s, s.players[1], "killed")
        s.players[0].write({"role": "killer", "faction": "killers"})
        from tianshen.core.outbox import Messages

        return Messages().outcome(s)

    outcome = fold_sharing_players(fold, state, None)
    assert [(p.alive, p.role, p.died_in) for p in state.players] == [(True, "", None), (True, "", None)]
    assert [(p.alive, p.role, p.died_in, p.death_cause) for p in outcome.state.players] == [
        (True, "killer", None, None), (False, "", "night 2", "killed")]
