"""Roles, powers and groups of the classic rules (seed 002, DECISIONS §3.1.1 and §3.1.3).

A *group* is the entity that acts: two killers who kill jointly, the 13-player pair of
diviners or binders, or a single player.  Members of a group each submit; the group's
action is their common target, and a disagreement forfeits it (002 "无法…达成一致，视为放弃").
"""

from __future__ import annotations

from tianshen.core.model import GameState, Player

KILLERS = "killers"
CIVILIANS = "civilians"

# role id -> the night power's verb (core.grammar)
POWER = {
    "killer": "kill",
    "independent_killer": "kill",
    "diviner": "divine",
    "binder": "soulbind",
    "curser": "curse",
    "blesser": "bless",
    "commoner": "pray",
}
KILLER_ROLES = ("killer", "independent_killer")


def is_killer(p: Player) -> bool:
    return p.faction == KILLERS


def living_killers(state: GameState) -> list[Player]:
    return [p for p in state.players if p.alive and is_killer(p)]


def living_civilians(state: GameState) -> list[Player]:
    return [p for p in state.players if p.alive and not is_killer(p)]


def living_commoners(state: GameState) -> list[Player]:
    return [p for p in state.players if p.alive and p.role == "commoner"]


def killer_mode(state: GameState) -> str:
    """'alternate' (8p), 'joint' (10p) or 'allied_independent' (13p) — 002 杀手."""
    return state.data["options"]["killer_mode"]


def on_duty_killer(state: GameState, night: int) -> str | None:
    """8p: the two killers take turns, A on odd nights, B on even (002 8人玩法, C16);
    when one has died the survivor kills every night (C4, `8p_survivor = every_night`)."""
    order = state.data["duty_order"]
    alive = [n for n in order if state.player(n).alive]
    if len(alive) == 2:
        return order[(night - 1) % 2]
    if len(alive) == 1 and state.data["options"].get("survivor_every_night", True):
        return alive[0]
    return None


def group_of(state: GameState, p: Player) -> str | None:
    """The acting entity of a player's power."""
    verb = POWER.get(p.role)
    if verb is None:
        return None
    if verb == "kill":
        mode = killer_mode(state)
        if mode == "alternate":
            return f"killer:{p.name}"
        if mode == "allied_independent":
            return "independent" if p.role == "independent_killer" else "allied"
        return "killers"
    if verb == "pray":
        return f"commoner:{p.name}"
    return p.role  # diviner / binder / curser / blesser: one entity per role


def members(state: GameState, group: str) -> list[Player]:
    return [p for p in state.players if p.alive and group_of(state, p) == group]


def partners(state: GameState, p: Player) -> list[Player]:
    group = group_of(state, p)
    if group is None or group.startswith(("killer:", "commoner:")):
        return []
    return [q for q in state.players if q.name != p.name and group_of(state, q) == group]
