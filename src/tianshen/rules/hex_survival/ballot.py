"""The day vote of seed 003 §9 (DECISIONS §4.1.6, D15–D18).

One vote per living player, self allowed; one change per player, by a new post, until an
hour before the end; an edited vote post is judged by its first version, does not count as
a change and ends the right to change; an ambiguous original vote must be cast again and
loses the right to change; a missing, blank or abstaining vote is a vote for oneself; all
the top vote-getters are punished.  Delegated votes (§9.9) are cast at once, at the time
the PM was sent, and a delegated change uses the change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tianshen.core.intake import Refused
from tianshen.core.model import GameState, Player, peek, put
from tianshen.core.names import seat_names
from tianshen.core.spec import RulesetSpec
from tianshen.core.tally import DELEGATED, GM, POST, PUNISHED, SELF, DayTally, TallyRow, ballots_of
from tianshen.core.vote_post import VotePost, read_vote_post

ABSTAIN = ("弃权", "空票", "不投", "abstain")


class VoteRefused(Refused):
    """The post or PM changed nothing; the message says why (plain Chinese)."""


def day(state: GameState) -> dict:
    return state.data["day"]


def ts(value: str) -> datetime:
    return datetime.fromisoformat(value)


@dataclass(frozen=True)
class Written:
    """What a vote post or PM names: a player, oneself (blank/abstain), or nothing usable.
    `ambiguous` is 003 §9.6's 措辞含混 (two players fit); any other refusal is unreadable
    or invalid and costs nothing (DECISIONS §0.3, issue 17)."""

    target: str | None
    error: str = ""
    ambiguous: bool = False


def read_post(text: str | None, state: GameState) -> VotePost | None:
    """The vote of a post (core.vote_post: a reason may follow the name), None when no vote.
    §9.6 投票不要求固定格式: a vote inside a sentence counts (`free_text`)."""
    if text is None:
        return None
    return read_vote_post(text, seat_names(state), abstain=ABSTAIN, free_text=True)  # (the names kept: no list a post)


def read_arg(written: str, state: GameState) -> VotePost:
    """A delegation's argument (`委托投票 丙，理由`), read like a vote line."""
    vote = read_vote_post("投票 " + written, seat_names(state), abstain=ABSTAIN)
    return vote or VotePost("vote", "投票", written)  # never None: the line starts with a verb


def choose(spec: RulesetSpec, state: GameState, p: Player, vote: VotePost | None) -> Written:
    """003 §9.5: a blank or abstaining vote is a vote for oneself; a name must be a living
    player, written so that it can mean only one (§9.6)."""
    if vote is None:
        return Written(None, spec.text("vote_not_understood"))
    if vote.verb == "abstain" or vote.blank:
        return Written(p.name)
    if vote.name is None:
        return Written(None, vote.error, ambiguous=vote.ambiguous)
    if not state.player(vote.name).alive:
        return Written(None, spec.text("vote_dead_target", name=vote.name))
    return Written(vote.name)


def cast(spec: RulesetSpec, state: GameState, p: Player, target: str, at: datetime, source: str,
         edited: bool = False) -> str:
    """Record a vote or a change; returns the receipt line, raises VoteRefused."""
    d = peek(state.data, "day")  # looked at; the ballot written with `put` (issue 37: `apply` copies no whole day)
    if at > ts(d["vote_ends_at"]):
        raise VoteRefused(spec.text("vote_closed"))
    ballot = d["ballots"].get(p.name)
    if ballot is None:
        frozen = edited or p.name in d["frozen"]
        put(state.data, ("day", "ballots"), p.name, {"target": target, "at": at.isoformat(), "source": source,
                                                     "changes": 0, "frozen": frozen, "first": target})
        line = spec.text("vote_taken", target=target)
        return line + ("\n" + spec.text("vote_no_change_left") if frozen else "")
    check_change(spec, state, p, at)
    # a new ballot, its keys in the same order (never the one `d` shares with an older state)
    changed = {**ballot, "target": target, "at": at.isoformat(), "source": source, "changes": ballot["changes"] + 1}
    if edited:
        changed["frozen"] = True
    put(state.data, ("day", "ballots"), p.name, changed)
    return spec.text("vote_changed", target=target, first=changed["first"])


def check_change(spec: RulesetSpec, state: GameState, p: Player, at: datetime) -> None:
    """003 §9.3–9.4: one change (one more after an extension for a substitute), not by
    editing, not in the last hour."""
    d = peek(state.data, "day")  # looked at only
    ballot = d["ballots"][p.name]
    if ballot["frozen"]:
        raise VoteRefused(spec.text("change_forbidden", target=ballot["target"]))
    if ballot["changes"] >= 1 + d.get("extra_changes", 0):
        raise VoteRefused(spec.text("change_used", target=ballot["target"]))
    if at > ts(d["change_until"]):
        raise VoteRefused(spec.text("change_too_late", target=ballot["target"]))


def edited_post(spec: RulesetSpec, state: GameState, p: Player, original: str | None, at: datetime) -> str:
    """003 §9.3: 直接编辑的视为改票无效，仍按原投票贴计票，并禁止再次改票; when the first
    version cannot be known, a first vote counts for the editor himself."""
    d = day(state)
    ballot = d["ballots"].get(p.name)
    written = choose(spec, state, p, read_post(original, state)) if original is not None else Written(None)
    if ballot is None:
        target = written.target or p.name
        line = cast(spec, state, p, target, at, "edited", edited=True)
        return spec.text("edited_first", target=target) + "\n" + line
    if written.target is not None and written.target != ballot["target"]:
        try:
            line = cast(spec, state, p, written.target, at, "edited", edited=True)
            return spec.text("edited_change", target=written.target) + "\n" + line
        except VoteRefused:
            pass
    ballot["frozen"] = True
    return spec.text("edited_void", target=ballot["target"])


def ambiguous_original(spec: RulesetSpec, state: GameState, p: Player, reason: str) -> str:
    """003 §9.6: an unclear first vote must be cast again and loses the change right; an
    unclear change is void and the first vote stands."""
    d = day(state)
    if p.name in d["ballots"]:
        return spec.text("change_unclear", reason=reason, target=d["ballots"][p.name]["target"])
    if p.name not in d["frozen"]:
        d["frozen"].append(p.name)
    return spec.text("vote_unclear", reason=reason)


def close(state: GameState) -> tuple[dict[str, str], list[str]]:
    """The final votes of the living (voter -> target) and who did not vote; a missing vote
    counts for the voter himself (003 §9.5).  Votes for a player who is no longer alive
    are dropped."""
    d = day(state)
    votes, missing = {}, []
    for q in state.players:
        if not q.alive:
            continue
        ballot = d["ballots"].get(q.name)
        if ballot is None:
            missing.append(q.name)
            votes[q.name] = q.name
        elif state.player(ballot["target"]).alive:
            votes[q.name] = ballot["target"]
    return votes, missing


def punished(votes: dict[str, str]) -> tuple[dict[str, int], list[str]]:
    """Counts, and everyone with the most votes (003 §9.2: 所有最高票得票者都将受到惩处)."""
    counts: dict[str, int] = {}
    for target in votes.values():
        counts[target] = counts.get(target, 0) + 1
    if not counts:
        return counts, []
    best = max(counts.values())
    return counts, [t for t, n in counts.items() if n == best]


def day_tally(state: GameState, votes: dict[str, str], missing: list[str]) -> DayTally:
    """The count as the result post shows it (issue 34): rows by votes then seat, a missing
    vote counted for the voter himself (003 §9.5), every top vote-getter punished (§9.2)."""
    counts, top = punished(votes)
    cast = day(state)["ballots"]
    sources = {"pm": DELEGATED, "gm": GM}  # §9.9: a delegation is cast by the GM at once
    how = {v: SELF if v in missing else sources.get(cast[v].get("source"), POST) for v in votes}
    rows = tuple(TallyRow(n, counts[n], counts[n]) for n in sorted(counts, key=lambda n: (-counts[n], state.player(n).seat)))
    return DayTally(day=state.phase.number, ballot="main", ballots=ballots_of(votes.items(), how), rows=rows,
                    executed=tuple(top), verdict=PUNISHED)
