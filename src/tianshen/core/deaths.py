"""Deaths, written once (issue 24): `die` marks a player out and gives the typed event; the
outcome of every input lists the deaths it caused (`Outcome.deaths`, see Ruleset.apply).
What the players are told of a dead player's side is the ruleset's `public_identity`."""

from __future__ import annotations

from tianshen.core.model import Death, GameState, Player

__all__ = ["Death", "deaths_since", "die"]


def die(state: GameState, p: Player, cause: str) -> Death:
    """`p` leaves the game now, of `cause`."""
    p.alive, p.died_in, p.death_cause = False, state.phase.label, cause
    return Death(p.name, cause, state.phase.label)


def deaths_since(alive_before: list[bool], state: GameState) -> list[Death]:
    """The players alive before an input and dead after it, as events."""
    return [Death(p.name, p.death_cause or "", p.died_in or "")
            for p, was in zip(state.players, alive_before, strict=True) if was and not p.alive]
