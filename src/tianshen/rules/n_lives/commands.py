"""The PM commands of 猫有n条命 besides the vote, the family's intake hook (issue 36: core checks
the window first, core.abilities): a privilege with its action points (§3.3, 1.1.4–1.1.5),
its declaration (§3.4.2), a cancel until the lock (§3.4.4), the discard order (§6) and the
self-chooser's side (§2, §3.4.3); the day's queued privileges at nightfall and the attacks
left without a declaration at dawn.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tianshen.core import rng
from tianshen.core.abilities import check_lock, check_window, table
from tianshen.core.grammar import Command
from tianshen.core.model import GameState, Player
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.rules.n_lives import cards, intake, ledgers
from tianshen.rules.n_lives.abilities import abilities
from tianshen.rules.n_lives.intake import Refused

SIDES = {"平民": "civilians", "杀手": "killers", "狼人": "werewolves"}
MODES = {"共赢": "cowin", "并肩": "cowin", "并肩作战": "cowin", "一山不容二虎": "solo", "独赢": "solo", "单干": "solo"}


def take(spec: RulesetSpec, state: GameState, p: Player, cmd: Command, at: datetime) -> str:
    # the one window check (core.abilities) first, by the command's window (攻击 is the killer's
    # or the werewolf's card, one window): the lock by night; by day a night privilege waits
    # for the next night (1.1.5), or is refused without queue_day_submissions; then the card
    if window := table(spec).by_command(cmd.verb):
        check_window(spec, window, state, at, queue_day=bool(spec.options.get("queue_day_submissions", True)))
    action = intake.build_action(spec, state, p, cmd, at)
    ability = abilities(spec)[action["ability"]]
    night = state.phase.kind == "night"
    queued = not night and ability.window != "any"
    pending = state.data["queued"] if queued else state.data["actions"]
    intake.check_repeat(state, action, pending)
    if not queued and action["cost"] > p.extra["ap"]:
        raise Refused(f"行动点数不足：“{ability.name}”需要{action['cost']}点，你只有{p.extra['ap']}点。")
    state.data["seq"] += 1
    action["seq"] = state.data["seq"]
    line = intake.describe_as(ability, action)
    if ability.id == "bisha":
        state.data["bisha_used"].append(action["card"])
    if queued:
        pending.append(action)
        line += spec.text("queued", n=state.phase.number + 1, cost=action["cost"])
    else:
        p.extra["ap"] -= action["cost"]
        line += spec.text("balance", cost=action["cost"], ap=p.extra["ap"])
        if night:
            pending.append(action)
        elif ability.id == "bisha":
            state.data["day_bisha"].append(action)  # §3.1.8a: resolved at the end of the day
        else:
            state.data["mods"].append({"by": p.name, "kind": ability.id, "target": action["target"]})
    if not ability.declaration or action.get("decl"):  # intake.needs_declaration
        return line
    return line + _with_declaration(spec, action, cmd.text)


def _with_declaration(spec: RulesetSpec, action: dict[str, Any], text: str) -> str:
    if text:
        try:
            return "\n" + intake.attach_declaration(spec, action, text)
        except Refused as exc:
            return f"\n{exc}"
    return "\n" + spec.text("needs_declaration", min_chars=int(spec.options.get("decl_min_chars", 100)))


def declaration(spec: RulesetSpec, state: GameState, p: Player, cmd: Command, at: datetime) -> str:
    """§3.4.2: a PM starting with 宣言 (or 剧情) goes with his earliest attack still without one."""
    pending = [a for a in state.data["actions"] + state.data["queued"]
               if a["actor"] == p.name and intake.needs_declaration(spec, a)]
    if not pending:
        raise Refused("你没有等待杀人宣言的攻击。攻击的格式：攻击 名字（下一行写宣言）。")
    check_lock(spec, abilities(spec)[pending[0]["ability"]].lock, state, at)
    return intake.attach_declaration(spec, pending[0], cmd.text, story=cmd.verb == "story")


def cancel(spec: RulesetSpec, state: GameState, p: Player, what: str, at: datetime) -> str:
    """§3.4.4: a night action can be withdrawn until the lock, and its AP comes back; a day
    action is final (1.1.4)."""
    check_lock(spec, table(spec).lock, state, at)
    mine = ledgers.pending(spec, state, p, what)
    if not mine:
        raise Refused("没有可以取消的夜间特权（白天行使的必杀、诅咒、庇佑一经寄出不能取消）。")
    ledgers.withdraw(state, p, mine)
    names = "、".join(intake.describe(spec, a) for a in mine)
    return f"已取消：{names}（现在有{p.extra['ap']}点行动点数）"


def order(spec: RulesetSpec, state: GameState, p: Player, cmd: Command, at: datetime) -> str:
    """§6.1–6.3: within 24 h of the player list, and in the reorder windows; the bottom card
    is fixed once chosen."""
    first = at <= _ts(state.data["order_until"]) and state.phase.number == 1 and state.phase.kind == "night"
    window = state.data.get("reorder_until") and at <= _ts(state.data["reorder_until"])
    if not first and not window:
        raise Refused("现在不能改变丢牌顺序：只能在游戏开始后24小时内，以及天神宣布的改牌期内寄来。")  # 000 §6
    try:
        order = cards.parse_order(spec, state, p, cmd.arg or cmd.line)
        cards.check_bottom(state, p, order)
    except cards.OrderError as exc:
        raise Refused(str(exc)) from None
    cards.set_order(p, order)
    return spec.text("order_ok", order=cards.describe_hand(spec, state, order),
                          bottom=cards.name_of(spec, state, order[-1]))


def side(spec: RulesetSpec, state: GameState, p: Player, arg: str) -> str:
    """§2, §3.4.3: the self-chooser picks a side on night 1; for the killers' or werewolves'
    side also co-win (no killing privilege, A8) or 一山不容二虎 (A9: co-win by default)."""
    if p.role != "chooser":
        raise Refused("只有自选立场者可以选择立场。")
    if not (state.phase.kind == "night" and state.phase.number == 1):
        raise Refused("立场只能在第1夜选择。")
    side = next((v for k, v in SIDES.items() if k in arg), None)
    if side is None:
        raise Refused("请写“立场 平民”、“立场 杀手 共赢”或“立场 狼人 一山不容二虎”等。")
    if side == "civilians" and len(state.players) == 7:
        raise Refused("7人游戏时，自选立场者不能选择平民立场。")  # 000 §3.4.3
    mode = None if side == "civilians" else next((v for k, v in MODES.items() if k in arg), "cowin")
    set_side(state, p, side, mode)
    line = spec.text("choice_ok", side=side_text(spec, p))
    if mode == "cowin":
        dropped = [a for a in state.data["actions"] + state.data["queued"] if a["actor"] == p.name
                   and a["ability"] in list(spec.options.get("cowin_forbidden", []))]
        ledgers.withdraw(state, p, dropped)
        if dropped:
            line += "；已取消（并退还点数）：" + "、".join(intake.describe(spec, a) for a in dropped)
    return line


def set_side(state: GameState, p: Player, side: str, mode: str | None) -> None:
    """A side changes what was worked out from the sides (`GameState.roles_changed`)."""
    p.faction = side
    state.roles_changed()
    p.extra["mode"] = mode


def side_text(spec: RulesetSpec, p: Player) -> str:
    side = spec.factions.get(p.faction, p.faction)
    if p.role == "chooser":
        mode = {"cowin": "（共赢）", "solo": "（一山不容二虎）"}.get(p.extra.get("mode") or "", "")
        return f"{spec.role_name('chooser')}，{side}{mode}"
    return side


def take_queued(spec: RulesetSpec, state: GameState, action: dict[str, Any], out: Messages) -> None:
    k = state.phase.number
    p = state.player(action["actor"])
    what = intake.describe(spec, action)
    try:
        if not p.alive:
            return
        if action["card"] not in cards.hand(p):
            raise Refused("那张牌已经丢了")  # A42
        if action.get("target") and not state.player(action["target"]).alive:
            raise Refused(f"{action['target']}已经出局")
        intake.check_repeat(state, action, state.data["actions"])
        if action["ability"] == "aimed":
            intake.check_position(state, action)  # A20: the hand may have shrunk at day end
        if action["cost"] > p.extra["ap"]:
            raise Refused(f"行动点数不足（需要{action['cost']}点，你有{p.extra['ap']}点）")
    except Refused as exc:
        out.pm(p.name, spec.text("receipt_subject"), spec.later("queue_dropped", action=what, n=k, reason=str(exc)))
        if action["ability"] == "bisha":
            state.data["bisha_used"].remove(action["card"])
        return
    p.extra["ap"] -= action["cost"]
    state.data["actions"].append(action)
    out.pm(p.name, spec.text("receipt_subject"),
           spec.later("queue_charged", action=what, n=k, cost=action["cost"], ap=p.extra["ap"]))


def drop_undeclared(spec: RulesetSpec, state: GameState, out: Messages) -> None:
    """A25 (borrowed from 001/002): an attack without a valid declaration at the lock is not
    made and not charged."""
    keep = []
    for a in state.data["actions"]:
        if intake.needs_declaration(spec, a):
            p = state.player(a["actor"])
            p.extra["ap"] += a["cost"]
            out.pm(p.name, spec.text("receipt_subject"),
                   spec.later("void_no_declaration", n=state.phase.number, action=intake.describe(spec, a)))
        else:
            if a["ability"] == "aimed":
                hand = state.data["night_hands"].get(a["target"], [])
                pos = a["position"]
                index = pos - 1 if pos > 0 else len(hand) + pos
                a["aimed_card"] = hand[index] if 0 <= index < len(hand) else None
            keep.append(a)
    state.data["actions"] = keep


def close_first_night(spec: RulesetSpec, state: GameState, out: Messages) -> None:
    """§2, A9: the self-chooser's default side; §5.3, 1.1.3: a random discard order for whoever
    sent none (PM'd to him)."""
    for p in state.players:
        if p.role == "chooser" and p.faction == "chooser":
            if len(state.players) == 7:  # A9: random side, co-win
                side = rng.choice(state, ["killers", "werewolves"])
                set_side(state, p, side, "cowin")
            else:
                set_side(state, p, "civilians", None)
            out.pm(p.name, spec.text("choice_subject"), spec.later("choice_default", side=side_text(spec, p)))
        if p.alive and not p.extra.get("order_set"):
            cards.set_order(p, cards.random_order(state, p))
            out.pm(p.name, spec.text("order_random_subject"),
                   spec.later("order_random", order=cards.describe_hand(spec, state, cards.hand(p)),
                              bottom=cards.name_of(spec, state, p.extra["bottom"])))
    state.data["night_hands"] = {p.name: cards.hand(p) for p in state.players if p.alive}


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value)
