"""Role ids, factions and PM verbs of seed 004 (一)."""

from __future__ import annotations

from typing import Any

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


def winner(opts: dict[str, Any], state: GameState) -> str | None:
    """三 with DECISIONS E8 (at most 5 alive), the independents' priority, E9 (draw)."""
    alive = living(state)
    threshold = int(opts.get("indep_threshold", 5))
    few = len(alive) == threshold if opts.get("indep_threshold_mode", "le") == "eq" else len(alive) <= threshold
    if few and any(p.faction == INDEPENDENTS for p in alive):
        return INDEPENDENTS  # 三 独立方胜利优先
    good = not any(is_killer(p) for p in alive)
    specials = [p for p in state.players if p.role in ("police", "sniper", "doctor")]
    villagers = [p for p in state.players if p.role == "villager"]
    killers = not any(p.alive for p in specials) or not any(p.alive for p in villagers)
    if good and killers:
        return str(opts.get("simultaneous", DRAW))
    return GOOD if good else KILLERS if killers else None
