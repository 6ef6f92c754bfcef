"""The interface every ruleset implements, and the one entry point that folds an input.

A ruleset is pure: (state, input) -> Outcome.  It never reads a clock, a database or the
forum; times come with the inputs, randomness from the RNG in the state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, model_validator

from tianshen.core.model import DeadlineIn, GameState, GmIn, Input, Outcome, PmIn, PostIn, Refusal
from tianshen.core.names import fold
from tianshen.core.spec import RulesetSpec


class Seat(BaseModel):
    name: str  # the 马甲 used in the game
    forum_name: str = ""  # the player's own account (defaults to the 马甲)


class GameSetup(BaseModel):
    """What a game starts from: seats, seed, start time, roles fixed by the GM or a script."""

    seats: list[Seat]
    seed: int
    start: datetime
    fixed_roles: dict[str, str] = Field(default_factory=dict)  # name -> role id
    setup: dict[str, Any] = Field(default_factory=dict)  # ruleset-specific dealing options

    @model_validator(mode="after")
    def _names_distinct(self) -> GameSetup:
        """Every 马甲 must be tellable apart when players write it (core.names.fold)."""
        seen: dict[str, str] = {}
        for seat in self.seats:
            if not seat.name.strip():
                raise ValueError("a seat has an empty name")
            key = fold(seat.name)
            if key in seen:
                raise ValueError(f"names '{seen[key]}' and '{seat.name}' cannot be told apart in a PM")
            seen[key] = seat.name
        return self


class Deadline(BaseModel):
    at: datetime
    kind: str


class Ruleset(ABC):
    """One ruleset family; an instance is bound to one variant's spec."""

    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec

    @abstractmethod
    def setup(self, game: GameSetup) -> Outcome:
        """Deal roles, PM every player, post the player list: the game is at night 1."""

    @abstractmethod
    def on_pm(self, state: GameState, pm: PmIn) -> Outcome:
        """Parse and validate a PM; record it or refuse it; always answer the sender."""

    @abstractmethod
    def on_post(self, state: GameState, post: PostIn) -> Outcome:
        """A post in a game thread (votes)."""

    @abstractmethod
    def next_deadline(self, state: GameState) -> Deadline | None:
        """The next scheduled moment, or None when the game is over."""

    @abstractmethod
    def on_deadline(self, state: GameState, deadline: DeadlineIn) -> Outcome:
        """Close or open what the deadline names: resolve the night, count the votes…"""

    def on_gm(self, state: GameState, gm: GmIn) -> Outcome:
        return Outcome(state=state, refusals=[Refusal(sender="GM", text=gm.command, reason="unknown command")])

    @abstractmethod
    def check_victory(self, state: GameState) -> str | None:
        """The winning side's id, or None."""

    @abstractmethod
    def player_view(self, state: GameState, name: str) -> dict[str, Any]:
        """The GM's per-player view for replay JSON and `admin status` (secrets included)."""

    def apply(self, state: GameState, event: Input) -> Outcome:
        """Fold one input.  The state passed in is never modified."""
        state = state.copy()
        if isinstance(event, PmIn):
            return self.on_pm(state, event)
        if isinstance(event, PostIn):
            return self.on_post(state, event)
        if isinstance(event, DeadlineIn):
            return self.on_deadline(state, event)
        return self.on_gm(state, event)
