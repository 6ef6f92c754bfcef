"""The day's moves and digs, resolved at dusk (003 §4.2–4.4, §5.1; DECISIONS §4.1.5, D8, D9,
D11, D12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tianshen.core import activity
from tianshen.core.events import note
from tianshen.core.model import GameState, Player, PostIn
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.rules.hex_survival import food as foods
from tianshen.rules.hex_survival.food import Catalogue, Eaten
from tianshen.rules.hex_survival.hexmap import HexMap

DRAW = "draw"  # 003 D19: both camps wiped out at once

LAYERS = 3  # 003 §5.1: 地图在地下分为3层


def forced_action(hexmap: HexMap, p: Player) -> dict[str, Any] | None:
    """003 §4.2/§4.3 混乱: the previous day's action again — a dig, or a move in the same
    direction (D8); impossible (drunk, paralysed, no such neighbour) → nothing, and that
    nothing is what a second confused day repeats."""
    last = p.extra.get("last_action")
    if not last:
        return None
    held = p.extra["statuses"]
    if last["kind"] == "dig":
        return None if foods.DRUNK in held else {"kind": "dig"}
    if foods.PARALYSED in held:
        return None
    to = hexmap.step(p.extra["cell"], int(last["offset"]))
    return {"kind": "move", "to": to, "offset": last["offset"]} if hexmap.adjacent(p.extra["cell"], to) else None


def chosen_action(hexmap: HexMap, p: Player, sent: dict[str, Any] | None) -> dict[str, Any] | None:
    """The action the player sent (the latest valid one, D12), checked again at dusk."""
    if sent is None:
        return None
    held = p.extra["statuses"]
    if sent["kind"] == "dig":
        return None if foods.DRUNK in held else {"kind": "dig"}
    if foods.PARALYSED in held or not hexmap.adjacent(p.extra["cell"], sent["to"]):
        return None
    return {"kind": "move", "to": sent["to"], "offset": hexmap.offset(p.extra["cell"], sent["to"])}


@dataclass
class Dusk:
    actions: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    dug: dict[str, tuple[str, int, str | None]] = field(default_factory=dict)  # player -> (cell, layer, food)
    eaten: dict[str, Eaten] = field(default_factory=dict)
    fresh: dict[str, set[str]] = field(default_factory=dict)
    forced: set[str] = field(default_factory=set)  # confused: the action was not his choice


def resolve(cat: Catalogue, hexmap: HexMap, state: GameState, sent: dict[str, dict[str, Any]],
            log: list[str]) -> Dusk:
    """DECISIONS §4.1.5 steps 2–4: actions, digging one layer per cell whoever digs (§5.1),
    the food eaten by all of that cell's diggers (§4.3), moves done at day end (§4.2)."""
    dusk = Dusk()
    alive = [p for p in state.players if p.alive]
    for p in alive:
        if foods.CONFUSED in p.extra["statuses"]:
            act = forced_action(hexmap, p)
            dusk.forced.add(p.name)
        else:
            act = chosen_action(hexmap, p, sent.get(p.name))
        dusk.actions[p.name] = act
        p.extra["last_action"] = ({"kind": "dig"} if act and act["kind"] == "dig"
                                  else {"kind": "move", "offset": act["offset"]} if act else None)
    diggers: dict[str, list[Player]] = {}
    for p in alive:
        if (dusk.actions[p.name] or {}).get("kind") == "dig":
            diggers.setdefault(p.extra["cell"], []).append(p)
    for cell, group in diggers.items():
        depth = state.data["depth"][cell] + 1
        state.data["depth"][cell] = depth
        item = state.data["buried"][cell][depth - 1] if depth <= LAYERS else None
        if item is not None:
            state.data["buried"][cell][depth - 1] = None
        note(log, f"dig {cell} layer {depth} by {[p.name for p in group]}: {item}", "dig")
        for p in group:
            dusk.dug[p.name] = (cell, depth, item)
            if item is not None:
                eaten = foods.eat(cat, int(p.extra["hp"]), p.extra["statuses"], cat.food(item))
                p.extra["hp"] = eaten.hp_after
                dusk.eaten[p.name] = eaten
                dusk.fresh[p.name] = eaten.fresh
    for p in alive:
        act = dusk.actions[p.name]
        if act and act["kind"] == "move":
            p.extra["cell"] = act["to"]
    return dusk


def bury(state: GameState, cat: Catalogue, cells: tuple[str, ...], copies: int,
         shuffle: Any) -> dict[str, list[str | None]]:
    """003 §5.1, DECISIONS D10: each food `copies` times (两件), in its own layer; a uniform
    permutation of each layer's items (and empty slots) over the 16 cells."""
    buried: dict[str, list[str | None]] = {c: [None] * LAYERS for c in cells}
    for layer in range(1, LAYERS + 1):
        items: list[str | None] = [f.id for f in cat.foods.values() if f.layer == layer for _ in range(copies)]
        if len(items) > len(cells):
            raise ValueError(f"layer {layer} has {len(items)} foods for {len(cells)} cells")
        items += [None] * (len(cells) - len(items))
        for cell, item in zip(cells, shuffle(state, items), strict=True):
            buried[cell][layer - 1] = item
    return buried


# ---- the win (003 §11) and what the dead and the silence may post (§8.2–8.4) ----------------


def winner(spec: RulesetSpec, state: GameState) -> str | None:
    """§11.1 a camp wiped out, §11.2 a camp with fewer than half the other's living
    members: the other camp wins; both wiped out at once: a draw (D19)."""
    living = {f: sum(1 for p in state.players if p.alive and p.faction == f) for f in spec.factions}
    if not any(living.values()):
        return DRAW
    for camp, n in living.items():
        others = [m for f, m in living.items() if f != camp]
        if others and (n == 0 or 2 * n < max(others)):
            return next(f for f, m in living.items() if f != camp and m == max(others))
    return None


def watch(spec: RulesetSpec, state: GameState, post: PostIn, out: Messages) -> None:
    p = state.find(post.author)
    if state.phase.kind == "over":
        return
    if p is not None and p.alive:
        if rule := activity.quota(spec.options):
            activity.record(state, post, rule[1])
        return
    if p is not None and _in_will_window(state, p) and not post.thread.startswith("vote:"):
        return  # §8.2 遗言, and §8.4: the will day is free of the silence
    text = " ".join(post.text.split())[:40]
    who = p.name if p else post.author
    if state.data.get("silence"):
        out.notes.append(spec.text("note_silence_post", name=who, thread=post.thread, text=text))
    elif p is not None and len(post.text) >= int(spec.options.get("zombie_long_chars", 200)):
        if not (state.phase.label == "day 1" and p.died_in == "night 1"):  # §8.3 first-night victims
            out.notes.append(spec.text("note_zombie_post", name=who, thread=post.thread, text=text))


def _in_will_window(state: GameState, p: Player) -> bool:
    """§8.2: a will in the period after the death (dawn death → that day; dusk death → that night)."""
    if not p.died_in:
        return False
    kind, n = p.died_in.split()
    nxt = f"day {n}" if kind == "night" else f"night {int(n) + 1}"
    return state.phase.label == nxt
