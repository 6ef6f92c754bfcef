"""002 杀人宣言 (DECISIONS C13): 杀人宣言或杀人剧情违反原创或字数的规定，天神可以在第二天多给
平民方一次占卜机会，由天神抽签选择一位平民行使.

Decision C13: only when a human GM flags the violation before dawn (`tianshen admin
flag-plagiarism`; the bot can't judge originality, DECISIONS §0.4).  At that dawn the bot
draws one living civilian; he may ask one question (占卜 名字) during that day; the answer
comes at the next dawn (no extra delay).  Option `plagiarism_extra_divination` (C13: config).

`state.data["extra_divinations"]`: one entry per flag — {"night", "killer", "reason", "by",
"target"}.
"""

from __future__ import annotations

from tianshen.core import rng
from tianshen.core.model import GameState, Player, peek
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.core.vote_post import resolve_name
from tianshen.rules.common.actions import Refused
from tianshen.rules.common.roles import group_of, is_killer, living_civilians


class NotFlaggable(Exception):
    """The flag can't be taken now; the message (English, for the GM) says why."""


def entries(state: GameState) -> list[dict]:
    return state.data.setdefault("extra_divinations", [])


def _none_yet(state: GameState) -> bool:
    """Whether no flag was ever recorded (the list made as `entries` makes it), read without
    `apply`'s copy: every dawn asks, and there is seldom a flag."""
    found = peek(state.data, "extra_divinations")
    if found is None:
        state.data["extra_divinations"] = found = []
    return not found


def flag(spec: RulesetSpec, state: GameState, p: Player, reason: str) -> dict:
    """Record the GM's flag on tonight's declaration of `p`'s kill group (before dawn)."""
    if not state.data["options"].get("plagiarism_extra_divination", True):
        raise NotFlaggable("the extra divination of 002 / C13 is switched off (plagiarism_extra_divination)")
    group = group_of(spec, state, p) if is_killer(p) else None
    if state.phase.kind != "night" or group is None or group not in state.data["decl"]:
        raise NotFlaggable(f"no declaration of {p.name} tonight to flag (C13: before dawn)")
    night = state.phase.number
    if any(e["night"] == night and e["group"] == group for e in entries(state)):
        raise NotFlaggable(f"the declaration of {p.name}'s group is already flagged tonight")
    entry = {"night": night, "group": group, "killer": p.name, "reason": reason, "by": None, "target": None}
    entries(state).append(entry)
    return entry


def draw(spec: RulesetSpec, state: GameState, out: Messages) -> None:
    """At dawn k: one living civilian by lot for each flag of night k (seeded RNG)."""
    if _none_yet(state):
        return
    k = state.phase.number
    for e in entries(state):
        if e["night"] != k or e["by"] is not None:
            continue
        pool = [q.name for q in living_civilians(state)]
        if not pool:
            continue
        e["by"] = rng.choice(state, pool)
        out.pm(e["by"], spec.text("extra_divine_subject"), spec.text("extra_divine_granted", day=k))
        out.notes.append(spec.text("note_extra_divine", killer=e["killer"], name=e["by"], day=k))


def ask(state: GameState, p: Player, written: str) -> str | None:
    """The chosen civilian's question of today, or None when he has no extra divination."""
    if _none_yet(state):
        return None
    k = state.phase.number
    mine = [e for e in entries(state) if e["night"] == k and e["by"] == p.name and e["target"] is None]
    if state.phase.kind != "day" or not mine:
        return None
    if not p.alive:
        raise Refused("你已经死亡，不能再占卜。")
    if not written:
        raise Refused("没有写要占卜的游戏者。格式：占卜 名字")
    mine[0]["target"] = resolve_name(written, [q.name for q in state.players])
    return f"额外占卜：{mine[0]['target']}（明天天亮时天神告诉你答案；一经寄出不能更改）"


def answers(spec: RulesetSpec, state: GameState, out: Messages) -> None:
    """At dawn k+1: the answer to the question asked on day k, to the asker if alive (C8)."""
    if _none_yet(state):
        return
    k = state.phase.number
    deliver_dead = peek(state.data, "options").get("deliver_to_dead_diviner", False)
    for e in entries(state):
        if e["night"] != k - 1 or not e["target"] or e.get("answered"):
            continue
        e["answered"] = True
        if state.player(e["by"]).alive or deliver_dead:
            yes = is_killer(state.player(e["target"]))
            out.pm(e["by"], spec.text("divine_subject"),
                   spec.text("extra_divine_answer", day=k - 1, target=e["target"], answer="是" if yes else "不是"))
