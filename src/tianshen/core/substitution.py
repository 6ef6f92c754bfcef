"""Substitution (交替期), shared by every ruleset (000 §9, 001 §6.3, 002 更换替补, 003 §10;
DECISIONS §0.5).

The GM opens it for one or more seats; the phase is extended (12 h by the rules' data);
every substitute is asked by PM; the first to answer takes the longest-lurking seat, the
next one the next seat.  The seat keeps its 马甲 and everything it holds — only the person
behind it changes, so the ruleset's state needs no copying.  A seat whose player comes back
before it is taken stays his; a seat nobody takes by the end is wasted.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from tianshen.core import clock
from tianshen.core.model import GameState, PmIn, peek
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec

DECLINES = ("不能", "不可以", "不行", "没空", "不了")


def open_period(spec: RulesetSpec, state: GameState, seats: list[str], at: datetime, out: Messages,
                last_seen: dict[str, str]) -> datetime:
    """Start the 交替期 for `seats`; returns its end.  The caller extends the phase.  The seat
    heard from least recently goes first (001 §6.3: 从距今潜水时间最长的游戏者开始换人)."""
    if state.data.get("substitution"):
        raise ValueError("a substitution is already under way")
    if not state.data.get("substitutes"):
        raise ValueError("the game has no substitutes left")
    order = sorted(seats, key=lambda n: (last_seen.get(n, ""), state.player(n).seat))
    ends = clock.ends_after(at, spec.timing.substitution_hours)
    state.data.pop("substitution_past", None)
    state.data["substitution"] = {"seats": order, "ends_at": ends.isoformat(), "asked": list(state.data["substitutes"])}
    when = clock.show(ends, state.zone)
    out.post("main", spec.text("substitution_start", seats="、".join(order), hours=f"{spec.timing.substitution_hours:g}",
                               duration=clock.duration(timedelta(hours=spec.timing.substitution_hours)),
                               ends=when))
    for substitute in state.data["substitutes"]:
        out.pm(substitute, spec.text("substitution_subject"), spec.text("substitution_call", count=len(order), ends=when))
    return ends


def deadline(state: GameState) -> datetime | None:
    sub = peek(state.data, "substitution")  # read only
    return datetime.fromisoformat(sub["ends_at"]) if sub else None


def involves(state: GameState, sender: str) -> bool:
    """A PM from a substitute is his answer to the call (asked or not yet); after the 交替期,
    an answer that crossed the seat being taken, and any PM of a substitute, is answered as a
    substitute's (issue 23 item 12: not "你不是本局游戏者")."""
    subs = peek(state.data, "substitutes")  # read only (every PM asks)
    return subs is not None and sender in subs


def answer(spec: RulesetSpec, state: GameState, pm: PmIn, out: Messages) -> str | None:
    """A substitute's answer (see `involves`): the seat he takes, or None.  He always gets a
    reply (issue 13 item 4): the seat's role PM (the caller sends it), or why not."""
    sub = state.data.get("substitution")
    if not sub:
        _after_period(spec, state, pm, out)
        return None
    ends = datetime.fromisoformat(sub["ends_at"])
    when = clock.show(ends, state.zone)
    subject = spec.text("substitution_subject")
    if pm.sender not in sub["asked"]:  # he answered before (declined, or too late)
        out.refuse(pm.sender, pm.text, spec.text("substitution_not_asked", ends=when), reply_to=pm.sender,
                   subject=subject)
        return None
    sub["asked"].remove(pm.sender)
    if pm.at > ends:
        out.refuse(pm.sender, pm.text, spec.text("substitution_late", ends=when), reply_to=pm.sender, subject=subject)
        return None
    if any(word in pm.text for word in DECLINES):
        out.pm(pm.sender, subject, spec.text("substitution_noted"))
        return None
    seat = sub["seats"].pop(0)
    sub["taken"] = True
    p = state.player(seat)
    replaced = p.forum_name
    p.extra.setdefault("replaced", []).append(replaced)
    p.forum_name = pm.sender
    state.data["substitutes"].remove(pm.sender)
    out.post("main", spec.text("substitution_done", seat=seat))
    # issue 23 item 12: the replaced player learns it from the GM, not from the thread (001 §6.3)
    out.pm(replaced, spec.text("substitution_replaced_subject"), spec.text("substitution_replaced", seat=seat))
    _close_if_done(spec, state, out)
    return seat


def player_returned(spec: RulesetSpec, state: GameState, name: str, out: Messages) -> bool:
    """001 §6.3: the player came back before any substitute answered: the swap is off."""
    sub = state.data.get("substitution")
    if not sub or name not in sub["seats"]:
        return False
    sub["seats"].remove(name)
    sub["cancelled"] = True
    out.post("main", spec.text("substitution_cancelled", seat=name))
    _close_if_done(spec, state, out)
    return True


def expire(state: GameState) -> list[str]:
    """The period is over: the seats nobody took are wasted (DECISIONS §0.5)."""
    sub = state.data.pop("substitution", None)
    if sub:
        state.data["substitution_past"] = {"asked": list(sub["asked"]), "ends_at": sub["ends_at"], "filled": False}
    return list(sub["seats"]) if sub else []


def _close_if_done(spec: RulesetSpec, state: GameState, out: Messages) -> None:
    """Every seat is taken or kept: the period is over.  The substitutes who have not answered
    are not written to (issue 32 item 11: a PM thanking them for a reply they had not sent,
    then the answer to the reply they did send, was two PMs saying one thing); each one who
    answers later is told, in the one reply to his PM, whether the seat was taken or kept."""
    sub = state.data["substitution"]
    if sub["seats"]:
        return
    kept = bool(sub.get("cancelled")) and not sub.get("taken")
    state.data["substitution_past"] = {"asked": list(sub["asked"]), "ends_at": sub["ends_at"], "filled": True,
                                       "cancelled": kept}
    del state.data["substitution"]


def _after_period(spec: RulesetSpec, state: GameState, pm: PmIn, out: Messages) -> None:
    """A substitute's PM with no 交替期 open (issue 23 item 12).  One asked in the last period
    who answers after it closed is told why he got no seat: taken by another substitute, or
    too late; any other PM of a substitute is told no seat needs one now.  He stays a
    substitute (001 §6.3: the next call asks him again)."""
    subject = spec.text("substitution_subject")
    past = state.data.get("substitution_past")
    if past and pm.sender in past["asked"]:
        past["asked"].remove(pm.sender)
        if past["filled"]:
            why = "substitution_closed" if past.get("cancelled") else "substitution_taken"
            out.refuse(pm.sender, pm.text, spec.text(why), reply_to=pm.sender, subject=subject)
        else:
            when = clock.show(datetime.fromisoformat(past["ends_at"]), state.zone)
            out.refuse(pm.sender, pm.text, spec.text("substitution_late", ends=when), reply_to=pm.sender,
                       subject=subject)
        return
    out.refuse(pm.sender, pm.text, spec.text("substitution_none"), reply_to=pm.sender, subject=subject)
