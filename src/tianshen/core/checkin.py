"""Check-in (签到), shared by the rulesets that have it (000 §5, 001 §3.2, 003 §7):
after the player list, each player replies to it with his 马甲 within 24 h; whoever has not
is out of the game and a substitute is called (001 §6.1.4, §3.2 "由天神通知替补入替").
Off unless the ruleset data sets `checkin_hours`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from tianshen.core.clock import ends_after
from tianshen.core.model import GameState, PostIn, peek

THREAD = "main"  # the thread of the player list


def open_window(state: GameState, start: datetime, hours: float) -> None:
    if hours > 0:
        state.data["checkin"] = {"ends_at": ends_after(start, hours).isoformat(), "done": []}


def deadline(state: GameState) -> datetime | None:
    window = peek(state.data, "checkin")  # read only
    return datetime.fromisoformat(window["ends_at"]) if window else None


def shift(state: GameState, hours: float) -> None:
    """An extension of the phase (002 延长游戏时段) moves an open check-in's end too: the
    24 h to reply to the player list are the players' own (001 §3.2)."""
    window = state.data.get("checkin")
    if window:
        window["ends_at"] = (datetime.fromisoformat(window["ends_at"]) + timedelta(hours=hours)).isoformat()


def take(state: GameState, post: PostIn) -> bool:
    """A reply to the player list by a player's 马甲, in time, checks him in."""
    window = peek(state.data, "checkin")  # every post asks: looked at, not `apply`'s copy
    if not window:  # (no look for the player once the check-in is over)
        return False
    p = state.find(post.author)
    if post.thread != THREAD or p is None or post.at > datetime.fromisoformat(window["ends_at"]):
        return False
    if p.name not in window["done"]:
        state.data["checkin"]["done"].append(p.name)  # written through `data`: its own copy
    return True


def close(state: GameState) -> list[str]:
    """The living players who did not check in, in seat order."""
    window = state.data.pop("checkin", None)
    if not window:
        return []
    return [p.name for p in state.players if p.alive and p.name not in window["done"]]
