"""000's ledgers (`core.ledgers`): the night actions not yet resolved (`actions`, and
`queued` from the day), whose declarations are their `decl`; the day's votes (`day.votes`)
and delegations (`day.delegations`).  A void goes through `withdraw`, so action points and
必杀 marks stay exact."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from tianshen.core.clock import show
from tianshen.core.ledgers import Actions, Ballots, Declaration, Entry
from tianshen.core.model import GameState, Player
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.core.tally import DayTally
from tianshen.rules.n_lives import day as days
from tianshen.rules.n_lives import intake
from tianshen.rules.n_lives.abilities import abilities


def pending(spec: RulesetSpec, state: GameState, p: Player, what: str = "") -> list[dict[str, Any]]:
    """His night actions not yet resolved (tonight's and those queued by day), all or those of
    one privilege (its id, name or a word players write for it)."""
    table = abilities(spec)
    what = what.strip()
    return [a for a in state.data["actions"] + state.data["queued"] if a["actor"] == p.name
            and (not what or what in (a["ability"], table[a["ability"]].name, *table[a["ability"]].words))]


def withdraw(state: GameState, p: Player, actions: list[dict[str, Any]]) -> None:
    """Take actions back before the lock: AP refunded when it was charged (queued ones are
    charged only at nightfall), a 必杀 stays unused (§3.3.3 applies only to what is made)."""
    for a in actions:
        if a in state.data["actions"]:
            state.data["actions"].remove(a)
            p.extra["ap"] += a["cost"]
        else:
            state.data["queued"].remove(a)
        if a["ability"] == "bisha":
            state.data["bisha_used"].remove(a["card"])


class Privileges(Actions):
    has_declarations = True

    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec

    def pending(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        return [Entry(p.name, intake.describe(self.spec, a)) for a in pending(self.spec, state, p, what)]

    def void(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        mine = pending(self.spec, state, p, what)
        withdraw(state, p, mine)
        return [Entry(p.name, intake.describe(self.spec, a)) for a in mine]

    def _declared(self, state: GameState, p: Player) -> list[dict[str, Any]]:
        return [a for a in state.data["actions"] if a["actor"] == p.name and a.get("decl")]

    def declaration(self, state: GameState, p: Player) -> Declaration | None:
        """§3.4.2: only the author is asked for a new one; his attacks wait for it."""
        if not self._declared(state, p):
            return None
        return Declaration(tell=[p.name], values={
            "ends": show(intake.lock_time(self.spec, state), state.zone),
            "min_chars": int(self.spec.options.get("decl_min_chars", 100))})

    def reject(self, state: GameState, p: Player) -> None:
        for a in self._declared(state, p):
            a["decl"] = None


class DayVotes(Ballots):
    def __init__(self, cast: Callable[[GameState, Player, str, datetime, str], str]) -> None:
        self.cast = cast

    def open(self, state: GameState) -> bool:
        return state.phase.kind == "day"

    def count(self, state: GameState, closing: bool) -> DayTally | None:
        """§8.2: each ballot weighs the voter's cards; delegations count (§8.4)."""
        return days.count(state, closing) if self.open(state) else None

    def may_vote(self, state: GameState, p: Player) -> bool:
        return p.alive and p.name not in (state.data.get("day") or {}).get("cannot_vote", [])

    def ballot(self, state: GameState, p: Player) -> Entry | None:
        d = state.data.get("day") or {}
        cast = d.get("votes", {}).get(p.name)
        if cast is not None:
            return Entry(p.name, cast["target"])
        given = d.get("delegations", {}).get(p.name)
        return Entry(p.name, str(given)) if given is not None else None

    def void(self, state: GameState, p: Player) -> None:
        d = state.data["day"]
        d["votes"].pop(p.name, None)
        d["delegations"].pop(p.name, None)

    def enter(self, state: GameState, p: Player, written: str, at: datetime, gm_id: str, out: Messages) -> str:
        return self.cast(state, p, written, at, "gm")
