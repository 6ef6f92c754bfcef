"""Foods, statuses, HP arithmetic (003 §3, §4.1, §5; DECISIONS §4.1.2, D4–D7, D23–D25).

Everything numeric is data: `options.foods`, `options.statuses`, `options.hp` in the TOML.
A player's statuses are `{status id: remaining}`: days for day statuses (混乱, 醉酒, 麻痹,
免疫), nights for night statuses (腹泻, 攻击力增强, 防御力增强), None for those that never wear
off (中毒, 深度中毒, 迷失).  Every status starts at the dusk of the day the food was eaten
(003 §5.3.13).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FOREVER, DAYS, NIGHTS = "forever", "days", "nights"
POISONED, DEEP, LOST = "poisoned", "deep_poisoned", "lost"
CONFUSED, DRUNK, PARALYSED, IMMUNE = "confused", "drunk", "paralysed", "immune"
ATTACK_BOOST, DEFENCE_BOOST, DIARRHOEA = "attack_boost", "defence_boost", "diarrhoea"

Statuses = dict[str, int | None]


@dataclass(frozen=True)
class StatusInfo:
    id: str
    name: str
    bad: bool  # one of the 7 不良状态 (003 §5.3.8–5.3.9)
    unit: str  # forever | days | nights
    dawn_damage: int = 0  # 003 §3.1.4–3.1.6: lost at each dawn while held


@dataclass(frozen=True)
class Food:
    id: str
    name: str
    layer: int
    kind: str  # 正面效果 / 负面效果 / 双面效果 (the text's column)
    effect: str  # the text's 效果 column, for the PM
    heal: int = 0  # +HP, capped at the maximum
    full: bool = False  # HP back to the maximum
    restore: bool = False  # 回复正常状态 (003 §5.3.9)
    gives: dict[str, int] = field(default_factory=dict)  # status -> days/nights (0 = until restored)
    deepens: bool = False  # 刺猬刺参: poisoned → deeply poisoned (003 §5.3.2)


@dataclass(frozen=True)
class Catalogue:
    statuses: dict[str, StatusInfo]
    foods: dict[str, Food]
    hp: dict[str, int]

    def food(self, food_id: str) -> Food:
        return self.foods[food_id]

    def describe(self, statuses: Statuses, day_word: str = "天", night_word: str = "夜") -> str:
        """中毒、混乱（还剩2天）… — '' when none."""
        parts = []
        for sid, left in statuses.items():
            info = self.statuses[sid]
            if left is None:
                parts.append(info.name)
            else:
                parts.append(f"{info.name}（还剩{left}{day_word if info.unit == DAYS else night_word}）")
        return "、".join(parts)


def load(options: dict[str, Any]) -> Catalogue:
    statuses = {sid: StatusInfo(id=sid, **info) for sid, info in options["statuses"].items()}
    foods = {}
    for entry in options["foods"]:
        food = Food(**entry)
        unknown = set(food.gives) - set(statuses)
        if unknown:
            raise ValueError(f"food {food.id} gives unknown statuses {sorted(unknown)}")
        foods[food.id] = food
    hp = {k: int(v) for k, v in options["hp"].items()}
    return Catalogue(statuses, foods, hp)


# ---- night -----------------------------------------------------------------------------


def attack_damage(cat: Catalogue, attacker_hp: int, attacker: Statuses, target: Statuses) -> int:
    """003 §4.1, §5.3.10–5.3.12 (DECISIONS §4.1.2, D4): 10, +5 with the attack boost, +5 when
    the attacker has under 10 HP, −5 against the defence boost; kept within 5…20."""
    hp = cat.hp
    dmg = hp["attack"]
    if ATTACK_BOOST in attacker:
        dmg += hp["attack_boost"]
    if attacker_hp < hp["low_hp_below"]:
        dmg += hp["low_hp_boost"]
    if DEFENCE_BOOST in target:
        dmg -= hp["defence"]
    return max(hp["damage_min"], min(hp["damage_max"], dmg))


def dawn_loss(cat: Catalogue, statuses: Statuses) -> int:
    """003 §3.1.1, §3.1.4–3.1.6: hunger, plus poison, deep poison and diarrhoea."""
    return cat.hp["hunger"] + sum(cat.statuses[s].dawn_damage for s in statuses)


def end_of_night(cat: Catalogue, statuses: Statuses) -> None:
    """At dawn each night status has used up one night (腹泻 ends: "一夜过后就自动痊愈")."""
    _wear(cat, statuses, NIGHTS, set())


def end_of_day(cat: Catalogue, statuses: Statuses, fresh: set[str]) -> None:
    """At dusk each day status held today has used up one day; those begun at this dusk
    (`fresh`) start counting tomorrow (003 §5.3.13)."""
    _wear(cat, statuses, DAYS, fresh)


def _wear(cat: Catalogue, statuses: Statuses, unit: str, fresh: set[str]) -> None:
    for sid in list(statuses):
        left = statuses[sid]
        if cat.statuses[sid].unit != unit or left is None or sid in fresh:
            continue
        if left <= 1:
            del statuses[sid]
        else:
            statuses[sid] = left - 1


# ---- day -------------------------------------------------------------------------------


@dataclass
class Eaten:
    hp_before: int
    hp_after: int
    gained: list[str] = field(default_factory=list)  # statuses given
    blocked: list[str] = field(default_factory=list)  # bad statuses immunity kept off
    restored: list[str] = field(default_factory=list)  # bad statuses cleared
    fresh: set[str] = field(default_factory=set)


def eat(cat: Catalogue, hp: int, statuses: Statuses, food: Food) -> Eaten:
    """One food eaten today, applied at dusk (003 §4.3, §5.2, §5.3; DECISIONS §4.1.5 step 4,
    D7 `status_refresh = reset`, D24).  `statuses` are the player's statuses held today
    (immunity counts from an earlier dusk); they are changed in place."""
    top = cat.hp["max"]
    after = top if food.full else min(top, hp + food.heal)
    out = Eaten(hp, after)
    immune = IMMUNE in statuses
    for sid, length in food.gives.items():
        info = cat.statuses[sid]
        if info.bad and immune:  # 003 §5.3.8: 不管吃了什么食物，都不会陷入以上7种不良状态
            out.blocked.append(sid)
            continue
        if sid == POISONED and POISONED in statuses:
            if food.deepens and DEEP not in statuses:  # 003 §5.3.2
                statuses[DEEP] = None
                out.gained.append(DEEP)
            continue  # 003 §5.3.12: other poison foods add nothing to the poisoned
        statuses[sid] = None if info.unit == FOREVER or length == 0 else length
        out.gained.append(sid)
        out.fresh.add(sid)
    if food.restore:  # 003 §5.3.9: the 7 bad statuses go; immunity and boosts stay
        for sid in list(statuses):
            if cat.statuses[sid].bad:
                del statuses[sid]
                out.restored.append(sid)
    return out
