"""The day vote of seed 004 (四, 补充说明 一 6, DECISIONS 5.1.5): open votes by posts, any
number of changes by new posts, abstention, counted only at the deadline; ties by a
published lot; the elder's 归零.

`state.data["ballots"]`: voter -> {"target": name or "" (abstain), "at": ISO time, "post": id}.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from tianshen.core import rng
from tianshen.core.model import GameState, peek, put
from tianshen.core.spec import RulesetSpec
from tianshen.core.tally import DayTally, TallyBallot, TallyRow
from tianshen.core.vote_post import VotePost, read_vote_post, resolve_name
from tianshen.rules.butterfly_elder.powers import Refused

ABSTAIN = ("弃权", "弃票", "abstain")
ZEROED = "归零"  # 一 技能二: the elder's 归零, as the tally's modifier


def read(text: str, names: Sequence[str]) -> VotePost | None:
    """The vote of a post (core.vote_post: a name, or 弃权/弃票; a reason may follow), None
    when the post is no vote."""
    return read_vote_post(text, names, abstain=ABSTAIN)


def name_only(vote: VotePost) -> bool:
    """一 技能一: a muted voter may write only the name (a bare `投票 名字` is taken as that too)."""
    return not vote.reason and not vote.others


def cast(spec: RulesetSpec, state: GameState, voter: str, kind: str, written: str, at: datetime, post_id: str) -> str:
    """Record the voter's latest post (补充 一 6 (2)(3): a change or an abstention is a new post)."""
    target = ""
    if kind == "vote":
        target = resolve_name(written, [p.name for p in state.players])
        if not state.player(target).alive:
            raise Refused(spec.text("vote_target_dead", name=target))
    old = (peek(state.data, "ballots") or {}).get(voter)  # looked at; the ballot written with `put`
    if old and datetime.fromisoformat(old["at"]) > at:
        return spec.text("vote_older")
    put(state.data, ("ballots",), voter, {"target": target, "at": at.isoformat(), "post": post_id})
    return spec.text("vote_line", target=target) if target else spec.text("vote_line_abstain")


@dataclass
class Count:
    counts: dict[str, int] = field(default_factory=dict)  # seat order, non-zero only
    voters: dict[str, list[str]] = field(default_factory=dict)
    abstained: list[str] = field(default_factory=list)
    zeroed: str | None = None
    lottery: dict | None = None  # {"candidates", "count", "draw", "index", "name"}
    out: str | None = None


def count(state: GameState, zero: str | None, draw: bool = True) -> Count:
    """四 and E6/E10/E11: the latest post of each living voter; the zeroed player (only if he
    is among the top) goes to 0 and the highest of the others goes out; ties by lot (without
    `draw`, none is drawn: the state's RNG is left alone); a top of 0 votes means nobody."""
    c = Count()
    ballots = state.data.get("ballots", {})
    order = [p.name for p in state.players]
    for name in order:
        b = ballots.get(name)
        if b is None or not state.player(name).alive:
            continue
        if not b["target"]:
            c.abstained.append(name)
            continue
        if not state.player(b["target"]).alive:
            continue  # removed by the GM since the vote: the vote falls
        c.voters.setdefault(b["target"], []).append(name)
    c.counts = {n: len(c.voters[n]) for n in order if n in c.voters}
    scores = dict(c.counts)
    best = max(scores.values(), default=0)
    if zero and best > 0 and scores.get(zero) == best:  # 一 技能二 / E6
        c.zeroed = zero
        scores[zero] = 0
        best = max(scores.values(), default=0)
    if best <= 0:
        return c  # E11, and 一 "如第二名票数为零则自动变为平安夜"
    top = [n for n in order if scores.get(n) == best]
    if len(top) == 1:
        c.out = top[0]
        return c
    if not draw:
        return c
    index = rng.below(state, len(top))  # 四 平票…通过抽签确定 (E10: seeded, published)
    c.lottery = {"candidates": top, "count": best, "draw": state.rng_draws, "index": index + 1, "name": top[index]}
    c.out = top[index]
    return c


def day_tally(state: GameState, c: Count, executed: str | None) -> DayTally:
    """The count as the result post shows it (issue 34): the latest post of each living
    voter, the abstentions apart, the zeroed player at 0 (一 技能二), who went out."""
    ballots = tuple(TallyBallot(v, name) for name, voters in c.voters.items() for v in voters)
    rows = tuple(TallyRow(n, votes, 0 if n == c.zeroed else votes, ZEROED if n == c.zeroed else "")
                 for n, votes in c.counts.items())
    return DayTally(day=state.phase.number, ballot="main",
                    ballots=ballots + tuple(TallyBallot(v, "") for v in c.abstained), rows=rows,
                    missing=tuple(p.name for p in state.players if p.alive and p.name not in state.data.get("ballots", {})),
                    abstained=tuple(c.abstained), executed=(executed,) if executed else ())
