"""Nightfall and dawn (003 §4.1, §3.1, §6; DECISIONS §4.1.4, D4, D5, D20–D22)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tianshen.core.events import note
from tianshen.core.model import GameState, Player
from tianshen.rules.hex_survival import food as foods
from tianshen.rules.hex_survival.food import Catalogue
from tianshen.rules.hex_survival.hexmap import HexMap


def hp(p: Player) -> int:
    return int(p.extra["hp"])


def statuses(p: Player) -> foods.Statuses:
    return p.extra["statuses"]


def attack_list(hexmap: HexMap, state: GameState, p: Player) -> list[str]:
    """003 §4.1: the living players in his own cell and the six around it, himself included
    (self-attack is allowed, D21), in seat order; names only."""
    reach = hexmap.reach(p.extra["cell"])
    return [q.name for q in state.players if q.alive and q.extra["cell"] in reach]


@dataclass
class Dawn:
    damage: dict[str, int] = field(default_factory=dict)  # target -> total attack damage (D20)
    hits: dict[str, list[int]] = field(default_factory=dict)  # target -> each hit (per_hit report)
    loss: dict[str, int] = field(default_factory=dict)  # player -> HP lost this dawn, all causes
    deaths: list[str] = field(default_factory=list)


def resolve(cat: Catalogue, state: GameState, attacks: dict[str, str], log: list[str]) -> Dawn:
    """DECISIONS §4.1.4: every attack with the statuses and HP of the last dusk, then hunger,
    poison and diarrhoea, all at once; deaths at 0; night statuses wear one night."""
    dawn = Dawn()
    for attacker, target in attacks.items():
        a, t = state.player(attacker), state.player(target)
        if not a.alive or not t.alive or foods.LOST in statuses(a):
            continue  # cannot happen after intake checks; kept for GM-entered data
        dmg = foods.attack_damage(cat, hp(a), statuses(a), statuses(t))
        dawn.hits.setdefault(target, []).append(dmg)
        dawn.damage[target] = dawn.damage.get(target, 0) + dmg
        note(log, f"{attacker} attacks {target}: {dmg}", "attack")
    for p in state.players:
        if not p.alive:
            continue
        loss = foods.dawn_loss(cat, statuses(p)) + dawn.damage.get(p.name, 0)
        p.extra["hp"] = max(0, hp(p) - loss)
        dawn.loss[p.name] = loss
        if hp(p) == 0:  # 003 §6.1, D27: 降为0 = dead
            dawn.deaths.append(p.name)
        foods.end_of_night(cat, statuses(p))
    return dawn
