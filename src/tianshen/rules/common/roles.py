"""Roles, powers and groups of the 001/002 family (seed 002 and DECISIONS §3.1.1/§3.1.3;
seed 001 §2 and DECISIONS §2.1.1/§2.1.3 for 蝴蝶夫人 and 招魂).

A *group* is the entity that acts: two killers who kill jointly, the 13-player pair of
diviners or binders, or a single player.  Members of a group each submit; the group's
action is their common target, and a disagreement forfeits it (002 "无法…达成一致，视为放弃").
"""

from __future__ import annotations

from tianshen.core.abilities import table
from tianshen.core.model import GameState, Player, peek
from tianshen.core.spec import RulesetSpec

KILLERS = "killers"
CIVILIANS = "civilians"

KILLER_ROLES = ("killer", "independent_killer")


def is_killer(p: Player) -> bool:
    return p.faction == KILLERS


def living_killers(state: GameState) -> list[Player]:
    return [p for p in state.players if p.alive and p.faction == KILLERS]  # (is_killer, inline)


def living_civilians(state: GameState) -> list[Player]:
    return [p for p in state.players if p.alive and p.faction != KILLERS]


def living_commoners(state: GameState) -> list[Player]:
    return [p for p in state.players if p.alive and p.role == "commoner"]


def killer_mode(state: GameState) -> str:
    """'alternate' (8p), 'joint' (10p) or 'allied_independent' (13p) — 002 杀手."""
    return str(dict.__getitem__(state.data, "options").get("killer_mode", "joint"))  # read only: not copied


def on_duty_killer(state: GameState, night: int) -> str | None:
    """8p: the two killers take turns, A on odd nights, B on even (002 8人玩法, C16);
    when one has died the survivor kills every night (C4, `8p_survivor = every_night`)."""
    order = peek(state.data, "duty_order")  # read only: not `apply`'s copy (every kill asks)
    alive = [n for n in order if state.player(n).alive]
    if len(alive) == 2:
        return order[(night - 1) % 2]
    if len(alive) == 1 and peek(state.data, "options").get("survivor_every_night", True):
        return alive[0]
    return None


def _group_kinds(spec: RulesetSpec) -> dict[str, str]:
    """Each role's group kind (its first ability's `group`), read once per spec."""
    found = table(spec)
    return {role: ability.group for role in spec.roles if (ability := found.first(role)) is not None}


def groups(spec: RulesetSpec, state: GameState) -> dict[str, str | None]:
    """Each player's acting group by name (None: no power), worked out once while the roles
    stay as they are (`GameState.facts`, forgotten by `roles_changed`; the killer mode is
    the game's option, fixed at the deal)."""
    found = state.facts.get("groups")
    if found is None:
        found = _work_out(spec, state)["groups"]
    return found  # type: ignore[no-any-return]


def _work_out(spec: RulesetSpec, state: GameState) -> dict:
    """The groups, each group's seats and each seat's partners' seats, in one pass over the
    players (`GameState.facts`: each is asked in every game, the groups first or not)."""
    kinds = spec.derived("roles.group_kind", _group_kinds)
    mode = killer_mode(state) if "faction" in kinds.values() else None  # (read once, where it counts)
    of: dict[str, str | None] = {}
    seats: dict[str | None, list[int]] = {}
    for i, p in enumerate(state.players):
        of[p.name] = group = _group(kinds.get(p.role), state, p, mode)
        seats.setdefault(group, []).append(i)
    partner_seats: dict[str, tuple[int, ...]] = {}
    for i, p in enumerate(state.players):
        shared = seats[group := of[name := p.name]]
        alone = len(shared) == 1 or group is None or group.endswith(":" + name)
        partner_seats[name] = () if alone else tuple([j for j in shared if j != i])
    facts = state.facts
    facts["groups"] = of
    facts["group_seats"] = {group: tuple(idx) for group, idx in seats.items()}
    facts["partner_seats"] = partner_seats
    return facts


def group_of(spec: RulesetSpec, state: GameState, p: Player) -> str | None:
    """The acting entity of a player's power: its ability's group (core.abilities)."""
    of = groups(spec, state)
    return of[p.name] if p.name in of else _group(spec.derived("roles.group_kind", _group_kinds).get(p.role), state, p)


def _group(kind: str | None, state: GameState, p: Player, mode: str | None = None) -> str | None:
    """The group of a player whose role's group kind is `kind` (`mode`: the killer mode when read)."""
    if kind is None:
        return None
    if kind == "faction":
        mode = mode or killer_mode(state)
        if mode == "alternate":
            return f"{p.role}:{p.name}"
        if mode == "allied_independent":
            return "independent" if p.role == "independent_killer" else "allied"
        return p.faction
    if kind == "own":
        return f"{p.role}:{p.name}"
    # one entity per role, so two holders of a role (002 13p, 001 §2.10 after a conversion,
    # DECISIONS B11) act jointly
    return p.role


def acts_alone(spec: RulesetSpec, state: GameState, p: Player) -> bool:
    group = group_of(spec, state, p)
    return group is None or group.endswith(":" + p.name)


def _seats_of(spec: RulesetSpec, state: GameState) -> dict[str | None, tuple[int, ...]]:
    """Each acting group's seats (indices into `state.players`, whose order never changes),
    worked out with the groups (`GameState.facts`): not the players themselves, which
    `apply` may give the next state as copies."""
    found = state.facts.get("group_seats")
    if found is None:
        found = _work_out(spec, state)["group_seats"]
    return found  # type: ignore[no-any-return]


def members(spec: RulesetSpec, state: GameState, group: str) -> list[Player]:
    players = state.players
    return [p for i in _seats_of(spec, state).get(group, ()) if (p := players[i]).alive]


def partners(spec: RulesetSpec, state: GameState, p: Player) -> list[Player]:
    """The other members of the player's acting group, dead or alive (none when he acts
    alone): each seat's partners' seats worked out once with the groups (`GameState.facts`:
    every power PM tells the partners)."""
    found = state.facts.get("partner_seats")
    if found is None:
        found = _work_out(spec, state)["partner_seats"]
    seats = found[p.name]
    # (most seats have none; a map, not a comprehension: no function and cell made a call)
    return list(map(state.players.__getitem__, seats)) if seats else []


def groups_holding(spec: RulesetSpec, state: GameState, roles: tuple[str, ...]) -> tuple[str, ...]:
    """The acting groups of the holders of an ability (its `roles`), in seat order, dead
    holders included: worked out once for each `roles` while the roles stay as they are
    (`GameState.facts`, dropped by `roles_changed`: every dawn asks twice per guard)."""
    facts = state.facts
    held = facts.get("holding")
    if held is None:
        held = facts["holding"] = {}
    found = held.get(roles)
    if found is None:
        found = held[roles] = _holding(spec, state, roles)
    return found  # type: ignore[no-any-return]


def _holding(spec: RulesetSpec, state: GameState, roles: tuple[str, ...]) -> tuple[str, ...]:
    """`groups_holding` worked out (apart: its generator's three cells are not made at every read)."""
    of = groups(spec, state)
    return tuple(dict.fromkeys(g for p in state.players if p.role in roles and (g := of[p.name]) is not None))


def winner(state: GameState, tie_holders: tuple[str, ...]) -> str | None:
    """001 §7 (DECISIONS §2.1.10; 002 borrows it, §3.1.7).  When both sides' conditions
    hold at one announcement, `simultaneous_win` decides: civilians (B36, default),
    killers, or a draw."""
    killers = civilians = commoners = 0  # the living, counted in one pass
    for p in state.players:
        if p.alive:
            if p.faction == KILLERS:
                killers += 1
            else:
                civilians += 1
            if p.role == "commoner":
                commoners += 1
    if not killers:
        if not commoners:  # 001 §7.1 and §7.2.3 at once (B36)
            return str(state.data["options"].get("simultaneous_win", CIVILIANS))
        return CIVILIANS  # 001 §7.1 杀手全灭 (converted killers included)
    if killers > civilians:
        return KILLERS  # 001 §7.2.1
    if killers == civilians and not _holder_alive(state, tie_holders):
        return KILLERS  # 001 §7.2.2 (B14: every current holder, converted ones included)
    if not commoners:
        return KILLERS  # 001 §7.2.3 (converted commoners are no longer commoners)
    return None


def _holder_alive(state: GameState, roles: tuple[str, ...]) -> bool:
    """Whether a living player holds one of `roles` (a loop: no generator, no cell)."""
    for p in state.players:
        if p.alive and p.role in roles:
            return True
    return False
