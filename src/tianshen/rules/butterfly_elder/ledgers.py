"""004's ledgers (`core.ledgers`): the power round's actions (`actions[slot]`, by whom) and
each living voter's latest post (`ballots`); no declarations."""

from __future__ import annotations

from datetime import datetime

from tianshen.core.abilities import table
from tianshen.core.intake import Refused
from tianshen.core.ledgers import Actions, Ballots, Entry
from tianshen.core.model import GameState, Player
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.core.tally import DayTally
from tianshen.rules.butterfly_elder import vote


class RoundActions(Actions):
    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec

    def pending(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        if state.phase.kind != "night":
            return []
        names = table(self.spec).by_id
        return [Entry(p.name, f"{names[a['verb']].name} {a['target']}") for a in state.data["actions"].values()
                if a["by"] == p.name]

    def void(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        mine = self.pending(state, p)
        for slot in [s for s, a in state.data["actions"].items() if a["by"] == p.name]:
            state.data["actions"].pop(slot)
        return mine


class LatestPosts(Ballots):
    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec

    def open(self, state: GameState) -> bool:
        return state.phase.kind == "day"

    def count(self, state: GameState, closing: bool) -> DayTally | None:
        """四: the latest post of each living voter; 归零 (一 技能二) only at the close, where
        it is said (secret until then)."""
        if not self.open(state):
            return None
        info = state.data.get("round_info", {})
        zero = info.get("zero") if closing and info.get("round") == state.phase.number else None
        return vote.day_tally(state, vote.count(state.copy(), zero) if closing else vote.count(state, None, False), None)

    def ballot(self, state: GameState, p: Player) -> Entry | None:
        cast = state.data["ballots"].get(p.name) if state.phase.kind == "day" else None
        return Entry(p.name, cast["target"]) if cast is not None else None

    def cast_at(self, state: GameState) -> dict[str, str]:
        return {v: str(b.get("at", "")) for v, b in state.data["ballots"].items()}

    def void(self, state: GameState, p: Player) -> None:
        del state.data["ballots"][p.name]

    def enter(self, state: GameState, p: Player, written: str, at: datetime, gm_id: str, out: Messages) -> str:
        """补充 一 6 (5): a vote the forum failed to take; `written` a name or 弃权."""
        if not p.alive:
            raise Refused(f"{p.name}已出局，不能投票")
        kind = "abstain" if written.strip() in vote.ABSTAIN else "vote"
        line = vote.cast(self.spec, state, p.name, kind, written, at, gm_id)
        return f"vote by {p.name} entered by the GM: {line}"
