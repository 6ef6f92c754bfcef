"""Role ids, factions and PM verbs of seed 004 (一)."""

from __future__ import annotations

from tianshen.core.grammar import VERBS as SHARED
from tianshen.core.model import GameState, Player

KILLERS, GOOD, INDEPENDENTS = "killers", "good", "independents"
DRAW = "draw"

# The PM words of 004 (core.grammar.parse_pm with our own table).  The killers' verb is
# "slay", not the shared "kill": 004 needs no declaration, so a kill line must not swallow
# the lines after it (the shared grammar reads them as 002's 杀人宣言).
VERBS: dict[str, tuple[str, ...]] = {
    "slay": ("杀", "杀人", "刺杀", "kill"),
    "slay2": ("加杀",),  # 五: the extra kill the killers get when a good player 诈尸 (E14)
    "check": ("验", "查验", "验人", "查"),
    "shoot": ("狙", "狙杀", "狙击", "shoot"),
    "save": ("救", "救人", "扎"),
    "hug": ("抱", "抱走"),
    "mute": ("禁言",),
    "zero": ("归零",),
    "cancel": ("取消", "撤销", "/cancel"),
    "vote": SHARED["vote"],  # the shared vote words (重新投票 too); a PM vote is refused: 四 votes are posts
    "confirm": ("确认", "收到"),
}

# role -> the verbs it may send, and the action slot each verb fills (one per slot a round)
ROLE_VERBS: dict[str, tuple[str, ...]] = {
    "killer": ("slay", "slay2"),
    "police": ("check",),
    "sniper": ("shoot",),
    "doctor": ("save",),
    "butterfly": ("hug",),
    "elder": ("mute", "zero"),
}
SLOT = {"slay": "slay", "slay2": "slay2", "check": "check", "shoot": "shoot", "save": "save", "hug": "hug",
        "mute": "elder", "zero": "elder"}  # 一 "每轮老人可自主从技能一二中选择一个使用，不可都选"
VERB_WORD = {"slay": "杀", "slay2": "加杀", "check": "验", "shoot": "狙", "save": "救", "hug": "抱",
             "mute": "禁言", "zero": "归零"}


def holder(state: GameState, role: str) -> Player | None:
    """The one player of a single-holder role (police, sniper, doctor, butterfly, elder)."""
    return next((p for p in state.players if p.role == role), None)


def is_killer(p: Player) -> bool:
    return p.role == "killer"


def living(state: GameState) -> list[Player]:
    return [p for p in state.players if p.alive]
