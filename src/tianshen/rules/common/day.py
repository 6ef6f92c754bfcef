"""The day: the vote, the life-death vote, will-vote counting and summoning the dead.

Seed 002 has no vote rules; DECISIONS C2 fills them from 001 §5.1–§5.5 (DECISIONS §2.1.6,
§3.1.7): one vote each, no change, no abstention (a non-voter is out), delegation by PM cast
after everyone else, curse/bless on the main vote only, ties → 生死投票 → 遗言计票 → 天神招魂
→ nobody executed.

Shared by `classic` and `game_ten` (001 itself).  001 §2.7 adds players revived for the day by
the 招魂 role (`day["revived"]`, empty in classic): they vote in the main and the life-death
vote and may abstain, can't be voted for (DECISIONS B15), and are not summoned again by the
GM that day (001 §5.5).
"""

from __future__ import annotations

from datetime import datetime

from tianshen.core.clock import PhaseClock, iso, iso_of, parse
from tianshen.core.clock import show as show_time
from tianshen.core.deaths import die
from tianshen.core.model import GameState, Player, peek, put
from tianshen.core.names import seat_names
from tianshen.core.spec import Hot, RulesetSpec, Text
from tianshen.core.tally import DELEGATED, POST, DayTally, TallyRow, ballot, ballots_of
from tianshen.core.tally import row as tally_row
from tianshen.core.vote_post import resolve_name
from tianshen.core.votes import Tally, tally
from tianshen.rules.common.actions import Refused, names_match


def day(state: GameState) -> dict:
    return state.data["day"]


def day_read(state: GameState) -> dict:
    """The day to look at, not to change or keep (`core.model.peek`: `apply`'s copy does not
    copy the whole day for a look, issue 37)."""
    return peek(state.data, "day")  # type: ignore[no-any-return]


def ts(value: str) -> datetime:
    return parse(value)


def begin_day(spec: RulesetSpec | Hot, state: GameState, at: datetime, night_dead: list[str], saved: list[str],
              net: dict[str, int]) -> None:
    schedule = PhaseClock(spec.timing).day(at)
    state.phase.kind, state.phase.step = "day", "discussion"
    state.phase.started_at, state.phase.ends_at = at, schedule.vote_ends
    state.data["day"] = {
        "vote_opens_at": iso(schedule.vote_opens, schedule.vote_opens.utcoffset()),
        "vote_ends_at": iso(schedule.vote_ends, schedule.vote_ends.utcoffset()),
        "cannot_vote": saved,  # 002 束魂: the saved player can't vote today (main and LD)
        "net": net,
        "night_dead": night_dead,
        "wills": {},
        "ballots": {"main": {}, "ld": {}, "summon": {}},
        "delegations": {"main": {}, "ld": {}},
        "candidates": [],
        "summoned": [],
        "summon_round": 0,
        "revived": [],  # 001 §2.7: dead players summoned by the 招魂 role for this day
    }


_BALLOT_OF_STEP = {"vote": "main", "ld": "ld", "summon": "summon"}


def ballot_kind(state: GameState) -> str | None:
    return _BALLOT_OF_STEP.get(state.phase.step)


def voters(state: GameState, kind: str) -> list[Player]:
    """Who must vote: living players except those saved by 束魂 (002); summoned dead vote
    only in their summoning round (001 §5.5)."""
    if kind == "summon":
        return [state.player(n) for n in day_read(state)["summoned"]]
    d = day_read(state)
    barred = set(d["cannot_vote"])
    revived = set(d.get("revived", []))  # 001 §2.7: 被招魂者…参加投票
    found = []  # (a loop: the comprehension made three cells a call)
    for p in state.players:
        if (p.alive or p.name in revived) and p.name not in barred:
            found.append(p)
    return found


def must_vote(state: GameState, kind: str, p: Player) -> bool:
    """Whether `p` is among `voters(state, kind)`, without making the list (every vote asks)."""
    return _must_vote(day_read(state), kind, p)


def _must_vote(d: dict, kind: str, p: Player) -> bool:
    """`must_vote` on the day `d` (looked at, not changed)."""
    if kind == "summon":
        return p.name in d["summoned"]
    return (p.alive or p.name in d.get("revived", ())) and p.name not in d["cannot_vote"]


def may_vote_dead(state: GameState, name: str) -> bool:
    """A dead player who votes today: summoned by the GM (001 §5.5) or by 招魂 (001 §2.7)."""
    d = peek(state.data, "day") or {}
    return name in d.get("summoned", []) or name in d.get("revived", [])


def candidates(state: GameState, kind: str) -> list[str]:
    if kind == "main":
        return [p.name for p in state.players if p.alive]
    return list(day_read(state)["candidates"])


def window_end(state: GameState) -> datetime:
    return _window_end(day_read(state), state.phase.step)


def _window_end(d: dict, step: str) -> datetime:
    """`window_end` on the day `d` (looked at, not changed) in step `step`."""
    return parse(d["step_ends_at"] if step in ("ld", "summon") else d["vote_ends_at"])


def candidate(state: GameState, kind: str, written: str) -> str:
    """The candidate a vote names: read against every player (so a dead 丙丁 is not taken
    for 丙), then checked against this ballot's candidates."""
    p = state.find(written)  # (a vote post's name is a seat's: found once, from the seat table)
    name = written
    if p is None:
        name = resolve_name(written, seat_names(state))
        p = state.find(name)
    if kind == "main":  # (every living player: the list is made only for a refusal)
        ok = p is not None and p.alive
    else:
        ok = name in day_read(state)["candidates"]
    if not ok:
        raise Refused(f"{name}不是这次投票的候选人。候选人：{'、'.join(candidates(state, kind))}。")
    return name


def cast_vote(state: GameState, p: Player, written: str, at: datetime, source: str) -> str:
    """Record one vote; returns the receipt.  001 §5.1: a vote once cast cannot change."""
    step = state.phase.step
    kind = _BALLOT_OF_STEP.get(step)  # (`ballot_kind` and `window_end` inline: every vote)
    if kind is None:
        raise Refused("现在不是投票时间。投票帖贴出后请在投票帖里跟帖投票。")
    looked = peek(state.data, "day")  # (looked at only: the vote is written with `put`)
    if at > parse(looked["step_ends_at"] if step in ("ld", "summon") else looked["vote_ends_at"]):
        raise Refused("投票已经截止，这一票无效。")
    if not _must_vote(looked, kind, p):
        if p.name in day(state)["cannot_vote"]:
            raise Refused("你昨夜被束魂救活，魂不守舍，今天不能参加投票和生死投票。")
        raise Refused("你不能参加这次投票。")
    cast = looked["ballots"][kind].get(p.name)
    if cast is not None:
        raise Refused(f"你已经投给了{cast['target']}。投票一旦投出，就禁止修改。")
    target = candidate(state, kind, written)
    put(state.data, ("day", "ballots", kind), p.name, {"target": target, "at": iso_of(at), "source": source})
    if p.name in looked["delegations"].get(kind, ()):  # (`put` wrote the ballots only: the same delegations)
        del day(state)["delegations"][kind][p.name]  # 001 §5.3: own vote voids the delegation
    return f"{p.name} 投票给 {target}"


def delegate(state: GameState, p: Player, written: str, at: datetime) -> str:
    """001 §5.3 委托投票: a definite name by PM before the vote ends; changeable until published."""
    step = state.phase.step
    kind = "ld" if step == "ld" else "main" if step in ("discussion", "vote") else None
    if state.phase.kind != "day" or kind is None:
        raise Refused("现在不能委托投票：委托投票只能在白天投票或生死投票结束前寄出。")
    if at > window_end(state):
        # 001 §5.3 "委托投票只要在投票结束前寄出…都视为有效": judged by the PM's forum time
        raise Refused("投票已经截止，这个委托投票无效。")
    if not must_vote(state, kind, p):
        raise Refused("你今天不能参加投票，也不能委托投票。")
    if p.name in day(state)["ballots"][kind]:
        raise Refused("你已经在投票帖里投过票了，委托投票无效。")
    if not written:
        raise Refused("委托投票必须写一个确定的游戏者名字。格式：委托投票 名字")
    target = candidate(state, kind, written)  # issue 17: `委托投票 丙，理由` names 丙
    day(state)["delegations"][kind][p.name] = target
    return f"委托投票 {target}（天神将在其他人投票后代你投出；公布前可以修改）"


def accuse(state: GameState, p: Player, written: str) -> str:
    """001 §4.2 遗言: last night's dead accuse, and may change it any time (B16 `/accuse`)."""
    if state.phase.kind != "day" or p.name not in day_read(state)["night_dead"]:
        raise Refused("只有昨夜死去的游戏者可以在遗言中指控。")
    parts = [x for x in written.replace("，", ",").replace("、", ",").replace(" ", ",").split(",") if x]
    if not parts:
        raise Refused("没有写指控的对象。格式：指控 名字（可写多人，用逗号分开）")
    names = [q.name for q in state.players]
    accused = sorted({names_match(x, names) for x in parts}, key=names.index)
    put(state.data, ("day", "wills"), p.name, accused)  # (not a copy of the whole day by `apply`)
    return "遗言指控：" + "、".join(accused)


def close_ballot(state: GameState, kind: str) -> tuple[dict[str, str], list[str]]:
    """The counted votes (voter -> target, delegations cast last) and the non-voters."""
    d = day_read(state)
    votes = {}  # (loops: the comprehensions made two cells a call)
    for v, b in d["ballots"][kind].items():
        votes[v] = b["target"]
    for voter, target in d["delegations"].get(kind, {}).items():
        if voter not in votes and target in candidates(state, kind):
            votes[voter] = target
    # 001 §5.3: "被招魂来投票的游戏者可以弃权" — the summoned and the revived may abstain
    missing: list[str] = []
    if kind != "summon":
        revived = set(d.get("revived", []))
        for p in voters(state, kind):
            if p.name not in votes and p.name not in revived:
                missing.append(p.name)
    return votes, missing


def day_tally(spec: RulesetSpec | Hot, state: GameState, kind: str, votes: dict[str, str], result: Tally,
              missing: list[str], with_modifiers: bool, executed: str | None = None) -> DayTally:
    """The count of one ballot as its result post shows it (issue 34): the rows in the post's
    order, curse/bless only where visible (001 §2.5–2.6), every counted ballot and how it came."""
    d = day(state)
    rows = []
    counts, raw, net = result.counts, result.raw, d["net"]
    # most votes first, ties in the count's order (`reverse` keeps a sort stable)
    for name in sorted(counts, key=counts.__getitem__, reverse=True):
        got, total = raw.get(name, 0), counts[name]
        if with_modifiers and total == 0 and got == 0:
            # 002 庇佑: "如果被庇佑的人的得票本来就是0，也不再公布他被庇佑" — a line "X：0票" that
            # only a bless can produce would reveal it, so a 0-vote candidate is not listed.
            continue
        # (no curse or bless on the candidate: no note)
        note = modifier_note(spec, modifier, got) if with_modifiers and (modifier := net.get(name, 0)) else ""
        rows.append(tally_row(name, got, total, note))
    cast = d["ballots"].get(kind, {})
    ballots = tuple([ballot(v, t, 1, (cast[v].get("source") or POST) if v in cast else DELEGATED)
                     for v, t in votes.items()])  # (a list first: no generator)
    # (by position: day, ballot, ballots, rows, missing, abstained, executed)
    return DayTally(state.phase.number, kind, ballots, tuple(rows), tuple(missing), (),
                    (executed,) if executed else ())


def describe(hot: Hot, state: GameState, votes: dict[str, str], count: DayTally) -> list[str | Text]:
    """The result post's table, rendered from the ballot's tally: one row per candidate,
    count, voters, and curse/bless where visible."""
    d = day(state)
    delegating = set().union(*d["delegations"].values())  # whoever gave a delegation in any ballot
    posted = d["ballots"]["main"], d["ballots"]["ld"]
    by_target: dict[str, list[str]] = {}  # each target's voters, in the votes' order, marked when delegated
    for v, t in votes.items():
        mark = "（委托）" if v in delegating and v not in posted[0] and v not in posted[1] else ""
        by_target.setdefault(t, []).append(v + mark)
    later = hot.later_of  # (a line a voted-for player)
    lines: list[str | Text] = [later("tally_columns", {})]  # rendered when the post is read
    for row in count.rows:
        who = by_target.get(row.name, ())
        lines.append(later("tally_line", {"name": row.name, "count": row.total, "voters": "、".join(who) or "—",
                                          "note": row.modifier or " "}))
    return lines if len(lines) > 1 else []


def modifier_note(spec: RulesetSpec | Hot, net: int, raw: int) -> str:
    """A curse shows when it applied; a bless only when it reduced a non-zero count (B28)."""
    if net > 0:
        return spec.text("curse_note")
    if net < 0 and raw > 0:
        return spec.text("bless_note")
    return ""


def main_tally(state: GameState, votes: dict[str, str]) -> Tally:
    net = {}  # (a loop: the comprehension made a cell a call)
    for n, v in day(state)["net"].items():
        if state.player(n).alive:
            net[n] = v
    return tally(votes.values(), net)


def ld_tally(state: GameState, ld_votes: dict[str, str] | None = None) -> tuple[Tally, dict[str, int]]:
    """Cumulative count of the tie-break: LD votes + wills + summoned dead (001 §5.2–§5.5);
    `ld_votes` the 生死投票's votes before its close has kept them."""
    d = day(state)
    cands = d["candidates"]
    ld = d["ld_votes"] if ld_votes is None else ld_votes
    targets = list(ld.values()) + [b["target"] for b in d["ballots"]["summon"].values()]
    extra = {c: 0 for c in cands}
    if d.get("wills_counted"):
        for accused in d["wills"].values():
            for c in accused:
                if c in extra:
                    extra[c] += 1
    result = tally(targets, extra)
    counts = {c: result.counts.get(c, 0) for c in cands}
    return Tally(counts=counts, raw={c: result.raw.get(c, 0) for c in cands}), extra


def summon_tally(state: GameState, executed: bool) -> DayTally:
    """A 招魂 round's count (001 §5.5): the summoned dead's ballots, every candidate with the
    cumulative count of the tie-break; with `executed`, the one on top when he is alone."""
    d = day(state)
    result, _ = ld_tally(state)
    summoned = {v: b["target"] for v, b in d["ballots"]["summon"].items()}
    return DayTally(day=state.phase.number, ballot="summon", ballots=ballots_of(summoned.items()),
                    rows=tuple(TallyRow(c, result.raw.get(c, 0), result.counts[c]) for c in d["candidates"]),
                    executed=tuple(result.top) if executed and len(result.top) == 1 else ())


def summon_nights(state: GameState) -> list[list[str]]:
    """001 §5.5 / B17: the dead of each night, newest first, skipping nights without deaths."""
    k = state.phase.number
    revived = set(day(state).get("revived", []))  # 001 §5.5: not both summoned by 招魂 and by the GM
    nights = []
    for n in range(k, 0, -1):
        dead = [p.name for p in state.players if p.died_in == f"night {n}" and p.name not in revived]
        if dead:
            nights.append(dead)
    return nights


def remove_non_voters(spec: RulesetSpec, state: GameState, missing: list[str], out_lines: list[str],
                      notes: list[str]) -> None:
    """001 §5.3/§6.1.5: no vote and no delegation ⇒ out of the game; with no substitute the
    seat is wasted and counts as a death, identity shown (DECISIONS §0.5, B34)."""
    for name in missing:
        p = state.player(name)
        if not p.alive:
            continue
        die(state, p, "no_vote")
        out_lines.append(spec.text("removed_no_vote", name=name, identity=identity(spec, p)))
        notes.append(spec.text("note_removed_no_vote", name=name))


def identity(spec: RulesetSpec | Hot, p: Player) -> str:
    """Deaths show only 杀手 or 平民 (001 §5.1, B20)."""
    return spec.factions[p.faction]


def current_count(spec: RulesetSpec, state: GameState, shown: DayTally | None) -> str:
    """A PM 「票数」 gets the count so far: the ballots ledger's `shown` count, the votes
    posted in the thread (public anyway); delegations stay secret until the count, and
    nobody learns who asked."""
    if ballot_kind(state) is None or shown is None:
        raise Refused("现在没有进行中的投票。")
    lines = [f"{r.name}：{r.votes}票" for r in shown.rows] or ["还没有人投票。"]
    return spec.text("current_count", lines="\n".join(lines), ends=show_time(window_end(state), state.zone))


def ld_executed(state: GameState, missing: list[str]) -> str | None:
    """Who the 生死投票 executes, as `_close_ld` will decide it (on a copy): the one
    candidate left after the removals, the top of the count, or of the count with the
    wills; None when a 招魂 round follows or nobody is left."""
    trial = state.copy()
    d = trial.data["day"]
    for name in missing:
        trial.player(name).alive = False
    d["candidates"] = [c for c in d["candidates"] if trial.player(c).alive]
    if len(d["candidates"]) <= 1:
        return d["candidates"][0] if d["candidates"] else None
    for wills in (False, True):
        d["wills_counted"] = wills
        top = ld_tally(trial)[0].top
        if len(top) == 1:
            return top[0]
    return None
