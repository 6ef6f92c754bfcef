"""The end of a night of 猫有n条命, in the order of DECISIONS 1.1.7.

Everything sent for the night resolves at one instant (§5.5 "在夜晚使用权力，都要到这一夜结束时
才能产生效果"; DECISIONS §0.2): a player who loses his last card tonight still acts tonight.
The function reads the night's actions from `state.data["actions"]` and changes hands,
escrows and streaks; what is announced is returned as a `Dawn`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tianshen.core.events import note
from tianshen.core.model import GameState
from tianshen.core.protection import EVERYONE, Protection
from tianshen.core.spec import RulesetSpec
from tianshen.rules.n_lives import cards
from tianshen.rules.n_lives.abilities import (
    BY_KILLER_CARD,
    BY_SNIPER_CARD,
    BY_WEREWOLF_CARD,
    DECEPTIONS,
    INVESTIGATIONS,
    MODIFIERS,
    Ability,
    abilities,
    jailable,
)

Action = dict[str, Any]


@dataclass
class Dawn:
    lost: dict[str, list[str]] = field(default_factory=dict)  # name -> cards lost tonight (final)
    declarations: list[str] = field(default_factory=list)  # of attacks that removed a card (§0.4)
    saved: list[str] = field(default_factory=list)  # successful 束魂/巫医 targets: no vote today
    pardoned: list[str] = field(default_factory=list)
    escrow_final: list[tuple[str, str]] = field(default_factory=list)  # (name, card)
    answers: list[tuple[str, str, str, bool]] = field(default_factory=list)  # actor, ability, target, yes
    void: list[int] = field(default_factory=list)  # seq of actions voided by 禁锢 (for the log)


def resolve(spec: RulesetSpec, state: GameState, log: list[str]) -> Dawn:
    table = abilities(spec)
    acts: list[Action] = sorted(state.data["actions"], key=lambda a: a["seq"])
    dawn = Dawn()
    jailed, undecided = jail_labels(acts)
    live = []
    for a in acts:
        if a["actor"] in jailed and jailable(table[a["ability"]]):
            dawn.void.append(a["seq"])  # still charged (§3.3.3, DECISIONS §0.3)
        elif a["ability"] == "jail" and a["actor"] in undecided:
            dawn.void.append(a["seq"])
        else:
            live.append(a)
    note(log, f"imprisoned: {sorted(jailed)}; void: {dawn.void}", *(["imprisonment"] if jailed else []))
    _investigate(state, live, dawn)
    occurring = [a for a in live if a["ability"] in ("k_attack", "w_attack", "snipe", "k_ohk", "w_ohk", "aimed",
                                                      "bisha")]
    prot = guards(spec, live)
    hits = _blocking(spec, state, prot, occurring)
    _bind_success(spec, prot, occurring, dawn)
    failures = _streak_failures(state, live, occurring)
    _pardon(state, live, dawn)
    _remove_cards(state, table, hits, failures, dawn)
    for a in live:
        if a["ability"] in MODIFIERS:
            state.data["mods"].append({"by": a["actor"], "kind": a["ability"], "target": a["target"]})
        if a["ability"] == "saint":
            state.data["saint"][a["actor"]] = a["card"]
    return dawn


# ---- step 2: 禁锢 (§3.1.7a) -------------------------------------------------------------


def jail_labels(acts: list[Action]) -> tuple[set[str], set[str]]:
    """DECISIONS 1.1.7 step 2: the grounded labelling of the imprison graph → (imprisoned,
    undecided).  Nobody imprisons him ⇒ free; imprisoned by a free player ⇒ imprisoned; all
    his imprisoners imprisoned ⇒ free; whoever is still undecided (pure cycles: "两个游戏者互相
    对对方使用禁锢，效果互相抵销") is free, and his own imprison actions are void."""
    edges = [(a["actor"], a["target"]) for a in acts if a["ability"] == "jail"]
    people = {u for u, _ in edges} | {v for _, v in edges}
    by = {v: {u for u, w in edges if w == v} for v in people}
    free: set[str] = set()
    jailed: set[str] = set()
    changed = True
    while changed:
        changed = False
        for v in sorted(people - free - jailed):
            if not by[v] or by[v] <= jailed:
                free.add(v)
                changed = True
            elif by[v] & free:
                jailed.add(v)
                changed = True
    return jailed, people - free - jailed


# ---- steps 3–4: deceptions and investigations (§3.1.1b, §3.1.2b, §3.1.4a, §3.1.5a, §3.1.6c/d) ----


def _investigate(state: GameState, live: list[Action], dawn: Dawn) -> None:
    deceived = {(DECEPTIONS[a["ability"]], a["target"]) for a in live if a["ability"] in DECEPTIONS}
    for a in live:
        asked = INVESTIGATIONS.get(a["ability"])
        if asked is None:
            continue
        answer = cards.shows(state, state.player(a["target"]), asked)
        if (a["ability"], a["target"]) in deceived:
            answer = not answer  # 调查占卜/调查先知 are never inverted (A3)
        dawn.answers.append((a["actor"], a["ability"], a["target"], answer))


# ---- steps 5–6: protections and blocking -----------------------------------------------------


def guards(spec: RulesetSpec, live: list[Action]) -> Protection:
    """Tonight's protection, registered once (core.protection): every privilege whose table
    entry `protects` guards its target (束魂, 巫医) or its user (防弹衣, 狼毒), 反狙击 every
    player unless `anti_sniper_scope = "self"` (A5)."""
    table, prot = abilities(spec), Protection()
    whole = str(spec.options.get("anti_sniper_scope", "global")) == "global"
    for a in live:
        kind = table[a["ability"]].get("protects")
        if kind is None:
            continue
        target = a["target"] or (EVERYONE if kind == "antisnipe" and whole else a["actor"])
        prot.add(kind, a["actor"], target, a["ability"])
    return prot


def _blocking(spec: RulesetSpec, state: GameState, prot: Protection, occurring: list[Action]) -> list[Action]:
    """The attacks that get through: an attack is stopped by a guard of a kind its table entry
    names in `blocked_by` (killer's: 束魂 or the target's 防弹衣; werewolf's: 巫医 or 狼毒; a
    sniper's: any of the four or 反狙击; §3.1.3–3.1.7, the appendix's "六种特权").  一击必杀,
    瞄准狙击 and 必杀 are never blocked."""
    table = abilities(spec)
    ohk_users = {a["actor"] for a in occurring if a["ability"] in ("k_ohk", "w_ohk")}
    whole_night = str(spec.options.get("ohk_scope", "attack")) == "all_attacks_of_user_that_night"
    hits = []
    for a in occurring:
        t, kind = a["target"], a["ability"]
        if whole_night and a["actor"] in ohk_users and kind in ("k_attack", "w_attack"):
            hits.append(a)  # A7 alternative: 一击必杀 covers all his attacks that night
            continue
        if prot.stops(t, table[kind].get("blocked_by", ())):
            continue
        hits.append(a)
    return hits


# ---- steps 7–8: 束魂/巫医 success and the consecutive-night failure ---------------------------


def _bind_success(spec: RulesetSpec, prot: Protection, occurring: list[Action], dawn: Dawn) -> None:
    """§3.1.4b/§3.1.5b: an announced guard (束魂, 巫医) succeeds when an attack it stops
    targeted the player (束魂: an ordinary killer or sniper attack; 巫医: werewolf or sniper);
    he is announced and cannot vote today (A24)."""
    table = abilities(spec)
    saved = {g.target for g in prot.guards if table[g.ability].get("announce", True)
             and any(a["target"] == g.target and g.kind in table[a["ability"]].get("blocked_by", ())
                     for a in occurring)}
    dawn.saved = sorted(saved)


def _streak_failures(state: GameState, live: list[Action], occurring: list[Action]) -> list[Action]:
    """§3.1.4b/§3.1.5b, DECISIONS 1.1.7 step 8 and A22: the same binder binds the same player on
    two nights in a row, he is the only one bound each night, and no killer or sniper attack
    (巫医: werewolf or sniper) occurred on him either night ⇒ he loses a card; the streak starts
    over."""
    streaks = state.data["streaks"]
    failures: list[Action] = []
    for ability, by_cards in (("bind", BY_KILLER_CARD | BY_SNIPER_CARD), ("heal", BY_WEREWOLF_CARD | BY_SNIPER_CARD)):
        attacked = {a["target"] for a in occurring if a["ability"] in by_cards}
        mine = [a for a in live if a["ability"] == ability]
        per_target: dict[str, int] = {}
        for a in mine:
            per_target[a["target"]] = per_target.get(a["target"], 0) + 1
        tonight = {(a["actor"], a["target"]) for a in mine
                   if per_target[a["target"]] == 1 and a["target"] not in attacked}
        before = {tuple(x) for x in streaks.get(ability, [])}
        fired = tonight & before
        failures += [a for a in mine if (a["actor"], a["target"]) in fired]
        streaks[ability] = sorted(list(x) for x in tonight - fired)
    return failures


# ---- steps 9–10: pardons, then card removal ------------------------------------------------


def _pardon(state: GameState, live: list[Action], dawn: Dawn) -> None:
    """§3.1.8b, A15–A19: a pardon returns yesterday's executed card to the front of his order;
    an unpardoned escrow becomes a final loss."""
    wanted = {a["target"] for a in live if a["ability"] == "pardon"}
    for p in state.players:
        card = p.extra.get("escrow")
        if not card:
            continue
        p.extra["escrow"] = None
        if p.name in wanted:
            p.extra["hand"].insert(0, card)
            p.extra["pardoned"] = True
            dawn.pardoned.append(p.name)
        else:
            dawn.escrow_final.append((p.name, card))


def _remove_cards(state: GameState, table: dict[str, Ability], hits: list[Action], failures: list[Action],
                  dawn: Dawn) -> None:
    """A20–A21: aimed snipes first, in the order they were sent, each taking the card it named
    in the night-start hand (a card already gone: the front card instead); then every other hit
    takes the front card."""
    def lose(name: str, card: str | None, attack: Action | None) -> None:
        if card is None:
            return
        dawn.lost.setdefault(name, []).append(card)
        if attack is not None and attack.get("decl"):
            dawn.declarations.append(attack["decl"])

    for a in [h for h in hits if h["ability"] == "aimed"]:
        p = state.player(a["target"])
        card = a.get("aimed_card")
        lose(p.name, card if card and cards.lose_card(p, card) else cards.lose_front(p), a)
    for a in [h for h in hits if h["ability"] != "aimed"]:
        p = state.player(a["target"])
        lose(p.name, cards.lose_front(p), a)
    for a in failures:
        p = state.player(a["target"])
        lose(p.name, cards.lose_front(p), None)
