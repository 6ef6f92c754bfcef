"""The 游戏十 night, resolved at its end in the order of DECISIONS §2.1.5 (seed 001 §2).

Pure: reads the submissions kept in `state.data["subs"]` (001 §2.11: a PM sent in the day
waits for the next night's end) and mutates `state` (a copy) only through the deaths and the
streaks it records.  Deaths are applied after everything is resolved (001 §3.4/§3.7: a
player killed tonight still acts tonight, DECISIONS §0.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tianshen.core.abilities import table
from tianshen.core.deaths import die
from tianshen.core.events import note
from tianshen.core.model import GameState, Player
from tianshen.core.protection import Protection
from tianshen.core.spec import RulesetSpec
from tianshen.rules.common.actions import declaration_ok, group_target, prayer_threshold
from tianshen.rules.common.roles import groups_holding, is_killer, living_commoners, members

# DECISIONS §2.1.8: simultaneous deaths are ordered killed > bound > implicated (then seat)
CAUSE_RANK = {"killed": 0, "bound": 1, "implicated": 2, "executed": 3, "no_vote": 4, "wasted": 5, "modkill": 6}


@dataclass
class Dawn:
    """What the night did; rendered into the dawn post (DECISIONS §2.1.9)."""

    deaths: list[tuple[str, str]] = field(default_factory=list)  # (name, cause), in rank order
    kill_target: str | None = None  # the killers' victim if the kill succeeded (declaration shown)
    declaration: dict | None = None
    saved_by_bind: list[str] = field(default_factory=list)
    revived: str | None = None  # 001 §2.7: the summoned player of the day
    net: dict[str, int] = field(default_factory=dict)  # curse/bless for the day's main vote
    skipped: bool = False
    one_hit: bool = False


def _alive(state: GameState, name: str | None) -> bool:
    return name is not None and state.player(name).alive


def _individual(spec: RulesetSpec, state: GameState, group: str) -> bool:
    """DECISIONS B10: an action is *individual* when its group has one living member; the
    killers' kill with 2+ living killers and two same-role professionals (B11) are joint."""
    return len(members(spec, state, group)) == 1


def resolve(spec: RulesetSpec, state: GameState, log: list[str]) -> Dawn:
    """DECISIONS §2.1.5 steps 0–6.  Step 7 (publish, conversion, win) is the ruleset's."""
    dawn = Dawn()
    opts = state.data["options"]
    killers = members(spec, state, "killers")

    # ---- 0. inputs -------------------------------------------------------------------
    target = group_target(spec, state, "kill", "killers") if killers else None
    decl = state.data["decl"].get("killers")
    if target is not None and not _alive(state, target):
        log.append(f"kill on {target}: the target is already dead, no kill")
        target = None
    if target is not None and not declaration_ok(spec, decl):
        # 001 §2.3: no valid declaration in time ⇒ 视为杀手主动放弃当夜杀人权力
        log.append(f"kill on {target}: no valid declaration, forfeited (001 §2.3)")
        target = None
    # B1/B2: a night without a valid kill is a skip; one-hit = previous night a skip and a
    # valid kill tonight (never on night 1, and two skips give one one-hit only)
    dawn.skipped = target is None and bool(killers)
    ohk = target is not None and bool(state.data.get("last_night_skipped")) and state.phase.number > 1
    dawn.one_hit = ohk
    if killers and (target is not None or opts.get("forfeit_counts_as_skip", True)):
        state.data["last_night_skipped"] = dawn.skipped
    note(log, f"kill: {target or 'none'}{' (一击必杀)' if ohk else ''}{' — a skip' if dawn.skipped else ''}",
         *(["one_hit_night"] if ohk else []), *(["skipped_kill"] if dawn.skipped else []))

    # ---- 1. the butterfly's partner: void list and mirror (001 §2.8) -----------------
    partner = group_target(spec, state, "dance", "butterfly") if members(spec, state, "butterfly") else None
    if partner is not None and (not _alive(state, partner) or state.player(partner).role == "butterfly"):
        partner = None  # the butterfly never dances with herself (001 §2.8)
    butterfly = next((p.name for p in members(spec, state, "butterfly")), None)
    log.append(f"butterfly's partner: {partner or 'none'}")

    def acted_on(verb: str, group: str) -> str | None:
        """The group's target, unless void: the partner's individual kill/束魂/诅咒/庇佑 fail
        and every action on the partner fails (001 §2.8; B27, B33, B37)."""
        t = group_target(spec, state, verb, group) if members(spec, state, group) else None
        if t is None or not _alive(state, t):
            return None
        if partner is not None:
            if partner in {m.name for m in members(spec, state, group)} and _individual(spec, state, group):
                log.append(f"{verb} by {group} on {t}: void (the actor dances with the butterfly)")
                return None
            if t == partner:
                log.append(f"{verb} by {group} on {t}: void (the target is the butterfly's partner)")
                return None
        return t

    def mirror(names: set[str]) -> set[str]:
        """Whatever is done to the butterfly is also done to her partner (001 §2.8)."""
        return names | {partner} if partner is not None and butterfly in names else names

    kill = target
    if kill is not None and partner is not None:
        # 001 §2.2: on a one-hit night the butterfly can't stop the kill (B30); whether the
        # one-hit kill on her partner goes through is `ohk_pierces_partner` (B32, default yes)
        on_partner = kill == partner and not (ohk and opts.get("ohk_pierces_partner", True))
        lone_dancer = {k.name for k in killers} == {partner} and not ohk
        if on_partner or lone_dancer:
            note(log, f"kill on {kill}: void by the butterfly", "butterfly_voided_kill")
            kill = None
    bound = acted_on("soulbind", "binder")  # 001 §2.4: the binder's (B4's streak is his)

    # ---- 2. prayer protection (001 §2.9, DECISIONS §2.1.4, B7, B8, B33) ----------------
    n = prayer_threshold(state)
    counts: dict[str, int] = {}
    for commoner in living_commoners(state):
        t = state.data["subs"].get("pray", {}).get(commoner.name)
        if t and _alive(state, t) and t != partner:
            counts[t] = counts.get(t, 0) + 1
    prot = mirror({t for t, c in counts.items() if n is not None and c >= n})
    log.append(f"prayer threshold n = {n} ({len(living_commoners(state))} commoners / {len(killers)} killers);"
               f" protected: {sorted(prot) or 'nobody'}")

    # ---- the protection layer (core.protection): every `protects = "bind"` guard, mirrored
    guard = Protection()
    for ability in table(spec).by_id.values():
        if ability.get("protects") != "bind":
            continue
        for group in groups_holding(spec, state, ability.roles):
            t = bound if (ability.id, group) == ("soulbind", "binder") else acted_on(ability.id, group)
            for x in sorted(mirror({t} if t else set())):
                guard.add("bind", group, x, ability.id)
    for x in sorted(prot):
        guard.add("prayer", "commoners", x, "pray")
    prot = guard.protected("prayer")

    # ---- 3. the kill ------------------------------------------------------------------
    dead: dict[str, str] = {}
    bound_set = guard.protected("bind")
    if kill is not None:
        victims = [(kill, "killed")] + ([(partner, "implicated")] if partner and kill == butterfly else [])
        for v, cause in victims:
            assert v is not None
            vp = state.player(v)
            if ohk and is_killer(vp) and opts.get("ohk_blocks_self_kill", True):
                survives, why = True, "a killer on a one-hit night (001 §2.2, B3)"
            elif ohk:
                survives, why = v in prot, "prayer against the one-hit kill (001 §2.2)"
            elif v in bound_set and (opts.get("bind_vs_prayer", "bind_first") == "bind_first" or v not in prot):
                survives, why = True, "bound (001 §2.4 束魂成功; B5 `bind_vs_prayer`)"
                if any(table(spec).by_id[g.ability].get("announce", True) for g in guard.of(v, "bind")):
                    dawn.saved_by_bind.append(v)
            else:
                survives, why = v in prot, "prayer (001 §2.9)"
            note(log, f"kill victim {v}: {'survives — ' + why if survives else 'dies'}",
                 *(["kill_survived"] if survives else []))
            if not survives:
                dead[v] = cause
        if kill in dead:
            dawn.kill_target, dawn.declaration = kill, decl

    # ---- 4. bind failure (001 §2.4, B4, B6, B9) -----------------------------------------
    streak = state.data["bind_streak"]
    if bound is None or bound == target:  # B4: "被杀手所杀" = the killers' chosen valid target
        streak.update(target=bound, nights=0)
    else:
        streak["nights"] = streak["nights"] + 1 if streak.get("target") == bound else 1
        streak["target"] = bound
        if streak["nights"] >= 2:
            streak["nights"] = 0  # it fires once; counting starts again (001 §2.2 "从头计算")
            note(log, f"bind failure on {bound}", "bind_failure")
            hit = [(bound, "bound")] + ([(partner, "implicated")] if partner and bound == butterfly else [])
            for v, cause in hit:
                assert v is not None
                if ohk and is_killer(state.player(v)):
                    note(log, f"  {v} is a killer on a one-hit night: immune (001 §2.2)", "killer_immune")
                elif v in prot:
                    note(log, f"  {v} is protected by prayer (B6)", "prayer_save")
                elif v not in dead:
                    dead[v] = cause

    # ---- 5. curse / bless for the day (001 §2.5–2.6, B27) -----------------------------------
    for verb, group, delta in (("curse", "curser", 1), ("bless", "blesser", -1)):
        t = acted_on(verb, group)
        for x in sorted(mirror({t} if t else set())):  # a set: sorted, so the log is the same every run
            dawn.net[x] = dawn.net.get(x, 0) + delta
    dawn.net = {x: v for x, v in dawn.net.items() if v}

    # ---- 6. summon (001 §2.7, DECISIONS §2.1.7, B15) ------------------------------------------
    if members(spec, state, "summoner") and state.data.get("summon_uses", 0) > 0:
        t = group_target(spec, state, "summon", "summoner")
        if t is not None and not state.player(t).alive:
            dawn.revived = t
            log.append(f"summoned for the day: {t}")

    # ---- deaths, in the order of DECISIONS §2.1.8 ----------------------------------------------
    for name, cause in sorted(dead.items(), key=lambda x: (CAUSE_RANK[x[1]], state.player(x[0]).seat)):
        p: Player = state.player(name)
        die(state, p, cause)
        dawn.deaths.append((name, cause))
    return dawn
