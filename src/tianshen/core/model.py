"""The ruleset-independent game model: players, phases, inputs and outcomes.

Everything here round-trips through JSON (pydantic), because replay and crash recovery
rebuild a game from its stored state and inputs.  Nothing here reads a clock or does I/O:
times always come in with the inputs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from tianshen.core.text import clean, clean_value

NIGHT = "night"
DAY = "day"


class Player(BaseModel):
    """One seat.  `name` is the 马甲 (game account) every other player sees and names."""

    name: str
    forum_name: str  # the player's own forum account: gets the role PM at the start
    seat: int
    role: str = ""
    faction: str = ""
    alive: bool = True
    died_in: str | None = None  # phase label of the announcement, e.g. "night 2"
    death_cause: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)  # ruleset-specific fields


class Phase(BaseModel):
    """Where the game is.  `step` lets a ruleset split a phase (e.g. day: vote, ld, summon1)."""

    kind: Literal["setup", "night", "day", "over"] = "setup"
    number: int = 0
    started_at: datetime | None = None
    ends_at: datetime | None = None
    step: str = ""

    @property
    def label(self) -> str:
        return f"{self.kind} {self.number}" if self.kind in (NIGHT, DAY) else self.kind


class GameState(BaseModel):
    """The whole state of one game; the seeded RNG lives here (see core.rng)."""

    ruleset: str
    variant: str
    seed: int
    salt: str = ""  # secret until the end post (core.rng.seed_digest); "" in games older than salts
    rng_draws: int = 0
    players: list[Player]
    phase: Phase = Field(default_factory=Phase)
    winner: str | None = None
    # Ruleset-owned data: pending actions, streaks, votes, schedules…  JSON only.
    data: dict[str, Any] = Field(default_factory=dict)

    def player(self, name: str) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def find(self, name: str) -> Player | None:
        return next((p for p in self.players if p.name == name), None)

    def by_forum_name(self, forum_name: str) -> Player | None:
        return next((p for p in self.players if p.forum_name == forum_name), None)

    def alive(self) -> list[Player]:
        return [p for p in self.players if p.alive]

    def copy(self) -> GameState:
        return self.model_copy(deep=True)


# ---- inputs -------------------------------------------------------------------------


class PmIn(BaseModel):
    """A private message to the GM account, as the forum delivered it."""

    type: Literal["pm"] = "pm"
    id: str  # the forum's message id (dedup key)
    sender: str
    at: datetime  # forum server time
    text: str

    @field_validator("sender", "text")
    @classmethod
    def _clean(cls, value: str) -> str:
        return clean(value)


class PostIn(BaseModel):
    """A post in one of the game's threads.  `thread` is the logical key (e.g. "vote:1")."""

    type: Literal["post"] = "post"
    id: str
    thread: str
    author: str
    at: datetime
    text: str
    edited: bool = False
    original_text: str | None = None  # the first version of an edited post, when known

    @field_validator("author", "text", "original_text")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        return None if value is None else clean(value)


class DeadlineIn(BaseModel):
    """A scheduled moment was reached.  `kind` names what it closes or opens."""

    type: Literal["deadline"] = "deadline"
    id: str
    at: datetime
    kind: str


class GmIn(BaseModel):
    """A human GM's override, always with a reason."""

    type: Literal["gm"] = "gm"
    id: str
    at: datetime
    command: str
    args: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""

    @field_validator("command", "reason")
    @classmethod
    def _clean(cls, value: str) -> str:
        return clean(value)

    @field_validator("args")
    @classmethod
    def _clean_args(cls, value: dict[str, Any]) -> dict[str, Any]:
        return {clean(k): clean_value(v) for k, v in value.items()}


Input = PmIn | PostIn | DeadlineIn | GmIn


class InputEnvelope(BaseModel):
    """Wraps any input for storage: `Input` is a discriminated union on `type`."""

    input: PmIn | PostIn | DeadlineIn | GmIn = Field(discriminator="type")


# ---- outputs ------------------------------------------------------------------------


class PublicPost(BaseModel):
    """A post on the board.  `thread` is a logical key; `title` set ⇒ open that thread."""

    thread: str
    body: str
    title: str | None = None


class PrivateMessage(BaseModel):
    to: str  # forum account name
    subject: str
    body: str


class Refusal(BaseModel):
    """An input that changed nothing, and why (also sent to the player as a PM)."""

    sender: str
    text: str
    reason: str


class Outcome(BaseModel):
    """What one input did: the new state and the messages it causes."""

    state: GameState
    posts: list[PublicPost] = Field(default_factory=list)
    pms: list[PrivateMessage] = Field(default_factory=list)
    refusals: list[Refusal] = Field(default_factory=list)
    log: list[str] = Field(default_factory=list)  # GM-only explanation lines
    notes: list[str] = Field(default_factory=list)  # what the human GM should know (诈尸, removals…)
