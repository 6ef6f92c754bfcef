"""The 001/002 family's ledgers (`core.ledgers`) over its `data` keys: tonight's actions in
`subs[verb][actor]`, the killer groups' declarations in `decl[group]`, the day's ballots in
`day.ballots[kind]` and `day.delegations[kind]` (kind: main, ld, summon)."""

from __future__ import annotations

from datetime import datetime

from tianshen.core.abilities import table
from tianshen.core.clock import show
from tianshen.core.ledgers import Actions, Ballots, Declaration, Entry
from tianshen.core.model import GameState, Player, put
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.core.tally import DayTally
from tianshen.rules.common import day as days
from tianshen.rules.common.roles import group_of, is_killer, partners


class NightActions(Actions):
    has_declarations = True

    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec

    def pending(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        """The GM's `void-action` menu: tonight's entry of each of the player's abilities."""
        if state.phase.kind != "night":
            return []
        subs = state.data["subs"]
        return [Entry(p.name, f"{a.name} {subs[a.id][p.name]}") for a in table(self.spec).held(p.role)
                if p.name in subs.get(a.id, {})]

    def record(self, state: GameState, p: Player, ability: str, target: str) -> None:
        put(state.data, ("subs", ability), p.name, target)

    def void(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        mine = self.pending(state, p)
        for a in table(self.spec).held(p.role):
            if mine:
                state.data["subs"].get(a.id, {}).pop(p.name, None)
        return mine

    def declaration(self, state: GameState, p: Player) -> Declaration | None:
        group = group_of(self.spec, state, p) if is_killer(p) else None
        if group is None or group not in state.data["decl"]:
            return None
        return Declaration(tell=[q.name for q in [p, *partners(self.spec, state, p)] if q.alive],
                           values={"ends": show(state.phase.ends_at, state.zone)})

    def reject(self, state: GameState, p: Player) -> None:
        del state.data["decl"][group_of(self.spec, state, p)]


class DayBallots(Ballots):
    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec

    def count(self, state: GameState, closing: bool) -> DayTally | None:
        """The ballot of the step (main, 生死投票, 招魂 round) as its close counts it: posted
        votes, then the delegations (001 §5.3); curse and bless on the main vote only."""
        kind = days.ballot_kind(state)
        if state.phase.kind != "day" or kind is None:
            return None
        if kind == "summon":
            return days.summon_tally(state, executed=False)
        votes, missing = days.close_ballot(state, kind)
        if kind == "main":
            return days.day_tally(self.spec, state, kind, votes, days.main_tally(state, votes), missing, True)
        return days.day_tally(self.spec, state, kind, votes, days.ld_tally(state, votes)[0], missing, False)

    def open(self, state: GameState) -> bool:
        return days.ballot_kind(state) is not None

    def ballot(self, state: GameState, p: Player) -> Entry | None:
        kind = days.ballot_kind(state)
        d = state.data.get("day", {})
        cast = d["ballots"][kind].get(p.name) if kind else None
        if cast is not None:
            return Entry(p.name, cast["target"])
        given = d["delegations"].get(kind, {}).get(p.name) if kind else None
        return Entry(p.name, str(given)) if given is not None else None

    def may_vote(self, state: GameState, p: Player) -> bool:
        """The ballot's voters (束魂-saved players sit the day out; the summoned dead vote)."""
        kind = days.ballot_kind(state)
        return kind is not None and p.name in {q.name for q in days.voters(state, kind)}

    def void(self, state: GameState, p: Player) -> None:
        kind = days.ballot_kind(state)
        d = state.data["day"]
        d["ballots"][kind].pop(p.name, None)
        d["delegations"].get(kind, {}).pop(p.name, None)

    def enter(self, state: GameState, p: Player, written: str, at: datetime, gm_id: str, out: Messages) -> str:
        return days.cast_vote(state, p, written, at, "gm")
