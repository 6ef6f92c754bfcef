"""Taking night powers by PM, shared by the 001/002 family: receipts, declarations, joint
groups (002 "无法…达成一致，视为放弃", DECISIONS B1) and the commoners' prayer threshold
(001 §2.9 = 002 祈祷)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tianshen.core import abilities, intake
from tianshen.core.grammar import Command, count_declaration_chars
from tianshen.core.ledgers import Actions
from tianshen.core.model import GameState, Player, peek, put
from tianshen.core.names import NameMatchError, match_name, names_as_written, seat_names
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.rules.common.roles import (
    _seats_of,
    group_of,
    is_killer,
    killer_mode,
    living_commoners,
    living_killers,
    on_duty_killer,
    partners,
)

# ---- intake -------------------------------------------------------------------------


def take_power(spec: RulesetSpec, state: GameState, p: Player, cmd: Command, ledger: Actions,
               held: abilities.Ability | None = None) -> str:
    """Record one night power; returns the receipt line, raises Refused with the reason.  The
    role, target and receipt come from the ability table (core.abilities); `held`: the
    player's ability for the command when the caller has looked it up (`Table.holds`)."""
    ability = held or abilities.check_role(spec, abilities.table(spec), p, cmd.verb)
    arg = cmd.arg
    if not arg:
        raise Refused(spec.later("ability_no_target", name=ability.name))
    # (a seat's name as written, most PMs: no `match_name`)
    name = names_as_written(state).get(arg)
    target = state.player(name if name is not None else names_match(arg, seat_names(state)))
    # (whether the target is of the player's own group matters only to an `other` target rule)
    same_group = ability.target == "other" and group_of(spec, state, target) == group_of(spec, state, p)
    abilities.check_target(spec, ability, p, target, same_group)
    if (uses := ability.get("uses")) and state.data.get(uses, 0) <= 0:
        raise Refused(spec.later(f"{ability.id}_spent"))  # 001 §2.7: 招魂's two uses
    if ability.group == "faction":
        check_kill(state, p, target)
    ledger.record(state, p, ability.id, target.name)
    line = f"{ability.name} {target.name}"
    if ability.declaration and cmd.text:
        line += "\n" + take_declaration(spec, state, p, cmd.text, story=False)
    elif ability.declaration:
        line += "\n" + declaration_status(spec, state, p)
    return line


def check_kill(state: GameState, p: Player, target: Player) -> None:
    """Per-variant killer limits (002 杀手).  001 §2.1 lets every killer kill himself (B24:
    option `last_killer_may_self_kill`)."""
    mode = killer_mode(state)
    night = state.phase.number
    if mode == "alternate" and on_duty_killer(state, night) != p.name:
        raise Refused(f"今夜（第{night}夜）不是你的杀人夜。8人玩法两名杀手每夜轮流杀人。")
    if (mode == "joint" and is_killer(target) and len(living_killers(state)) == 1
            and not peek(state.data, "options").get("last_killer_may_self_kill", False)):
        # 002 10人玩法: 杀手仅剩一人时禁止自杀
        raise Refused("杀手仅剩一人时禁止自杀（10人玩法）。")


def take_declaration(spec: RulesetSpec, state: GameState, p: Player, text: str, story: bool) -> str:
    """Store a 杀人宣言 (≥ min chars) or a 杀人剧情 (any length) for the killer's group."""
    if not is_killer(p):
        raise Refused("只有杀手需要提交杀人宣言。")
    if not text.strip():
        raise Refused("宣言是空的。格式：第一行写“宣言”，下面写不少于100字的杀人宣言。")
    group = group_of(spec, state, p)
    put(state.data, ("decl",), group, {"text": text.strip(), "story": story, "by": p.name})
    return declaration_status(spec, state, p)


def declaration_ok(spec: RulesetSpec, decl: dict | None) -> bool:
    """002 杀人宣言: ≥ 100 characters, or a story of any length (DECISIONS §0.4)."""
    if not decl:
        return False
    return decl["story"] or count_declaration_chars(decl["text"]) >= spec.options.get("decl_min_chars", 100)


def declaration_status(spec: RulesetSpec, state: GameState, p: Player) -> str:
    decl = peek(state.data, "decl").get(group_of(spec, state, p) or "")
    need = spec.options.get("decl_min_chars", 100)
    if decl is None:
        return f"尚未收到杀人宣言：天亮前须寄来不少于{need}字的宣言（以“宣言”开头），否则视为放弃当夜杀人。"
    n = count_declaration_chars(decl["text"])
    if decl["story"]:
        return f"已收到杀人剧情（{n}字）。"
    if n >= need:
        return f"已收到杀人宣言（{n}字，合格）。"
    return f"杀人宣言只有{n}字，不足{need}字：请在天亮前重寄，否则视为放弃当夜杀人。"


def tell_partners(spec: RulesetSpec, state: GameState, p: Player, receipt: str, out: Messages) -> None:
    """Joint groups agree by themselves; each member sees the first line of what the other
    submitted (`receipt`, cut only when someone is told)."""
    line = None
    for q in partners(spec, state, p):
        if q.alive:
            if line is None:
                line = receipt.partition("\n")[0]
            out.pm(q.name, "同伴的行动", f"你的同伴{p.name}提交了：{line}\n（双方目标不一致则视为放弃当夜权力。）")


Refused = intake.Refused  # an input refused with a reason for the player

def names_match(written: str, names: Sequence[str]) -> str:
    try:
        return match_name(written, names)
    except NameMatchError as exc:
        raise Refused(exc.message) from exc



# ---- groups and prayers ----------------------------------------------------------------


def group_target(spec: RulesetSpec, state: GameState, verb: str, group: str) -> str | None:
    """The group's common target; members who disagree forfeit it (002, DECISIONS B1)."""
    subs = peek(state.data, "subs").get(verb)  # a look (core.model.peek)
    if not subs:  # (nobody sent this power tonight: the group's members need not be listed)
        return None
    players = state.players
    found: Any = _NONE  # the one target so far (a loop: the set comprehension made four cells a call)
    for i in _seats_of(spec, state).get(group, ()):
        q = players[i]
        if q.alive and (name := q.name) in subs:
            target = subs[name]
            if found is _NONE:
                found = target
            elif target != found:
                return None
    return None if found is _NONE else found  # type: ignore[no-any-return]


_NONE = object()  # (`group_target`: no target yet)


def prayer_threshold(state: GameState, counts: tuple[int, int] | None = None) -> int | None:
    """002 祈祷: x = 2 (8p); else ⌈living commoners ÷ living killers⌉, void when x ≤ 1.
    Counted at the start of the night (B8): nobody dies before the dawn post.  `counts`:
    (living commoners, living killers) when the caller has counted them."""
    opts = peek(state.data, "options")
    if opts.get("prayer_fixed"):
        return int(opts["prayer_fixed"])
    c, k = counts or (len(living_commoners(state)), len(living_killers(state)))
    if k == 0:
        return None
    x = math.ceil(c / k)
    return x if x > 1 else None


def protected(spec: RulesetSpec, state: GameState, x: int | None | bool = False,
              commoners: list[Player] | None = None) -> set[str]:
    """Players who got at least x prayers of distinct living commoners (C11); `x`: the
    threshold when the caller has it (`prayer_threshold`), `commoners` the living commoners
    when it has listed them."""
    if x is False:
        x = prayer_threshold(state)
    if x is None:
        return set()
    prayers = peek(state.data, "subs").get("pray")  # read only: not `apply`'s copy
    if not prayers:  # (nobody prayed tonight)
        return set()
    counts: dict[str, int] = {}
    for commoner in living_commoners(state) if commoners is None else commoners:
        target = prayers.get(commoner.name)
        if target:
            counts[target] = counts.get(target, 0) + 1
    return {t for t, n in counts.items() if n >= x}


def remind(spec: RulesetSpec, state: GameState, ends: str, out: Messages) -> None:
    """Issue 5: a reminder to every living holder of an ability whose group has sent nothing
    tonight (a joint group with one submission stands, B1; 8p: only the killer on duty)."""
    for p in state.players:
        ability = abilities.table(spec).first(p.role)
        submitted = state.data["subs"].get(ability.id if ability else "", {})
        if not p.alive or ability is None or any(
                q.name in submitted for q in [p, *partners(spec, state, p)]):
            continue  # a joint group with one submission stands (B1)
        if ability.group == "faction" and killer_mode(state) == "alternate" and on_duty_killer(
                state, state.phase.number) != p.name:
            continue
        out.pm(p.name, spec.text("reminder_subject"),
               spec.later("reminder_night", power=ability.name, ends=ends))
