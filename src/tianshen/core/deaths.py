"""Deaths, written once (issue 24): `die` marks a player out; the outcome of every input
lists the deaths it caused (`Outcome.deaths`, from the `alive` writes: see Ruleset.apply).
What the players are told of a dead player's side is the ruleset's `public_identity`."""

from __future__ import annotations

from tianshen.core.model import Death, GameState, Player

__all__ = ["Death", "deaths_since", "die"]


def die(state: GameState, p: Player, cause: str) -> None:
    """`p` leaves the game now, of `cause` (the fold's outcome lists the death: `Outcome.deaths`,
    from the `alive` writes)."""
    p.write({"alive": False, "died_in": state.phase.label, "death_cause": cause})


def deaths_since(alive_before: list[bool], state: GameState) -> list[Death]:
    """The players alive before an input and dead after it, as events."""
    return [Death(p.name, p.death_cause or "", p.died_in or "")
            for p, was in zip(state.players, alive_before, strict=True) if was and not p.alive]
