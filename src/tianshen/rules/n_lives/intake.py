"""Taking a privilege PM in 猫有n条命: which card, what it costs, whether it may be used now.

DECISIONS §0.3 and 1.1.4: an action that cannot be used when it arrives (no such card, not
enough AP, a forbidden target, a limit already used) is refused at once and costs nothing;
an accepted one is charged at once and the receipt shows the balance.  A night action may
be cancelled (and refunded) until the lock, 10 minutes before dawn (§3.4.4); a day action is
final (1.1.4).  Night privileges sent by day wait for the next night (1.1.5).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tianshen.core import intake as shared_intake
from tianshen.core.abilities import table
from tianshen.core.grammar import Command, count_declaration_chars
from tianshen.core.model import GameState, Player, peek
from tianshen.core.names import NameMatchError, match_name
from tianshen.core.spec import RulesetSpec
from tianshen.rules.n_lives import cards
from tianshen.rules.n_lives.abilities import DECEPTIONS, WHOLE_ROUND, Ability, abilities

SELF_ONLY = {"vest", "bane", "saint"}  # §3.1.6a/b, A6, §3.1.3c


Refused = shared_intake.Refused  # the command is not taken; the message says why and what is accepted

def pick_ability(spec: RulesetSpec, state: GameState, p: Player, verb: str) -> tuple[Ability, str]:
    """The ability a verb means for this player, and the card that carries it."""
    candidates = _by_verb(spec).get(verb, ())
    data, hand = peek(state.data, "cards"), cards.held(p)
    for ability, types in candidates:  # the first active card of the first type held (escrow is not held)
        for t in types:
            for c in hand:
                if data[c]["type"] == t:
                    return ability, c
    names = "或".join(sorted({cards.card_types(spec)[t].name for _, types in candidates for t in types}))
    if p.extra.get("escrow") and any(cards.card_type(state, p.extra["escrow"]) in types for _, types in candidates):
        raise Refused(f"“{candidates[0][0].name}”需要{names}牌，而你的那张牌因为被处决暂时不在手中（要等天亮才知道是否被特赦）。")
    raise Refused(f"“{candidates[0][0].name}”需要{names}牌，你手中没有。你的手牌：{cards.describe_hand(spec, state, cards.hand(p))}")


def _by_verb(spec: RulesetSpec) -> dict[str, tuple[tuple[Ability, tuple[str, ...]], ...]]:
    """Each verb's abilities, in table order, with the card types that carry each (built once
    per spec: `pick_ability` runs for every command)."""
    return spec.derived("n_lives.by_verb", _read_by_verb)


def _read_by_verb(spec: RulesetSpec) -> dict[str, tuple[tuple[Ability, tuple[str, ...]], ...]]:
    out: dict[str, tuple[tuple[Ability, tuple[str, ...]], ...]] = {}
    for a in abilities(spec).values():
        types = tuple(t.id for t in cards.card_types(spec).values() if a.id in t.abilities)
        out[a.command] = out.get(a.command, ()) + ((a, types),)
    return out


def lock_time(spec: RulesetSpec, state: GameState) -> datetime | None:
    """Tonight's lock (§3.4.4: the ability table's, [options] lock_minutes)."""
    ends, lock = state.phase.ends_at, table(spec).lock
    if state.phase.kind != "night" or ends is None or lock is None:
        return None
    return ends - timedelta(minutes=lock)


def build_action(spec: RulesetSpec, state: GameState, p: Player, cmd: Command, at: datetime) -> dict[str, Any]:
    """Check one privilege command against the rules; the action to record (not charged yet)."""
    ability, card = pick_ability(spec, state, p, cmd.verb)
    if ability.id in spec.options.get("cowin_forbidden", ()) and p.extra.get("mode") == "cowin":
        raise Refused("你选择了共赢，任何牌的任何杀人特权在你手中都无效。")  # 000 §3.4.3
    action: dict[str, Any] = {"actor": p.name, "ability": ability.id, "card": card, "cost": ability.cost,
                              "target": None, "position": None, "decl": None, "at": at.isoformat()}
    written = cmd.arg
    if ability.id == "aimed":
        written, action["position"] = cards.split_position(cmd.arg)
    if ability.target in ("player", "executed"):
        action["target"] = _target(spec, state, p, ability, written)
    elif ability.id in SELF_ONLY and written.strip():
        _check_self(state, p, ability, written)
    if ability.id == "aimed":
        check_position(state, action)
    if ability.id == "saint" and card in state.data["saint_used"]:
        raise Refused("这张牌的圣人特权已经生效过一次，整局游戏只能生效一次。")  # 000 §3.1.3c
    if ability.id == "bisha" and card in state.data["bisha_used"]:
        raise Refused("这张牌的必杀特权已经用过，一局游戏只能使用一次。")  # 000 §3.1.8a
    return action


def _target(spec: RulesetSpec, state: GameState, p: Player, ability: Ability, written: str) -> str:
    if not written.strip():
        raise Refused(f"没有写对象。格式：{ability.name} 名字")
    try:
        name = match_name(written, [q.name for q in state.players])
    except NameMatchError as exc:
        raise Refused(exc.message) from None
    target = state.player(name)
    if ability.target == "executed":
        return _pardon_target(state, target)
    if not target.alive:
        raise Refused(f"{name}已经出局。")
    if ability.id == "jail" and name == p.name and not spec.options.get("allow_self_imprison", False):
        raise Refused("禁锢不能对自己使用。")  # DECISIONS A27
    return name


def _check_self(state: GameState, p: Player, ability: Ability, written: str) -> None:
    """§3.1.6a/b (A6) and §3.1.3c: 防弹衣, 狼毒 and 圣人 are the user's own; naming another player
    is refused (§0.3), not silently taken as a use on oneself."""
    try:
        name = match_name(written, [q.name for q in state.players])
    except NameMatchError:
        return
    if name != p.name:
        raise Refused(f"{ability.name}只能对自己使用，不能用在{name}身上。")


def _pardon_target(state: GameState, target: Any) -> str:
    """§3.1.8b, A17–A18: only a player executed the day before whose card is still in escrow;
    each player can be pardoned once a game; a 圣人 who was executed cannot."""
    if target.extra.get("pardoned"):
        raise Refused(f"{target.name}已经被特赦过一次，不能再特赦。")
    if not target.extra.get("escrow") or state.phase.kind != "night":
        raise Refused(f"{target.name}不是前一天被处决、还可以被特赦的人（特赦只能在夜里对前一天的被处决者使用）。")
    return str(target.name)


def check_position(state: GameState, action: dict[str, Any]) -> None:
    """§3.1.3b, A20: 倒数第k or 第k of the target's hand; not the 底牌 while he has more than one
    card."""
    position = action["position"]
    if position is None:
        raise Refused("瞄准狙击要写明狙哪一张，例如“瞄准狙击 名字 倒数第2”。")
    size = len(cards.held(state.player(action["target"])))
    index = position - 1 if position > 0 else size + position
    if position == 0 or not 0 <= index < size:
        raise Refused(f"{action['target']}手中只有{size}张牌，没有这个位置。")
    if index == size - 1 and size > 1:
        raise Refused("游戏者的牌不只一张时，底牌不能被瞄准狙击。")  # 000 §3.1.3b


def check_repeat(state: GameState, action: dict[str, Any], pending: list[dict[str, Any]]) -> None:
    """§3.3.5: whole-round privileges need one use a night (a repeat is refused, not charged);
    A3: one deception per target per night."""
    ability, actor = action["ability"], action["actor"]
    if ability in WHOLE_ROUND and any(a["actor"] == actor and a["ability"] == ability for a in pending):
        raise Refused("这项特权使用一次就整夜有效，不必重复使用。")
    if ability in DECEPTIONS and any(a["ability"] == ability and a["target"] == action["target"] for a in pending):
        raise Refused("今夜已经有人对此人行使了同样的欺骗，不必重复。")


def attach_declaration(spec: RulesetSpec, action: dict[str, Any], text: str, story: bool = False) -> str:
    """§3.4.2, DECISIONS §0.4: at least 100 characters, or the whole night's story at any length."""
    need = int(spec.options.get("decl_min_chars", 100))
    chars = count_declaration_chars(text)
    if not story and chars < need:
        raise Refused(f"杀人宣言只有{chars}字，至少要{need}字（自己写当夜剧情的，以“剧情”开头，不拘字数）。")
    action["decl"] = text.strip()
    return spec.text("declaration_ok", chars=chars, action=describe(spec, action))


def needs_declaration(spec: RulesetSpec, action: dict[str, Any]) -> bool:
    """§3.4.2: each attack its own declaration (`declaration = true` in the table); 必杀 none."""
    return abilities(spec)[action["ability"]].declaration and not action.get("decl")


def describe(spec: RulesetSpec, action: dict[str, Any]) -> str:
    return describe_as(abilities(spec)[action["ability"]], action)


def describe_as(ability: Ability, action: dict[str, Any]) -> str:
    """`describe` of an action whose ability the caller holds."""
    words = [ability.name]
    if action.get("target"):
        words.append(action["target"])
    if action.get("position"):
        n = action["position"]
        words.append(f"倒数第{-n}张" if n < 0 else f"第{n}张")
    return " ".join(words)
