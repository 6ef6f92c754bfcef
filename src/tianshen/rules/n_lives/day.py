"""The end of a day of 猫有n条命, in the order of DECISIONS 1.1.8: day 必杀, the weighted vote
(§8.2), curse and bless (§3.1.9, A14), the top two executed (§8.3, A11–A13), escrow (A15),
圣人's revenge (§3.1.3c, A16, A28)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tianshen.core import rng
from tianshen.core.events import record_tally
from tianshen.core.model import GameState, peek
from tianshen.core.spec import Lines, RulesetSpec, Text
from tianshen.core.tally import DELEGATED, POST, DayTally, TallyRow, ballots_of
from tianshen.rules.n_lives import cards


@dataclass
class Row:
    name: str
    raw: int
    count: int
    voters: list[tuple[str, int, bool]]  # (voter, weight, delegated)


@dataclass
class Dusk:
    bisha: list[tuple[str, str]] = field(default_factory=list)  # (target, card lost)
    rows: list[Row] = field(default_factory=list)
    executed: list[str] = field(default_factory=list)
    escrowed: list[str] = field(default_factory=list)
    lost_now: list[tuple[str, str]] = field(default_factory=list)  # executed, card (saint / pardoned before)
    revenge: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # saint -> [(voter, card)]
    missing: list[str] = field(default_factory=list)  # no vote and no delegation (§8.5)
    tally: DayTally | None = None  # the count the dusk post shows (core.tally, issue 34)


def resolve(state: GameState, options: dict[str, Any], log: list[str]) -> Dusk:
    dusk = Dusk()
    _day_bisha(state, dusk)
    ballots = _ballots(state, dusk)
    dusk.rows = tally(state, ballots, state.data["mods"])
    living = [p for p in state.players if p.alive and (peek(p.extra, "hand") or p.extra.get("escrow"))]
    dusk.executed = executed(dusk.rows, len(living), options, state)
    dusk.tally = day_tally(state, dusk, ballots)
    record_tally(log, "tally: " + ", ".join(f"{r.name} {r.raw}->{r.count}" for r in dusk.rows), dusk.tally)
    _execute(state, dusk, ballots)
    return dusk


def count(state: GameState, closing: bool) -> DayTally:
    """The count as the dusk would make it now (on a copy, after the day 必杀 with
    `closing`; as the ballots stand without it, so nothing secret is applied)."""
    if closing:
        state = state.copy()
    dusk = Dusk()
    if closing:
        _day_bisha(state, dusk)
    ballots = _ballots(state, dusk)
    dusk.rows = tally(state, ballots, state.data["mods"])
    return day_tally(state, dusk, ballots)


def day_tally(state: GameState, dusk: Dusk, ballots: dict[str, tuple[str, bool]]) -> DayTally:
    """The count as the dusk post shows it (issue 34): the rows, each voter's weight (his
    cards at the close), delegations, the non-voters and the executed."""
    d = state.data["day"]
    weights = {v: w for r in dusk.rows for v, w, _ in r.voters}
    how = {v: DELEGATED if delegated else (d["votes"].get(v) or {}).get("source") or POST
           for v, (_, delegated) in ballots.items()}
    return DayTally(day=state.phase.number, ballot="main", ballots=ballots_of(
                        ((v, t) for v, (t, _) in ballots.items()), how, weights),
                    rows=tuple(TallyRow(r.name, r.raw, r.count, "" if r.count == r.raw else f"{r.raw}→{r.count}")
                               for r in dusk.rows),
                    missing=tuple(dusk.missing), executed=tuple(dusk.executed))


def _day_bisha(state: GameState, dusk: Dusk) -> None:
    """§3.1.8a: a 必杀 sent by day takes the target's front card at the end of the day, before
    the count ("如果是在白天损失，则加权计票不再计算损失的牌"); A34: on a player already out
    it is spent for nothing."""
    for hit in state.data["day_bisha"]:
        p = state.player(hit["target"])
        card = cards.lose_front(p) if p.alive else None
        if card:
            dusk.bisha.append((p.name, card))
    state.data["day_bisha"] = []


def _ballots(state: GameState, dusk: Dusk) -> dict[str, tuple[str, bool]]:
    """voter -> (target, delegated).  §8.4: a delegation counts only for one who did not vote
    himself; §8.5: a living voter with neither is out.  A40: a vote for a player who has just
    lost his last card is dropped; a voter with no card left weighs 0."""
    d = state.data["day"]
    out: dict[str, tuple[str, bool]] = {}
    for p in state.players:
        if not p.alive or p.name in d["cannot_vote"]:
            continue
        if not _has_cards(state, p.name):
            continue  # 1.1.8 step 1: emptied by a day 必杀, he is out (§5.8), not a non-voter
        if p.name in d["votes"]:
            out[p.name] = (d["votes"][p.name]["target"], False)
        elif p.name in d["delegations"]:
            out[p.name] = (d["delegations"][p.name], True)
        else:
            dusk.missing.append(p.name)
    return {v: t for v, t in out.items() if _has_cards(state, t[0])}


def _has_cards(state: GameState, name: str) -> bool:
    p = state.player(name)
    return p.alive and bool(peek(p.extra, "hand") or p.extra.get("escrow"))  # `cards.held`, without its call


def tally(state: GameState, ballots: dict[str, tuple[str, bool]], mods: list[dict[str, Any]]) -> list[Row]:
    """§8.2: each vote weighs the voter's cards at the end of the vote.  A14: additive
    modifiers as a net sum, clamped at 0; then 恶毒诅咒 (×2) and 虔诚庇佑 (⌊÷2⌋, §3.1.9d "奇数时
    先减1再减半") cancel in pairs; the rest apply one after another."""
    rows: dict[str, Row] = {}
    for voter, (target, delegated) in ballots.items():
        weight = len(peek(state.player(voter).extra, "hand") or ())
        row = rows.setdefault(target, Row(target, 0, 0, []))
        row.raw += weight
        row.voters.append((voter, weight, delegated))
    for m in mods:
        if m["target"] not in rows and _has_cards(state, m["target"]):
            rows[m["target"]] = Row(m["target"], 0, 0, [])
    for row in rows.values():
        mine = [m["kind"] for m in mods if m["target"] == row.name]
        value = max(0, row.raw + mine.count("curse") - mine.count("bless"))
        doubles, halves = mine.count("hex"), mine.count("devout")
        pairs = min(doubles, halves)
        for _ in range(doubles - pairs):
            value *= 2
        for _ in range(halves - pairs):
            value //= 2
        row.count = value
    seat = {p.name: p.seat for p in state.players}
    return sorted(rows.values(), key=lambda r: (-r.count, seat[r.name]))


def executed(rows: list[Row], living: int, options: dict[str, Any], state: GameState) -> list[str]:
    """§8.3: the players whose count ranks in the top two, all ties included, never one with 0
    votes (A11: competition ranking; A13: after modifiers); with two alive only the top one
    (A12: a tie executes nobody, by default)."""
    counted = [r for r in rows if r.count > 0]
    if not counted:
        return []
    if living <= 2:
        best = [r.name for r in counted if r.count == counted[0].count]
        if len(best) == 1:
            return best
        mode = str(options.get("two_alive_tie", "none"))
        if mode == "both":
            return best
        if mode == "lottery":
            return [rng.choice(state, best)]
        return []
    if str(options.get("top2_ranking", "competition")) == "dense":
        levels = sorted({r.count for r in counted}, reverse=True)[:2]
        return [r.name for r in counted if r.count in levels]
    return [r.name for r in counted if 1 + sum(1 for q in counted if q.count > r.count) <= 2]


def _execute(state: GameState, dusk: Dusk, ballots: dict[str, tuple[str, bool]]) -> None:
    """§8.3 and A15–A17: an executed player's front card goes into escrow until the next
    dawn, unless he cannot be pardoned (already pardoned once, or he is a 圣人 today): then it
    is lost now.  Then every 圣人's voters lose their front card (A16: after the escrow)."""
    saints = state.data["saint"]
    for name in sorted(dusk.executed, key=lambda n: state.player(n).seat):
        p = state.player(name)
        if name in saints or p.extra.get("pardoned"):
            card = cards.lose_front(p)
            if card:
                dusk.lost_now.append((name, card))
        else:
            card = cards.lose_front(p)
            if card:
                p.extra["escrow"] = card
                dusk.escrowed.append(name)
    for name in sorted(dusk.executed, key=lambda n: state.player(n).seat):
        if name not in saints:
            continue
        state.data["saint_used"].append(saints[name])  # §3.1.3c: 只能生效一次
        voters = [v for v, (t, _) in ballots.items() if t == name]
        losses = []
        for v in sorted(voters, key=lambda n: state.player(n).seat):
            card = cards.lose_front(state.player(v))
            if card:
                losses.append((v, card))
        dusk.revenge[name] = losses
    state.data["saint"] = {}  # unused: "下一夜还可以使用，但消耗的行动点数不返还"


def tally_lines(spec: RulesetSpec, count: DayTally | None) -> list[Lines]:
    """The dusk post's table, rendered from the day's tally: each voter with his weight
    (his cards), delegations marked, a modified count as raw→count."""
    if count is None or not count.rows:
        return []
    table: list[str | Text | Lines] = [spec.text("tally_header"), spec.text("tally_columns"), "| --- | --- | --- |"]
    for r in count.rows:
        voters = "、".join(f"{b.voter}（{b.weight}）" + (spec.text("delegated_mark") if b.how == DELEGATED else "")
                          for b in count.ballots if b.target == r.name)
        total = str(r.total) if r.total == r.votes else spec.later("tally_modified", raw=r.votes, count=r.total)
        table.append(spec.later("tally_line", name=r.name, count=total, voters=voters or "—"))
    return [Lines("\n", table)]
