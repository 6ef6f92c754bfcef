"""Who wins 猫有n条命 (§10, DECISIONS 1.1.10, A10, A30, A31).

A side wins when every living player belongs to it: the killers' side is the killer plus a
self-chooser who joined him to win together (共赢), likewise the werewolves'; the civilians'
side includes a self-chooser who chose it; a self-chooser playing 一山不容二虎 is a side of his
own.  Members share the win alive or dead (§10.1–10.4).
"""

from __future__ import annotations

from typing import Any

from tianshen.core.model import GameState, Player
from tianshen.rules.n_lives import cards

ATTACK_CARDS = ("killer", "werewolf", "sniper")


def side(p: Player) -> str:
    """The winning side a player plays for: a faction id, or "solo"."""
    if p.role == "chooser" and p.extra.get("mode") == "solo":
        return "solo"
    return "civilians" if p.faction == "chooser" else p.faction


def winner(state: GameState, options: dict[str, Any]) -> str | None:
    living = [p for p in state.players if p.alive]
    if not living:
        return "draw"  # §10.5 所有游戏者都死亡
    sides = {side(p) for p in living}
    if len(sides) == 1:
        return sides.pop()
    pending = any(p.extra.get("escrow") for p in living)  # decided at dawn (A15): no draw yet
    if len(living) == 2 and not pending and str(options.get("two_player_draw", "author_rule")) == "author_rule":
        if not any(can_attack(state, p) for p in living):
            return "draw"  # §10.5 剩下两名无法让对方出局的游戏者 (A30)
    cycles = int(options.get("stalemate_cycles", 3))
    if cycles and state.data.get("quiet", 0) >= 2 * cycles:
        return "draw"  # A30 safety valve: no card lost for `cycles` nights and days
    return None


def can_attack(state: GameState, p: Player) -> bool:
    """A30: holds a card whose attack he may use (a co-win self-chooser may use none)."""
    if p.role == "chooser" and p.extra.get("mode") == "cowin":
        return False
    for c in cards.hand(p):
        ctype = cards.card_type(state, c)
        if ctype in ATTACK_CARDS or (ctype == "bisha" and c not in state.data["bisha_used"]):
            return True
    return False


def members(state: GameState, won: str) -> list[str]:
    """Who shares the win: every member of the side, alive or dead (§10.1–10.4)."""
    if won == "solo":
        return [p.name for p in state.players if side(p) == "solo" and p.alive]
    return [p.name for p in state.players if side(p) == won]


def draw_factions(state: GameState) -> list[str]:
    """A31: the sides with a member alive at the start of the phase that ended in a draw
    (those alive then are those who lost a card in it or are still alive)."""
    found: list[str] = []
    for p in state.players:
        if (p.alive or p.died_in == state.phase.label) and side(p) not in found:
            found.append(side(p))
    return found
