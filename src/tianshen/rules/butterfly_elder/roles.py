"""Role ids, factions and PM verbs of seed 004 (一)."""

from __future__ import annotations

from tianshen.core.abilities import Ability
from tianshen.core.model import GameState, Player

KILLERS, GOOD, INDEPENDENTS = "killers", "good", "independents"
DRAW = "draw"

def slot_of(ability: Ability) -> str:
    """The action slot an ability fills, one per slot a round."""
    return str(ability.get("slot", ability.id))


def holder(state: GameState, role: str) -> Player | None:
    """The one player of a single-holder role (police, sniper, doctor, butterfly, elder)."""
    return next((p for p in state.players if p.role == role), None)


def is_killer(p: Player) -> bool:
    return p.role == "killer"


def living(state: GameState) -> list[Player]:
    return [p for p in state.players if p.alive]
