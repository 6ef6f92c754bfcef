"""The power round of seed 004: taking actions by PM, and resolving them at the deadline
(DECISIONS 5.1.4).

State kept in `state.data`:
* `actions`: slot -> {"by", "verb", "target"} for the current round (one per slot);
* `last`: what the butterfly and the elder did last round ("not twice running");
* `butterfly_uses`, `elder`: {"revive_used", "skills_lost"};
* `needles`: name -> the rounds of the marks still counting (E3);
* `round_info`: the current round's hug, mute and zero, read by the day vote;
* `penalties`: kind -> rounds (五's penalties for 诈尸, on the GM's confirmation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tianshen.core import intake
from tianshen.core.abilities import table
from tianshen.core.grammar import Command
from tianshen.core.model import GameState, Player
from tianshen.core.names import NameMatchError, match_name
from tianshen.core.protection import Protection
from tianshen.core.spec import RulesetSpec
from tianshen.rules.butterfly_elder.roles import holder, is_killer, slot_of

Refused = intake.Refused  # an input refused with a reason for the player; nothing recorded

def init(state: GameState, options: dict[str, Any]) -> None:
    state.data.update(
        actions={}, last={"hug": None, "hug_round": None, "mute": None, "zero": None},
        butterfly_uses=int(options.get("butterfly_uses", 4)), elder={"revive_used": False, "skills_lost": False},
        needles={}, round_info={}, penalties={"extra_kill": [], "no_kill": [], "no_indep": []},
    )


def penalized(state: GameState, kind: str, k: int) -> bool:
    return k in state.data["penalties"].get(kind, [])


# ---- intake (DECISIONS §0.3: an invalid action is refused at once and costs nothing) -----------


def refuse(spec: RulesetSpec, key: str, **values: Any) -> Refused:
    return Refused(spec.text(key, **values))


def take(spec: RulesetSpec, state: GameState, p: Player, cmd: Command) -> str:
    """Record one action of round k; returns the receipt line or raises Refused."""
    k = state.phase.number
    verb, tab = cmd.verb, table(spec)
    ability = tab.holds(p.role, verb)
    if ability is None:
        mine = "、".join(a.name for a in tab.held(p.role))
        if not mine:
            raise refuse(spec, "refuse_role_none")
        raise refuse(spec, "refuse_role", verb=tab.by_id[verb].name, powers=mine)
    if not cmd.arg:
        raise refuse(spec, "refuse_no_target", verb=ability.name)
    target = state.player(match(cmd.arg, [q.name for q in state.players]))
    if not target.alive:
        raise refuse(spec, "refuse_target_dead", name=target.name)
    _check_role_rules(spec, state, p, verb, target, k)
    fills = slot_of(ability)
    old = state.data["actions"].get(fills)
    state.data["actions"][fills] = {"by": p.name, "verb": verb, "target": target.name}
    line = spec.text("receipt_action", n=k, verb=ability.name, target=target.name)
    if old and (old["target"] != target.name or old["verb"] != verb):
        line += spec.text("receipt_replaces", verb=tab.by_id[old["verb"]].name, target=old["target"])
    return line


def _check_role_rules(spec: RulesetSpec, state: GameState, p: Player, verb: str, target: Player, k: int) -> None:
    last = state.data["last"]
    if verb == "slay" and penalized(state, "no_kill", k):
        raise refuse(spec, "refuse_no_kill", n=k)  # 五
    if verb == "slay2" and not penalized(state, "extra_kill", k):
        raise refuse(spec, "refuse_no_extra_kill")
    if verb in ("check", "shoot") and target.name == p.name:
        raise refuse(spec, "refuse_self")  # E13 (sniper), 5.1.3 (police)
    if verb == "save" and target.name == p.name and not spec.options.get("doctor_self", True):
        raise refuse(spec, "refuse_doctor_self")  # E3 `doctor_self`
    if p.role in ("butterfly", "elder") and penalized(state, "no_indep", k):
        raise refuse(spec, "refuse_no_indep", n=k)  # 五
    if verb == "hug":
        _check_hug(spec, state, p, target, k)
    if verb in ("mute", "zero"):
        if state.data["elder"]["skills_lost"]:
            raise refuse(spec, "refuse_skills_lost")  # 一 技能三
        if verb == "zero" and target.name == p.name:
            raise refuse(spec, "refuse_zero_self")  # 一 技能二 (不可指定自己)
        if last.get(verb) == target.name:  # 一 此权利不可连续两轮作用于一人
            raise refuse(spec, "refuse_twice", verb=table(spec).by_id[verb].name, target=target.name)


def _check_hug(spec: RulesetSpec, state: GameState, p: Player, target: Player, k: int) -> None:
    """一 花蝴蝶: not herself, 4 uses, not the same player two rounds running, 隔轮 (E2)."""
    last = state.data["last"]
    if target.name == p.name:
        raise refuse(spec, "refuse_hug_self")
    if state.data["butterfly_uses"] <= 0:
        raise refuse(spec, "refuse_hug_used", uses=spec.options.get("butterfly_uses", 4))
    if last.get("hug") == target.name and last.get("hug_round") == k - 1:
        raise refuse(spec, "refuse_twice", verb=table(spec).by_id["hug"].name, target=target.name)
    if spec.options.get("butterfly_gehun") == "every_other_round" and last.get("hug_round") == k - 1:
        raise refuse(spec, "refuse_hug_gehun")


def cancel(spec: RulesetSpec, state: GameState, p: Player) -> str:
    tab = table(spec)
    slots = {slot_of(a) for a in tab.held(p.role)}
    gone = [state.data["actions"].pop(s) for s in sorted(slots) if s in state.data["actions"]]
    if not gone:
        raise refuse(spec, "refuse_nothing_to_cancel")
    return spec.text("receipt_cancelled", actions="、".join(f"{tab.by_id[a['verb']].name} {a['target']}" for a in gone))


def match(written: str, names: list[str]) -> str:
    try:
        return match_name(written, names)
    except NameMatchError as exc:
        raise Refused(exc.message) from exc


# ---- resolution (DECISIONS 5.1.4) --------------------------------------------------------------


@dataclass
class Resolution:
    deaths: list[tuple[str, str]] = field(default_factory=list)  # (name, cause), seat order
    revived: str | None = None
    hugged: str | None = None
    marks: list[str] = field(default_factory=list)
    check: tuple[str, str, bool | None] | None = None  # (police, target, answer or None)
    muted: str | None = None
    zero: str | None = None
    log: list[str] = field(default_factory=list)


def resolve(spec: RulesetSpec, state: GameState, options: dict[str, Any]) -> Resolution:
    """Resolve round k's powers at once (§0.2: everything submitted resolves together).
    Deaths are returned, not applied."""
    k = state.phase.number
    res = Resolution()
    acts = _valid_actions(state)
    hug = _butterfly(state, acts, k, res)
    state.data["round_info"] = {"round": k, "hugged": hug,
                                "elder_hugged": bool(hug and state.player(hug).role == "elder")}
    void = _voided(state, acts, hug, k)
    res.log.append(f"round {k}: actions {acts}, hugged {hug}, void {sorted(void)}")
    effective = _attacks(state, acts, void, k)
    basis = effective if options.get("doctor_attack_basis", "effective") == "effective" else _attacks(
        state, acts, set(), k)
    butterfly = holder(state, "butterfly")
    bf = butterfly.name if butterfly else None
    attacked = dict(effective)
    if hug and bf in attacked:  # 六: 对花蝴蝶的杀或救的动作，花蝴蝶和他抱着的人会同时中着
        attacked[hug] = "with_butterfly"
    saved, marks = _save(guards(spec, acts, void, hug, bf), hug, bf, basis)
    res.marks = marks
    for name in marks:
        state.data["needles"].setdefault(name, []).append(k)
    needle_dead = _needle_deaths(state, options, k)
    dead = {n: c for n, c in attacked.items() if n not in saved}
    for name in needle_dead:
        dead.setdefault(name, "needles")
    res.deaths = [(p.name, dead[p.name]) for p in state.players if p.name in dead]
    res.revived = _revive(state, res.deaths, k)
    _elder(state, acts, void, hug, k, res)
    _police(state, acts, void, res)
    state.data["round_info"].update(muted=res.muted, zero=res.zero)
    state.data["actions"] = {}
    return res


def _valid_actions(state: GameState) -> dict[str, dict[str, str]]:
    """Actions whose actor and target are still alive at the deadline (a GM removal may have
    happened since the PM); for the killers, any living killer's submission stands (E12)."""
    acts = {}
    for slot, a in state.data["actions"].items():
        actor, target = state.find(a["by"]), state.find(a["target"])
        if actor is None or target is None or not target.alive:
            continue
        if actor.alive or (is_killer(actor) and any(p.alive and is_killer(p) for p in state.players)):
            acts[slot] = a
    return acts


def _butterfly(state: GameState, acts: dict[str, dict[str, str]], k: int, res: Resolution) -> str | None:
    """六 step 1: the hug is made first; a valid hug uses one of her 4 (E28)."""
    a = acts.get("hug")
    last = state.data["last"]
    if a is None or state.data["butterfly_uses"] <= 0 or a["target"] == a["by"]:
        return None
    if penalized(state, "no_indep", k):  # 五: 取消独立方所有权利一轮
        return None
    state.data["butterfly_uses"] -= 1
    last.update(hug=a["target"], hug_round=k)
    res.hugged = a["target"]
    return a["target"]


def _voided(state: GameState, acts: dict[str, dict[str, str]], hug: str | None, k: int) -> set[str]:
    """The slots that have no effect: the hugged player's own powers (六 "被抱走的人将失去自己
    的权力"; E17: any living killer hugged → the team's kill), and powers aimed at him (六
    "当轮被行使的权利无效…但归零技能可发动")."""
    void: set[str] = set()
    if penalized(state, "no_kill", k):
        void |= {"slay", "slay2"}
    if not penalized(state, "extra_kill", k):
        void.add("slay2")
    if penalized(state, "no_indep", k):
        void.add("elder")
    if hug is None:
        return void
    h = state.player(hug)
    own = {"killer": ("slay", "slay2"), "police": ("check",), "sniper": ("shoot",), "doctor": ("save",),
           "elder": ("elder",)}
    void |= set(own.get(h.role, ()))
    for slot, a in acts.items():
        if a["target"] == hug and not (slot == "elder" and a["verb"] == "zero"):
            void.add(slot)
    return void


def _attacks(state: GameState, acts: dict[str, dict[str, str]], void: set[str], k: int) -> dict[str, str]:
    """Who is killed or shot this round (name -> cause), E30: once however often."""
    out: dict[str, str] = {}
    for slot, cause in (("slay", "killed"), ("slay2", "killed"), ("shoot", "shot")):
        a = acts.get(slot)
        if a is None or slot in void:
            continue
        if slot == "slay2" and not penalized(state, "extra_kill", k):
            continue
        out.setdefault(a["target"], cause)
    return out


def guards(spec: RulesetSpec, acts: dict[str, dict[str, str]], void: set[str], hug: str | None,
           bf: str | None) -> Protection:
    """The round's protection, registered once (core.protection): the power whose table entry
    `protects` (一 医生's 救) guards its target, and 六's mirror: a guard on the 花蝴蝶 guards
    the one she hugs too.  E15: a hugged doctor guards nobody."""
    prot = Protection()
    for ability in table(spec).by_id.values():
        a = acts.get(slot_of(ability)) if ability.get("protects") else None
        if a is None or a["verb"] != ability.id or slot_of(ability) in void:
            continue
        prot.add(str(ability.get("protects")), a["by"], a["target"], ability.id)
        if a["target"] == bf and hug:
            prot.add(str(ability.get("protects")), a["by"], hug, ability.id)
    return prot


def _save(prot: Protection, hug: str | None, bf: str | None, attacked: dict[str, str]) -> tuple[set[str], list[str]]:
    """一 医生 and 六: who is saved (a guard on an attacked player) and who gets a needle mark
    (a guard on a player nobody attacked)."""
    if not prot.guards:
        return set(), []
    s = prot.guards[0].target
    if s == bf and hug:
        if s in attacked:  # 六: 花蝴蝶不死，而他抱着的人中空针一下 (E16)
            return {g.target for g in prot.guards}, [hug]
        return set(), [s, hug]  # 六: 花蝴蝶和他抱着的人一起中空针一下
    if s in attacked:
        return {s}, []
    return set(), [s]


def _needle_deaths(state: GameState, options: dict[str, Any], k: int) -> list[str]:
    """E3: a mark counts in its own round and the next `needle_window_rounds - 1`; a player
    holding `needle_death_count` marks dies.  Expired marks are dropped."""
    window = int(options.get("needle_window_rounds", 2))
    limit = int(options.get("needle_death_count", 2))
    dead = []
    for name, rounds in list(state.data["needles"].items()):
        rounds[:] = [r for r in rounds if r > k - window]
        if not rounds:
            del state.data["needles"][name]
        elif len(rounds) >= limit and state.player(name).alive:
            dead.append(name)
    return dead


def _revive(state: GameState, deaths: list[tuple[str, str]], k: int) -> str | None:
    """一 技能三 (and E5): the elder out by kill, shot or double needle revives once — not when
    hugged this round, nor in a round his side's powers are cancelled (五)."""
    elder = holder(state, "elder")
    if elder is None or elder.name not in [n for n, _ in deaths]:
        return None
    if not may_revive(state, k):
        return None
    revive(state)
    return elder.name


def may_revive(state: GameState, k: int) -> bool:
    info = state.data["round_info"]
    hugged = info.get("round") == k and info.get("elder_hugged")
    return not (state.data["elder"]["revive_used"] or hugged or penalized(state, "no_indep", k))


def revive(state: GameState) -> None:
    state.data["elder"].update(revive_used=True, skills_lost=True)


def _elder(state: GameState, acts: dict[str, dict[str, str]], void: set[str], hug: str | None, k: int,
           res: Resolution) -> None:
    """一 技能一/二: the mute (void on a hugged player) and the secret zero (E7)."""
    a = acts.get("elder")
    last = state.data["last"]
    last.update(mute=None, zero=None)
    if a is None or "elder" in void:
        return
    if a["verb"] == "mute":
        res.muted = a["target"]
    else:
        res.zero = a["target"]
    last[a["verb"]] = a["target"]


def _police(state: GameState, acts: dict[str, dict[str, str]], void: set[str], res: Resolution) -> None:
    """一 警察: yes/no; no answer when the police or his target is hugged (六, E18)."""
    a = acts.get("check")
    if a is None:
        return
    answer = None if "check" in void else is_killer(state.player(a["target"]))
    res.check = (a["by"], a["target"], answer)
