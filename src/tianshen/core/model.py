"""The ruleset-independent game model: players, phases, inputs and outcomes.

Everything here round-trips through JSON (pydantic), because replay and crash recovery
rebuild a game from its stored state and inputs.  Nothing here reads a clock or does I/O:
times always come in with the inputs.
"""

from __future__ import annotations

import copy as _copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, field_validator

from tianshen.core.clock import DEFAULT_ZONE
from tianshen.core.tally import DayTally
from tianshen.core.text import clean, clean_value

_M = TypeVar("_M", bound=BaseModel)

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

    @property
    def label(self) -> str:
        """The 马甲 with the player's own account after it (`甲（玩家01）`), the 马甲 alone when
        the account is the 马甲 itself (the end post's list of roles)."""
        return self.name if self.forum_name in ("", self.name) else f"{self.name}（{self.forum_name}）"


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

    @property
    def words(self) -> str:
        """The phase as players read it: 第1夜, 第2天, 开局前, 游戏结束 (issue 23 item 11: the
        label is the stored key, English, and never goes into a post or a PM)."""
        if self.kind in (NIGHT, DAY):
            return f"第{self.number}{'夜' if self.kind == NIGHT else '天'}"
        return {"setup": "开局前", "over": "游戏结束"}[self.kind]


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
    # The zone every time in the texts is shown in (core.clock.show); set from GameSetup.zone at
    # the deal.  A state stored before it existed reads as the default (issue 23 item 1).
    zone: str = DEFAULT_ZONE
    # Ruleset-owned data: pending actions, streaks, votes, schedules…  JSON only.
    data: dict[str, Any] = Field(default_factory=dict)

    def player(self, name: str) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def find(self, name: str) -> Player | None:
        for p in self.players:
            if p.name == name:
                return p
        return None

    def by_forum_name(self, forum_name: str) -> Player | None:
        return next((p for p in self.players if p.forum_name == forum_name), None)

    def alive(self) -> list[Player]:
        return [p for p in self.players if p.alive]

    def copy(self) -> GameState:
        """A copy that shares nothing mutable with this state (what `Ruleset.apply` folds
        into).  The same as `model_copy(deep=True)` for this JSON-only state, many times
        faster: the fields' types are known, so the models are rebuilt field by field and
        the dicts and lists of `data` and `Player.extra` by a plain recursive copy
        (`copy_json`)."""
        fields = self.__dict__.copy()  # the scalars (str, int, None) are shared
        fields["phase"] = _shallow(self.phase, self.phase.__dict__.copy())  # its fields are immutable
        fields["players"] = [_copy_player(p) for p in self.players]
        fields["data"] = copy_json(self.data)
        return _shallow(self, fields)


def _copy_player(p: Player) -> Player:
    fields = p.__dict__.copy()
    if fields["extra"]:
        fields["extra"] = copy_json(fields["extra"])
    else:
        fields["extra"] = {}
    return _shallow(p, fields)


_new = object.__new__
_set = object.__setattr__


def _shallow(model: _M, fields: dict[str, Any]) -> _M:
    """A new model of `model`'s class with these field values, unvalidated (what pydantic's
    `__copy__` does, without its generic copying).  For models without extra fields or
    private attributes, as all of this module's are."""
    new = _new(type(model))
    _set(new, "__dict__", fields)
    _set(new, "__pydantic_fields_set__", model.__pydantic_fields_set__.copy())
    _set(new, "__pydantic_extra__", None)
    _set(new, "__pydantic_private__", None)
    return new


_ATOMIC = frozenset((str, int, float, bool, type(None)))


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data: dicts and lists are rebuilt, str/int/float/bool/None
    shared, anything else (a datetime, a tuple…) goes through `copy.deepcopy`."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMIC else copy_json(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMIC else copy_json(v) for v in value]
    if kind in _ATOMIC:
        return value
    return _copy.deepcopy(value)


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


@dataclass(frozen=True, slots=True)
class Death:
    """A typed event: a player left the game (core.deaths.die)."""

    name: str
    cause: str  # killed, executed, no_vote, modkill, wasted, cards… (the family's words)
    phase: str  # the phase label it happened in ("night 2")


@dataclass(frozen=True, slots=True)
class Event:
    """A typed event of resolution (core.events.note): its kind, and the GM log line with it;
    a vote's close carries its count (kind "tally", core.events.record_tally)."""

    kind: str
    line: str
    tally: DayTally | None = None


class Outcome(BaseModel):
    """What one input did: the new state and the messages it causes."""

    state: GameState
    posts: list[PublicPost] = Field(default_factory=list)
    pms: list[PrivateMessage] = Field(default_factory=list)
    refusals: list[Refusal] = Field(default_factory=list)
    log: list[str] = Field(default_factory=list)  # GM-only explanation lines
    notes: list[str] = Field(default_factory=list)  # what the human GM should know (诈尸, removals…)
    deaths: list[Death] = Field(default_factory=list)  # who left the game by this input, in seat order
    events: list[Event] = Field(default_factory=list)  # what resolution did (core.events), in order
