"""hex_survival's actions by PM and what a day's dusk tells each player (003 §2, §3.1.3, §4,
§5.3, §6.5): the attack of the night, the move or dig of the day (their windows and roles are
core's one check, core.abilities), the food line of the dusk PM, the punishment, the start
positions and the published map.
"""

from __future__ import annotations

from typing import Any

from tianshen.core import intake, rng
from tianshen.core.grammar import Command
from tianshen.core.model import GameState, Player, peek, put
from tianshen.core.names import NameMatchError, match_name
from tianshen.core.spec import Lines, RulesetSpec, Text
from tianshen.rules.hex_survival import day as days
from tianshen.rules.hex_survival import food as foods
from tianshen.rules.hex_survival.food import Catalogue
from tianshen.rules.hex_survival.hexmap import HexMap

Refused = intake.Refused


def attack(spec: RulesetSpec, state: GameState, p: Player, written: str) -> str:
    """003 §4.1: one attack a night, on a name of tonight's list (self allowed), none while
    迷失 (§5.3.5, D25); the latest PM before dawn counts."""
    # looked at through `peek`, the attack written with `put` (issue 37: `apply` copies nothing whole)
    if foods.LOST in peek(p.extra, "statuses"):
        raise Refused(spec.text("attack_lost"))
    if not written:
        raise Refused(spec.text("attack_no_name"))
    target = _name(state, written)
    in_range = peek(p.extra, "range", [])
    if target not in in_range or not state.player(target).alive:
        raise Refused(spec.text("attack_out_of_range", name=target, names="、".join(in_range)))
    before = peek(state.data, "night")["attacks"].get(p.name)
    put(state.data, ("night", "attacks"), p.name, target)
    line = spec.text("attack_taken", name=target)
    return line + (spec.text("replaces", before=before) if before and before != target else "")


def day_action(spec: RulesetSpec, hmap: HexMap, state: GameState, p: Player, cmd: Command) -> str:
    """003 §4.2–4.4: a move to a neighbouring cell or a dig in one's own cell, not both
    (the latest valid PM counts, D12); paralysis forbids moving, drunkenness digging,
    confusion any choice (§5.3.4, 5.3.6, 5.3.7)."""
    held, cell = peek(p.extra, "statuses"), p.extra["cell"]  # looked at; the action written with `put`
    if foods.CONFUSED in held:
        raise Refused(spec.text("action_confused"))
    before = peek(state.data, "day")["actions"].get(p.name)
    if cmd.verb == "dig":
        named = hmap.cell(cmd.arg) if cmd.arg else None
        if named is not None and named != cell:
            raise Refused(spec.text("dig_elsewhere", cell=cell))
        if foods.DRUNK in held:
            raise Refused(spec.text("dig_drunk"))
        action: dict[str, Any] = {"kind": "dig"}
        line = spec.text("dig_taken", cell=cell)
    else:
        to = hmap.cell(cmd.arg)
        if to is None:
            raise Refused(spec.text("move_no_cell", neighbours=" ".join(hmap.neighbours[cell]), cell=cell))
        if not hmap.adjacent(cell, to):
            raise Refused(spec.text("move_not_adjacent", to=to, cell=cell,
                                    neighbours=" ".join(hmap.neighbours[cell])))
        if foods.PARALYSED in held:
            raise Refused(spec.text("move_paralysed"))
        action = {"kind": "move", "to": to}
        line = spec.text("move_taken", to=to)
    put(state.data, ("day", "actions"), p.name, action)
    if before and before != action:
        line += spec.text("replaces", before=action_text(spec, before))
    return line


def action_text(spec: RulesetSpec, action: dict[str, Any]) -> str:
    return spec.text("act_dig") if action["kind"] == "dig" else spec.text("act_move", to=action["to"])


def _name(state: GameState, written: str) -> str:
    try:
        return match_name(written, [q.name for q in state.players])
    except NameMatchError as exc:
        raise Refused(str(exc)) from None


def food_line(spec: RulesetSpec, catalogue: Catalogue, p: Player, dusk: days.Dusk) -> Lines:
    """003 §5.3.13, §6.5: what he dug today (never whether others ate with him, D26);
    rendered when read."""
    act = dusk.actions.get(p.name)
    forced = spec.text("food_forced") if p.name in dusk.forced else ""
    if p.name not in dusk.dug:
        if act and act["kind"] == "move":
            return Lines("", [spec.later("food_moved", cell=act["to"]), forced])
        return Lines("", [spec.text("food_no_action"), forced])
    cell, layer, item = dusk.dug[p.name]
    if item is None:
        return Lines("", [spec.later("food_nothing", cell=cell), forced])
    food, eaten = catalogue.food(item), dusk.eaten[p.name]
    parts: list[str | Text | Lines] = [spec.later("food_ate", cell=cell, food=food.name, effect=food.effect)]
    if eaten.hp_after != eaten.hp_before:
        parts.append(spec.later("food_hp", before=eaten.hp_before, after=eaten.hp_after))
    if eaten.blocked:
        parts.append(spec.later("food_blocked", statuses="、".join(catalogue.statuses[s].name for s in eaten.blocked)))
    if eaten.restored:
        parts.append(spec.later("food_restored", statuses="、".join(catalogue.statuses[s].name
                                                                   for s in eaten.restored)))
    return Lines("", [*parts, forced])


def punish(food: Catalogue, state: GameState, punished: list[str]) -> list[str]:
    """003 §3.1.3: −10 at dusk for each punished player; returns those now at 0."""
    for name in punished:
        p = state.player(name)
        p.extra["hp"] = max(0, int(p.extra["hp"]) - food.hp["punish"])
    return [n for n in punished if int(state.player(n).extra["hp"]) == 0]


def place(spec: RulesetSpec, hmap: HexMap, state: GameState, fixed: dict[str, str]) -> None:
    """003 §2: 随机分布; DECISIONS D3 `initial_distinct = true`: one player per cell."""
    distinct = bool(spec.options.get("initial_distinct", True))
    for name, cell in fixed.items():
        if state.find(name) is None or hmap.cell(cell) is None:
            raise ValueError(f"fixed cell '{cell}' for '{name}' is not on the map / not a player")
    taken = [hmap.cell(c) for c in fixed.values()]  # fixed by the GM: may share a cell
    free = [c for c in hmap.cells if not (distinct and c in taken)]
    order = rng.shuffled(state, free)
    for p in state.players:
        if p.name in fixed:
            p.extra["cell"] = hmap.cell(fixed[p.name])
        else:
            p.extra["cell"] = order.pop(0) if distinct else rng.choice(state, free)


def map_table(spec: RulesetSpec, hmap: HexMap) -> Lines:
    """DECISIONS D1: the full adjacency is published at the start (rendered when read)."""
    return Lines("\n", [spec.later("map_line", cell=c, neighbours=" ".join(hmap.neighbours[c])) for c in hmap.cells])
