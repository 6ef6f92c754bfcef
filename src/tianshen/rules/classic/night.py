"""The night: taking powers by PM, and resolving them at dawn (seed 002, DECISIONS §3.1.5)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tianshen.core.grammar import VERB_NAMES, Command, count_declaration_chars
from tianshen.core.model import GameState, Player
from tianshen.core.names import NameMatchError, match_name
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.rules.classic.roles import (
    POWER,
    group_of,
    is_killer,
    killer_mode,
    living_commoners,
    living_killers,
    members,
    on_duty_killer,
    partners,
)

# ---- intake -------------------------------------------------------------------------


def take_power(spec: RulesetSpec, state: GameState, p: Player, cmd: Command, names: list[str]) -> str:
    """Record one night power; returns the receipt line, raises Refused with the reason."""
    verb = cmd.verb
    if POWER.get(p.role) != verb:
        mine = VERB_NAMES.get(POWER.get(p.role, ""), "")
        hint = f"你的特权是“{mine}”。" if mine else ""
        raise Refused(f"你的身份不能“{VERB_NAMES.get(verb, verb)}”。{hint}")
    if not cmd.arg:
        raise Refused(f"没有写要{VERB_NAMES[verb]}的游戏者。格式：{VERB_NAMES[verb]} 名字")
    target = state.player(names_match(cmd.arg, names))
    if not target.alive:
        raise Refused(f"{target.name}已经死亡，不能作为目标。")
    if verb == "kill":
        check_kill(state, p, target)
    state.data["subs"].setdefault(verb, {})[p.name] = target.name
    line = f"{VERB_NAMES[verb]} {target.name}"
    if verb == "kill" and cmd.text:
        line += "\n" + take_declaration(spec, state, p, cmd.text, story=False)
    elif verb == "kill":
        line += "\n" + declaration_status(spec, state, p)
    return line


def check_kill(state: GameState, p: Player, target: Player) -> None:
    """Per-variant killer limits (002 杀手)."""
    mode = killer_mode(state)
    night = state.phase.number
    if mode == "alternate" and on_duty_killer(state, night) != p.name:
        raise Refused(f"今夜（第{night}夜）不是你的杀人夜。8人玩法两名杀手每夜轮流杀人。")
    if mode == "joint" and is_killer(target) and len(living_killers(state)) == 1:
        # 002 10人玩法: 杀手仅剩一人时禁止自杀
        raise Refused("杀手仅剩一人时禁止自杀（10人玩法）。")


def take_declaration(spec: RulesetSpec, state: GameState, p: Player, text: str, story: bool) -> str:
    """Store a 杀人宣言 (≥ min chars) or a 杀人剧情 (any length) for the killer's group."""
    if not is_killer(p):
        raise Refused("只有杀手需要提交杀人宣言。")
    if not text.strip():
        raise Refused("宣言是空的。格式：第一行写“宣言”，下面写不少于100字的杀人宣言。")
    group = group_of(state, p)
    state.data["decl"][group] = {"text": text.strip(), "story": story, "by": p.name}
    return declaration_status(spec, state, p)


def declaration_ok(spec: RulesetSpec, decl: dict | None) -> bool:
    """002 杀人宣言: ≥ 100 characters, or a story of any length (DECISIONS §0.4)."""
    if not decl:
        return False
    return decl["story"] or count_declaration_chars(decl["text"]) >= spec.options.get("decl_min_chars", 100)


def declaration_status(spec: RulesetSpec, state: GameState, p: Player) -> str:
    decl = state.data["decl"].get(group_of(state, p) or "")
    need = spec.options.get("decl_min_chars", 100)
    if decl is None:
        return f"尚未收到杀人宣言：天亮前须寄来不少于{need}字的宣言（以“宣言”开头），否则视为放弃当夜杀人。"
    n = count_declaration_chars(decl["text"])
    if decl["story"]:
        return f"已收到杀人剧情（{n}字）。"
    if n >= need:
        return f"已收到杀人宣言（{n}字，合格）。"
    return f"杀人宣言只有{n}字，不足{need}字：请在天亮前重寄，否则视为放弃当夜杀人。"


def tell_partners(state: GameState, p: Player, line: str, out: Messages) -> None:
    """Joint groups agree by themselves; each member sees what the other submitted."""
    for q in partners(state, p):
        if q.alive:
            out.pm(q.name, "同伴的行动", f"你的同伴{p.name}提交了：{line}\n（双方目标不一致则视为放弃当夜权力。）")


class Refused(Exception):
    """An input that is refused with a reason for the player."""


def names_match(written: str, names: list[str]) -> str:
    try:
        return match_name(written, names)
    except NameMatchError as exc:
        raise Refused(exc.message) from exc


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


def group_target(state: GameState, verb: str, group: str) -> str | None:
    """The group's common target; members who disagree forfeit it (002, DECISIONS B1)."""
    subs = state.data["subs"].get(verb, {})
    targets = {subs[m.name] for m in members(state, group) if m.name in subs}
    return targets.pop() if len(targets) == 1 else None


def kill_groups(state: GameState) -> list[str]:
    mode = killer_mode(state)
    if mode == "alternate":
        duty = on_duty_killer(state, state.phase.number)
        return [f"killer:{duty}"] if duty else []
    if mode == "allied_independent":
        return [g for g in ("allied", "independent") if members(state, g)]
    return ["killers"] if living_killers(state) else []


def valid_kills(spec: RulesetSpec, state: GameState, log: list[str]) -> list[Kill]:
    kills = []
    for group in kill_groups(state):
        target = group_target(state, "kill", group)
        if target is None:
            continue
        if killer_mode(state) == "alternate" and is_killer(state.player(target)) and group != f"killer:{target}":
            # 002 8人玩法: 杀手不能互杀; C5: no kill for every purpose, nothing announced
            log.append(f"{group} targeted the other killer {target}: no kill (002 8p, C5)")
            continue
        decl = state.data["decl"].get(group)
        if not declaration_ok(spec, decl):
            log.append(f"{group}: no valid declaration, kill on {target} forfeited (002 杀人宣言)")
            continue
        kills.append(Kill(group, target, decl or {}))
    return kills


def prayer_threshold(state: GameState) -> int | None:
    """002 祈祷: x = 2 (8p); else ⌈living commoners ÷ living killers⌉, void when x ≤ 1.
    Counted at the start of the night (B8): nobody dies before the dawn post."""
    opts = state.data["options"]
    if opts.get("prayer_fixed"):
        return int(opts["prayer_fixed"])
    c, k = len(living_commoners(state)), len(living_killers(state))
    if k == 0:
        return None
    x = math.ceil(c / k)
    return x if x > 1 else None


def protected(state: GameState) -> set[str]:
    """Players who got at least x prayers of distinct living commoners (C11)."""
    x = prayer_threshold(state)
    if x is None:
        return set()
    counts: dict[str, int] = {}
    for commoner in living_commoners(state):
        target = state.data["subs"].get("pray", {}).get(commoner.name)
        if target:
            counts[target] = counts.get(target, 0) + 1
    return {t for t, n in counts.items() if n >= x}


def resolve(spec: RulesetSpec, state: GameState, log: list[str]) -> Dawn:
    """002 夜晚, in the order of DECISIONS §3.1.5.  Mutates `state` (a copy)."""
    dawn = Dawn()
    kills = valid_kills(spec, state, log)
    prot = protected(state)
    log.append(f"prayer threshold x = {prayer_threshold(state)} "
               f"({len(living_commoners(state))} commoners / {len(living_killers(state))} killers); protected: "
               f"{sorted(prot) or 'nobody'}")
    bound = group_target(state, "soulbind", "binder")
    asked = group_target(state, "divine", "diviner")  # before deaths: the dead still acted (0.2)
    dead: dict[str, str] = {}

    by_target: dict[str, list[Kill]] = {}
    for k in kills:
        by_target.setdefault(k.target, []).append(k)
    for target, ks in by_target.items():
        if len(ks) >= 2:
            # 13人玩法独有: a double kill needs both 束魂 and an effective prayer
            survives = target == bound and target in prot
            if survives:
                dawn.saved_by_bind.append(target)
        elif target == bound:
            survives = True  # 束魂成功 (B5 analogue: the bind is evaluated first)
            dawn.saved_by_bind.append(target)
        else:
            survives = target in prot  # 祈祷: silent (002)
        log.append(f"kill on {target} by {[k.group for k in ks]}: {'survives' if survives else 'dies'}")
        if not survives:
            dead[target] = "killed"
            dawn.published[target] = [k.decl for k in ks]  # C7: all declarations of a kill that succeeded

    bind_death = advance_bind_streak(state, bound, set(by_target), log)
    if bind_death and bind_death not in dead:
        dead[bind_death] = "binder"  # C10: prayer does not stop a bind failure in 002

    for name, cause in dead.items():
        p = state.player(name)
        p.alive, p.died_in, p.death_cause = False, state.phase.label, cause
        dawn.deaths.append((name, cause))
    dawn.answers = divination_answers(state, asked, log)
    return dawn


def advance_bind_streak(state: GameState, bound: str | None, targeted: set[str], log: list[str]) -> str | None:
    """002 束魂: the same player bound two nights running and not the killers' target on
    either night dies of the failed binding; the streak starts again after it fires."""
    streak = state.data["bind_streak"]
    if bound is None or bound in targeted:
        streak.update(target=bound, nights=0)
        return None
    streak["nights"] = streak["nights"] + 1 if streak.get("target") == bound else 1
    streak["target"] = bound
    if streak["nights"] >= 2:
        streak["nights"] = 0
        log.append(f"bind failure: {bound} bound two nights running without being attacked")
        return bound
    return None


def divination_answers(state: GameState, asked: str | None, log: list[str]) -> list[tuple[str, str, bool]]:
    """002 占卜: the question of night k is answered at dawn k+1, to diviners alive after
    that dawn's deaths (C8); tonight's question is stored for the next dawn."""
    night = state.phase.number
    questions = state.data["questions"]
    answers = []
    due = questions.get(str(night - 1))
    if due:
        is_killer_ = is_killer(state.player(due))
        deliver_dead = state.data["options"].get("deliver_to_dead_diviner", False)
        for p in state.players:
            if p.role == "diviner" and (p.alive or deliver_dead):
                answers.append((p.name, due, is_killer_))
    if asked:
        questions[str(night)] = asked
        log.append(f"diviner asked about {asked} on night {night}; answer at dawn {night + 1}")
    return answers
