"""003's ledgers (`core.ledgers`): a phase's actions (`night.attacks` by night, `day.actions`
by day, one per player) and the day's ballots (`day.ballots`); no declarations."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from tianshen.core.abilities import table
from tianshen.core.ledgers import Actions, Ballots, Entry
from tianshen.core.model import GameState, Player
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.core.tally import DELEGATED, GM, POST, DayTally
from tianshen.rules.hex_survival import ballot


def _store(state: GameState) -> dict[str, Any]:
    kind = state.phase.kind
    return state.data["night"]["attacks"] if kind == "night" else state.data["day"]["actions"] if kind == "day" else {}


class PhaseActions(Actions):
    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec

    def pending(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        """The GM's `void-action` menu: his action of this phase, named as the ability table
        names it (攻击 X, 移动 b2, 挖掘)."""
        entry = _store(state).get(p.name)
        if entry is None:
            return []
        ability, target = ("attack", entry) if isinstance(entry, str) else (entry["kind"], entry.get("to", ""))
        return [Entry(p.name, f"{table(self.spec).by_id[ability].name} {target}".strip())]

    def void(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        mine = self.pending(state, p)
        _store(state).pop(p.name, None)
        return mine


class DayBallots(Ballots):
    SHOWN = frozenset({POST, GM, DELEGATED})  # §9.9: a delegated vote is posted at once

    def count(self, state: GameState, closing: bool) -> DayTally | None:
        """§9.5: the living's votes, a missing one counted for the voter himself."""
        if not self.open(state):
            return None
        votes, missing = ballot.close(state)
        return ballot.day_tally(state, votes, missing)

    def __init__(self, delegate: Callable[[GameState, Player, str, datetime, Messages], str]) -> None:
        self.delegate = delegate  # §9.9: a vote the GM casts is a delegated one, posted at once

    def open(self, state: GameState) -> bool:
        return state.phase.kind == "day" and state.phase.step == "vote"

    def ballot(self, state: GameState, p: Player) -> Entry | None:
        cast = state.data["day"]["ballots"].get(p.name) if state.phase.kind == "day" else None
        return Entry(p.name, cast["target"]) if cast else None

    def cast_at(self, state: GameState) -> dict[str, str]:
        return {v: str(b.get("at", "")) for v, b in state.data["day"]["ballots"].items()}

    def void(self, state: GameState, p: Player) -> None:
        del state.data["day"]["ballots"][p.name]

    def enter(self, state: GameState, p: Player, written: str, at: datetime, gm_id: str, out: Messages) -> str:
        return self.delegate(state, p, written, at, out)
