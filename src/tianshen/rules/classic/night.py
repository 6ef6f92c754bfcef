"""The classic night resolution at dawn (seed 002, DECISIONS §3.1.5).  PM intake is shared
(`rules.common.actions`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tianshen.core.abilities import Ability, table
from tianshen.core.deaths import die
from tianshen.core.events import note
from tianshen.core.model import GameState, Player, peek
from tianshen.core.protection import Guard, Protection
from tianshen.core.spec import RulesetSpec
from tianshen.rules.common.actions import (
    declaration_ok,
    group_target,
    prayer_threshold,
    protected,
)
from tianshen.rules.common.roles import (
    groups_holding,
    is_killer,
    killer_mode,
    living_commoners,
    living_killers,
    members,
    on_duty_killer,
)

__all__ = ["prayer_threshold", "resolve"]

# ---- resolution ---------------------------------------------------------------------


@dataclass
class Kill:
    group: str
    target: str
    decl: dict


@dataclass
class Dawn:
    """What the night did; rendered into the dawn post."""

    deaths: list[tuple[str, str]] = field(default_factory=list)  # (name, cause)
    saved_by_bind: list[str] = field(default_factory=list)
    published: dict[str, list[dict]] = field(default_factory=dict)  # victim -> declarations
    answers: list[tuple[str, str, bool]] = field(default_factory=list)  # (diviner, target, is killer)


def kill_groups(spec: RulesetSpec, state: GameState) -> list[str]:
    mode = killer_mode(state)
    if mode == "alternate":
        duty = on_duty_killer(state, state.phase.number)
        return [f"killer:{duty}"] if duty else []
    if mode == "allied_independent":
        return _acting(spec, state, ("allied", "independent"))
    return ["killers"] if living_killers(state) else []


def _acting(spec: RulesetSpec, state: GameState, groups: tuple[str, ...]) -> list[str]:
    """The groups of `groups` with a living member (apart: `kill_groups`' other modes make no cells)."""
    return [g for g in groups if members(spec, state, g)]


def valid_kills(spec: RulesetSpec, state: GameState, log: list[str]) -> list[Kill]:
    kills = []
    for group in kill_groups(spec, state):
        target = group_target(spec, state, "kill", group)
        if target is None:
            continue
        if killer_mode(state) == "alternate" and is_killer(state.player(target)) and group != f"killer:{target}":
            # 002 8人玩法: 杀手不能互杀; C5: no kill for every purpose, nothing announced
            note(log, f"{group} targeted the other killer {target}: no kill (002 8p, C5)", "killer_targeted_killer")
            continue
        decl = peek(state.data, "decl").get(group)  # read only (the dawn post quotes it): not `apply`'s copy
        if not declaration_ok(spec, decl):
            note(log, f"{group}: no valid declaration, kill on {target} forfeited (002 杀人宣言)", "kill_forfeited")
            continue
        kills.append(Kill(group, target, decl or {}))
    return kills


def guards(spec: RulesetSpec, state: GameState, x: int | None | bool = False,
           commoners: list[Player] | None = None, binds: tuple[Ability, ...] | None = None) -> Protection:
    """Tonight's protection, computed once: every ability whose `protects` is `bind` (002 束魂,
    or a variant's guard built on it) registers its group's target; the commoners' prayers
    register whom they protect (002 祈祷, C11; `x`: the prayer threshold when known,
    `commoners` the living commoners when listed, `binds` the spec's `_binds` when read)."""
    prot = Protection()
    for ability in _binds(spec) if binds is None else binds:
        for group in groups_holding(spec, state, ability.roles):
            prot.add("bind", group, group_target(spec, state, ability.id, group), ability.id)
    for name in sorted(protected(spec, state, x, commoners)):
        prot.add("prayer", "commoners", name, "pray")
    return prot


def _binds(spec: RulesetSpec) -> tuple[Ability, ...]:
    """The abilities whose `protects` is `bind`, in table order (read once per spec: every
    dawn asks twice)."""
    return spec.derived("classic.binds", _bind_abilities)  # type: ignore[no-any-return]


def _bind_abilities(spec: RulesetSpec) -> tuple[Ability, ...]:
    """`_binds` worked out (a function of the module: no lambda made at every read)."""
    return tuple(a for a in table(spec).by_id.values() if a.get("protects") == "bind")


def _announced(spec: RulesetSpec, guards_on: list[Guard]) -> bool:
    """A bind save is announced (and bars the saved from voting) unless every guard on him is
    of an ability with `announce = false` (a silent guard, like a doctor's)."""
    return any(table(spec).by_id[g.ability].get("announce", True) for g in guards_on)


def resolve(spec: RulesetSpec, state: GameState, log: list[str]) -> Dawn:
    """002 夜晚, in the order of DECISIONS §3.1.5.  Mutates `state` (a copy)."""
    dawn = Dawn()
    kills = valid_kills(spec, state, log)
    commoners = living_commoners(state)  # (listed once: the threshold and the prayers)
    counts = len(commoners), len(living_killers(state))
    x = prayer_threshold(state, counts)
    binds = _binds(spec)  # (read once a dawn: a spec's method and its private dict are pydantic's reads)
    guard = guards(spec, state, x, commoners, binds)
    prot = guard.protected("prayer")
    note(log, f"prayer threshold x = {x} ({counts[0]} commoners / {counts[1]} killers); protected: "
         f"{sorted(prot) or 'nobody'}", *(["prayer_protected"] if prot else []))
    asked = group_target(spec, state, "divine", "diviner")  # before deaths: the dead still acted (0.2)
    dead: dict[str, str] = {}

    by_target: dict[str, list[Kill]] = {}
    for k in kills:
        by_target.setdefault(k.target, []).append(k)
    for target, ks in by_target.items():
        bound = guard.of(target, "bind")
        if len(ks) >= 2:
            # 13人玩法独有: a double kill needs both 束魂 and an effective prayer
            survives = bool(bound) and target in prot
            if survives and _announced(spec, bound):
                dawn.saved_by_bind.append(target)
        elif bound:
            survives = True  # 束魂成功 (B5 analogue: the bind is evaluated first)
            if _announced(spec, bound):
                dawn.saved_by_bind.append(target)
        else:
            survives = target in prot  # 祈祷: silent (002)
        note(log, f"kill on {target} by {[k.group for k in ks]}: {'survives' if survives else 'dies'}",
             *(["kill_survived"] if survives else []))
        if not survives:
            dead[target] = "killed"
            dawn.published[target] = [k.decl for k in ks]  # C7: all declarations of a kill that succeeded

    for key, bound_by, after in _streaks(spec, state, guard, binds):
        bind_death = advance_bind_streak(state, key, bound_by, set(by_target), log, after)
        if bind_death and bind_death not in dead:
            dead[bind_death] = "binder"  # C10: prayer does not stop a bind failure in 002

    for name, cause in dead.items():
        p = state.player(name)
        die(state, p, cause)
        dawn.deaths.append((name, cause))
    dawn.answers = divination_answers(state, asked, log)
    return dawn


def _streaks(spec: RulesetSpec, state: GameState, guard: Protection,
             binds: tuple[Ability, ...]) -> list[tuple[str, str | None, int]]:
    """(streak key, tonight's target) of every bind group whose ability fails when it binds the
    same player two nights running (`fails_after` in its TOML: 002 束魂).  002's binder keeps
    `bind_streak`; another group holding such an ability keeps its own."""
    out: list[tuple[str, str | None, int]] = []
    for ability in binds:
        if not ability.get("fails_after"):
            continue
        for group in groups_holding(spec, state, ability.roles):
            key = "bind_streak" if group == "binder" else f"bind_streak:{group}"
            out.append((key, _guarded_by(guard, group, ability.id), int(ability.get("fails_after"))))
    return out


def _guarded_by(guard: Protection, group: str, ability: str) -> str | None:
    """The target `group` guards with `ability` tonight (the first such guard), or None."""
    for g in guard.guards:
        if g.by == group and g.ability == ability:
            return g.target
    return None


def advance_bind_streak(state: GameState, key: str, bound: str | None, targeted: set[str],
                        log: list[str], after: int = 2) -> str | None:
    """002 束魂: the same player bound two nights running and not the killers' target on
    either night dies of the failed binding; the streak starts again after it fires."""
    streak = state.data.setdefault(key, {"target": None, "nights": 0})
    if bound is None or bound in targeted:
        streak.update(target=bound, nights=0)
        return None
    streak["nights"] = streak["nights"] + 1 if streak.get("target") == bound else 1
    streak["target"] = bound
    if streak["nights"] >= after:
        streak["nights"] = 0
        note(log, f"bind failure: {bound} bound two nights running without being attacked", "bind_failure")
        return bound
    return None


def divination_answers(state: GameState, asked: str | None, log: list[str]) -> list[tuple[str, str, bool]]:
    """002 占卜: the question of night k is answered at dawn k+1, to diviners alive after
    that dawn's deaths (C8); tonight's question is stored for the next dawn."""
    night = state.phase.number
    questions = state.data["questions"] if asked else peek(state.data, "questions")  # written only when asked
    answers = []
    due = questions.get(str(night - 1))
    if due:
        is_killer_ = is_killer(state.player(due))
        deliver_dead = peek(state.data, "options").get("deliver_to_dead_diviner", False)
        for p in state.players:
            if p.role == "diviner" and (p.alive or deliver_dead):
                answers.append((p.name, due, is_killer_))
    if asked:
        questions[str(night)] = asked
        log.append(f"diviner asked about {asked} on night {night}; answer at dawn {night + 1}")
    return answers
