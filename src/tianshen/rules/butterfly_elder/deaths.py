"""Deaths, wills, 诈尸 and lurking in seed 004 (五, 补充 二 2, 一 技能一): a death opens one
will within 24 h unless muted or removed; a dead player's other posts are 诈尸 for the GM;
a living player who does not post in a day is warned, twice is out (E27).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from tianshen.core.ballots import short
from tianshen.core.clock import show_for
from tianshen.core.deaths import die
from tianshen.core.events import note
from tianshen.core.model import GameState, Player, PostIn, peek
from tianshen.core.outbox import Messages
from tianshen.core.spec import Lines, RulesetSpec, Text
from tianshen.rules.butterfly_elder.roles import INDEPENDENTS, living


def identity(spec: RulesetSpec, p: Player) -> str:
    """五: killers as 杀手, good as 好人, independents by their role (the one identity
    function: the posts, the observation and the pages read it)."""
    if p.faction == INDEPENDENTS:
        return spec.role_name(p.role)
    return spec.factions[p.faction]


def die_at(spec: RulesetSpec, state: GameState, p: Player, cause: str, at: datetime) -> None:
    """A death announced at `at`: one will within 24 h (五, E26) unless muted this round
    (一 技能一 "连遗言也不能说", E21) or removed for lurking."""
    die(state, p, cause)
    hours = spec.timing.hours("will_hours", 24)
    allowed = cause not in ("lurking", "wasted", "modkill") and not is_muted(state, p.name)
    state.data["wills"][p.name] = {"until": (at + timedelta(hours=hours)).isoformat(), "allowed": allowed,
                                   "used": False}


def will_line(spec: RulesetSpec, state: GameState, names: list[str], at: datetime) -> Lines:
    """The wills' line of a death post (rendered when read)."""
    wills = state.data["wills"]
    lines: list[str | Text | Lines] = [spec.later("will_note_muted", name=n) for n in names if not wills[n]["allowed"]]
    if any(wills[n]["allowed"] for n in names):
        lines.insert(0, spec.later("will_note", until=show_for(state, at + timedelta(
            hours=spec.timing.hours("will_hours", 24)))))
    return Lines("\n", lines)


def is_muted(state: GameState, name: str) -> bool:
    """一 技能一: muted for round k, from the results post to the end of the vote."""
    info = peek(state.data, "round_info", {})  # looked at only (every post asks)
    k = state.phase.number
    in_round = state.phase.kind == "day" or (state.phase.kind == "night" and state.phase.step == "silence")
    return bool(info.get("muted") == name and info.get("round") == k and in_round)


def dead_post(spec: RulesetSpec, state: GameState, p: Player, post: PostIn, out: Messages) -> None:
    """五: one will within 24 h of the death (not in the vote thread, not edited); any
    other post by the dead is 诈尸, flagged for the GM (`gm_confirm_zombie`)."""
    w = state.data["wills"].get(p.name)
    in_time = w is not None and post.at <= datetime.fromisoformat(w["until"])
    if w and w["allowed"] and not w["used"] and in_time and not post.thread.startswith("vote:"):
        w["used"] = True
        note(out.log, f"will of {p.name} in {post.thread}", "will_posted")
        if post.edited:
            out.notes.append(spec.text("note_will_edited", name=p.name, text=short(post.text, 30)))
        return
    if post.thread.startswith("vote:"):
        out.refuse(p.name, post.text, spec.text("vote_refused", text=short(post.text, 30),
                                                     reason=spec.text("dead_player")), reply_to=p.name)
    flag = {"player": p.name, "at": post.at.isoformat(), "thread": post.thread, "text": short(post.text, 30)}
    state.data["zombie_flags"].append(flag)
    out.notes.append(spec.text("note_zombie", name=p.name, identity=identity(spec, p), thread=post.thread,
                                    text=short(post.text, 30)))


def lurkers(spec: RulesetSpec, state: GameState, at: datetime, lines: list[str | Text | Lines], out: Messages) -> None:
    """补充 二 2: 潜水一天给予警告，累计2次警告，按出局处理 (E27: as a death).  A day =
    from the last check to this vote's end; a player on leave then is not counted."""
    lurk = state.data["lurk"]
    since = datetime.fromisoformat(lurk["since"])
    limit = int(spec.options.get("lurk_warnings_out", 2))
    for p in living(state) if limit > 0 else []:
        leave = state.data["leave"].get(p.name)
        if p.name in lurk["posted"] or (leave and datetime.fromisoformat(leave) > since):
            continue
        n = lurk["warnings"][p.name] = lurk["warnings"].get(p.name, 0) + 1
        out.pm(p.name, spec.text("lurk_warning_subject"),
               spec.later("lurk_warning", since=show_for(state, since), until=show_for(state, at), n=n, limit=limit))
        out.notes.append(spec.text("note_lurk", name=p.name, since=show_for(state, since), until=show_for(state, at), n=n))
        if n >= limit:
            die_at(spec, state, p, "lurking", at)
            lines.append(spec.later("lurk_out", name=p.name, limit=limit, identity=identity(spec, p)))
    lurk.update(since=at.isoformat(), posted=[])
