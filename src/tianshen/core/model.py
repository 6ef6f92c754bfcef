"""The ruleset-independent game model: players, phases, inputs and outcomes.

Everything here round-trips through JSON (the inputs by pydantic, the state by hand), because replay and crash recovery
rebuild a game from its stored state and inputs.  Nothing here reads a clock or does I/O:
times always come in with the inputs.
"""

from __future__ import annotations

import copy as _copy
import json
import json.encoder as _json_encoder
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, time
from typing import Any, Literal

from tianshen.core.clock import DEFAULT_ZONE
from tianshen.core.frozen import slot_init
from tianshen.core.spec import Lines, Text
from tianshen.core.tally import DayTally
from tianshen.core.text import clean, clean_value, odd_char

NIGHT = "night"
DAY = "day"


class _Plain:
    """`model_dump` / `model_dump_json` over a class's `_dict()`, as pydantic wrote them."""

    __slots__ = ()

    def _dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return _jsonable(self._dict()) if mode == "json" else copy_json(self._dict())

    def model_dump_json(self) -> str:
        """Compact, UTF-8, times in ISO 8601 with `Z` for UTC."""
        return _dumps(self._dict())


class Player(_Plain):
    """One seat.  `name` is the 马甲 (game account) every other player sees and names."""

    # not slotted: a copy is one C-level copy of the instance dict (`copy`)
    _FIELDS = ("name", "forum_name", "seat", "role", "faction", "alive", "died_in", "death_cause", "extra")

    def __init__(self, *, name: str, forum_name: str, seat: int, role: str = "", faction: str = "",
                 alive: bool = True, died_in: str | None = None, death_cause: str | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        # the instance dict made whole and set once, not ours (each `object.__setattr__` is a
        # call of ~1,000 instructions: nine a player were ~15,000; reads cost the same)
        _set(self, "__dict__", {
            "name": name,
            "forum_name": forum_name,  # the player's own forum account: gets the role PM at the start
            "seat": seat,
            "role": role,
            "faction": faction,
            "alive": alive,
            "died_in": died_in,  # phase label of the announcement, e.g. "night 2"
            "death_cause": death_cause,
            "extra": {} if extra is None else extra,  # ruleset-specific fields
        })

    def __setattr__(self, name: str, value: Any) -> None:
        # while a fold runs in this thread (`_writes`), the value written over is logged: to be
        # put back when `Ruleset.apply` shares this player with the state it was given
        # (`fold_sharing_players`), and for the fold's deaths (the `alive` writes); the fields
        # are the instance dict's: written there, not through `object.__setattr__`'s call
        fields = self.__dict__
        log = _writes.get()
        if log is not None:
            log.append((self, name, fields.get(name, _UNSET)))
        fields[name] = value

    def write(self, values: dict[str, Any]) -> None:
        """`setattr` of each field of `values`, in order, logged as `__setattr__` logs each
        (one call for several: a death's three fields, a deal's role and side)."""
        fields = self.__dict__
        log = _writes.get()
        if log is not None:
            for name in values:
                log.append((self, name, fields.get(name, _UNSET)))
        fields.update(values)

    @property
    def label(self) -> str:
        """The 马甲 with the player's own account after it (`甲（玩家01）`), the 马甲 alone when
        the account is the 马甲 itself (the end post's list of roles)."""
        return self.name if self.forum_name in ("", self.name) else f"{self.name}（{self.forum_name}）"

    def copy(self) -> Player:
        fields = self.__dict__.copy()
        extra = fields["extra"]
        if extra:  # `_shared(extra)` inline (every n_lives player, every step of `apply`)
            fields["extra"] = shared = _dict_new(SharedDict)
            _dict_update(shared, extra)
            shared._own = set()
        else:
            fields["extra"] = {}
        new = _new(Player)
        _set(new, "__dict__", fields)
        return new

    def _dict(self) -> dict[str, Any]:
        out = {f: getattr(self, f) for f in self._FIELDS}
        out["extra"] = _raw(self.extra)
        return out

    @classmethod
    def model_validate(cls, raw: dict[str, Any]) -> Player:
        return cls(**{f: raw[f] for f in cls._FIELDS if f in raw})

    def __eq__(self, other: object) -> bool:
        return type(other) is Player and self._dict() == other._dict()  # type: ignore[union-attr]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Player(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"


PhaseKind = Literal["setup", "night", "day", "over"]
_LABELS: dict[tuple[str, int, type], str] = {}  # `Phase.label` by kind, number and its class (bounded)


class Phase:
    """Where the game is.  `step` lets a ruleset split a phase (e.g. day: vote, ld, summon1)."""

    __slots__ = ("kind", "number", "started_at", "ends_at", "step")
    _FIELDS = __slots__

    def __init__(self, *, kind: PhaseKind = "setup", number: int = 0, started_at: datetime | None = None,
                 ends_at: datetime | None = None, step: str = "") -> None:
        self.kind = kind
        self.number = number
        self.started_at = started_at
        self.ends_at = ends_at
        self.step = step

    @property
    def label(self) -> str:
        # (each label written once: `f"{kind} {number}"` of an int is ~2,000 instructions; the
        # number's class is in the key: 1, 1.0 and True are one key alone, three texts)
        number = self.number
        key = (self.kind, number, number.__class__)
        found = _LABELS.get(key)
        if found is None:
            if len(_LABELS) >= 1024:
                _LABELS.clear()
            found = _LABELS[key] = f"{key[0]} {key[1]}" if key[0] in (NIGHT, DAY) else key[0]
        return found

    @property
    def words(self) -> str:
        """The phase as players read it: 第1夜, 第2天, 开局前, 游戏结束 (issue 23 item 11: the
        label is the stored key, English, and never goes into a post or a PM)."""
        if self.kind in (NIGHT, DAY):
            return f"第{self.number}{'夜' if self.kind == NIGHT else '天'}"
        return {"setup": "开局前", "over": "游戏结束"}[self.kind]

    def copy(self) -> Phase:
        new = _new(Phase)
        new.kind, new.number, new.started_at, new.ends_at, new.step = (
            self.kind, self.number, self.started_at, self.ends_at, self.step)
        return new

    def _dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self._FIELDS}

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return _jsonable(self._dict()) if mode == "json" else self._dict()

    @classmethod
    def model_validate(cls, raw: dict[str, Any]) -> Phase:
        values = {f: raw[f] for f in cls._FIELDS if f in raw}
        for key in ("started_at", "ends_at"):
            if isinstance(values.get(key), str):
                values[key] = datetime.fromisoformat(values[key])
        if values.get("kind", "setup") not in ("setup", "night", "day", "over"):
            raise ValueError(f"unknown phase kind {values['kind']!r}")
        return cls(**values)

    def __eq__(self, other: object) -> bool:
        return type(other) is Phase and self._dict() == other._dict()  # type: ignore[union-attr]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Phase(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"


DUE_UNKNOWN: Any = False  # `GameState.due` when no next deadline is known (a singleton: survives a pickle)
# `GameState.due` after a write that moved the schedule (`GameState.changed`): not known either,
# and a PM's or a post's fold that ends with it does not keep the deadline it began with
DUE_MOVED: Any = ...


class GameState(_Plain):
    """The whole state of one game; the seeded RNG lives here (see core.rng).

    Plain slotted objects, not pydantic (issue 37: the engine's hot path): the JSON of
    `model_dump_json` is byte for byte what pydantic wrote (field order, `Z` for UTC times),
    and `model_validate_json` reads what it wrote, older states included (defaults)."""

    _FIELDS = ("ruleset", "variant", "seed", "salt", "rng_draws", "players", "phase", "winner", "zone", "data")
    # `facts`: what the rules work out from the roles (rules.common.roles.groups), kept until
    # they change (`roles_changed`); not part of the state: never written, compared or copied.
    # `due`: the ruleset's next deadline of this state as it is (`Ruleset.next_deadline`), or
    # DUE_UNKNOWN; every fold drops it first (`Ruleset.apply_in_place`), so does a copy.
    # `logged`: True while a log of player writes is open for this state's folds
    # (`fold_sharing_players`' copy, a Monte Carlo game's state): `apply_in_place` looks for
    # it before beginning one of its own; a hint only
    __slots__ = (*_FIELDS, "facts", "due", "logged")

    def __init__(self, *, ruleset: str, variant: str, seed: int, salt: str = "", rng_draws: int = 0,
                 players: list[Player], phase: Phase | None = None, winner: str | None = None,
                 zone: str = DEFAULT_ZONE, data: dict[str, Any] | None = None) -> None:
        self.ruleset = ruleset
        self.variant = variant
        self.seed = seed
        self.salt = salt  # secret until the end post (core.rng.seed_digest); "" in games older than salts
        self.rng_draws = rng_draws
        self.players = players
        self.phase = Phase() if phase is None else phase
        self.winner = winner
        # The zone every time in the texts is shown in (core.clock.show); set from GameSetup.zone at
        # the deal.  A state stored before it existed reads as the default (issue 23 item 1).
        self.zone = zone
        # Ruleset-owned data: pending actions, streaks, votes, schedules…  JSON only.
        self.data = {} if data is None else data
        self.facts: dict[str, Any] = {}
        self.due: Any = DUE_UNKNOWN
        self.logged = False

    def roles_changed(self) -> None:
        """Forget what was worked out from the players' roles and sides (`facts`): whoever
        changes a role or a side calls this (the deal, a conversion)."""
        self.facts = {}

    def player(self, name: str) -> Player:
        """The player of this 马甲 (`find`, inline: ~40 a game); KeyError when none is."""
        try:  # (subscripts, no calls: a miss, seldom, raises)
            p = self.players[self.facts["seat_of"][name]]
        except (KeyError, IndexError):
            pass
        else:
            if p.name == name:
                return p
        found = self.find(name)
        if found is None:
            raise KeyError(name)
        return found

    def find(self, name: str) -> Player | None:
        """The player of this 马甲, or None.  A seat keeps its 马甲 all game (a substitute
        too), so each name's seat is looked up in a table kept with the facts; the player
        there is checked to bear the name (a list of players set anew is read through)."""
        players = self.players
        try:  # (subscripts, no calls: the table not made yet or a name without a seat, seldom, raises)
            p = players[self.facts["seat_of"][name]]
        except KeyError:
            if "seat_of" not in self.facts:  # (made now from this list: the player there bears the name)
                i = (seats := {p.name: i for i, p in enumerate(players)}).get(name)
                self.facts["seat_of"] = seats
                return None if i is None else players[i]
        except IndexError:  # (a list of players set anew, shorter)
            pass
        else:
            if p.name == name:
                return p
        for p in players:
            if p.name == name:
                return p
        return None

    def by_forum_name(self, forum_name: str) -> Player | None:
        return next((p for p in self.players if p.forum_name == forum_name), None)

    def alive(self) -> list[Player]:
        return [p for p in self.players if p.alive]

    def copy(self, *, players: bool = True) -> GameState:
        """A copy to fold into while this state stays as it is: the players and the phase
        rebuilt, and `data` and each `Player.extra` a `SharedDict`, whose values are copied
        the first time the copy reads them (issue 37: a step copies what it touches, not the
        whole state).  So this state must not change while the copy is in use: `apply`
        never changes the state it was given, and a rule's trial copy is read and dropped
        before its own state moves on.  `players=False`: no players yet (`fold_sharing_players`)."""
        new = _new(GameState)
        new.ruleset, new.variant, new.seed, new.salt, new.rng_draws = (
            self.ruleset, self.variant, self.seed, self.salt, self.rng_draws)
        if players:  # (not for `fold_sharing_players`, which sets them)
            new.players = [p.copy() for p in self.players]
        new.phase = self.phase.copy()
        new.winner, new.zone = self.winner, self.zone
        new.data = _shared(self.data)
        # the same roles, so the same facts: shared until either calls `roles_changed`, which
        # gives it a new dict (a fact, once made, is never changed)
        new.facts = self.facts
        new.due = DUE_UNKNOWN
        new.logged = False
        return new

    def changed(self) -> None:
        """Forget the next deadline worked out for this state (`due`): a write that moves the
        schedule without changing the phase calls this (an early end, an extension, a
        substitution), so a PM's or a post's fold does not keep the deadline it began with
        (`Ruleset.apply_in_place`); whoever writes a state outside a fold calls it too."""
        self.due = DUE_MOVED

    def model_copy(self, *, deep: bool = False) -> GameState:
        if deep:
            return self.copy()
        new = _copy.copy(self)
        new.due = DUE_UNKNOWN
        new.logged = False
        return new

    def _dict(self) -> dict[str, Any]:
        out = {f: getattr(self, f) for f in self._FIELDS}
        out["data"] = _raw(self.data)
        out["players"] = [p._dict() for p in self.players]
        out["phase"] = self.phase._dict()
        return out

    @classmethod
    def model_validate(cls, raw: dict[str, Any]) -> GameState:
        values = {f: raw[f] for f in cls._FIELDS if f in raw}
        values["players"] = [Player.model_validate(p) for p in raw["players"]]
        if "phase" in raw:
            values["phase"] = Phase.model_validate(raw["phase"])
        return cls(**values)

    @classmethod
    def model_validate_json(cls, text: str | bytes) -> GameState:
        return cls.model_validate(json.loads(text))

    def __eq__(self, other: object) -> bool:
        return type(other) is GameState and self._dict() == other._dict()  # type: ignore[union-attr]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "GameState(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"


_new = object.__new__
_set = object.__setattr__
_UNSET = object()
# the player writes `(player, field, value written over)` of the fold running in this thread
# (each thread has a context of its own: a fold in one thread never logs, or puts back,
# another's writes): `fold_sharing_players` puts them back, `Ruleset.apply_in_place` finds its
# deaths among them (the `alive` writes).  One log for both: an `apply_in_place` inside
# `fold_sharing_players` writes into the latter's (no second `ContextVar` set and reset a step)
_writes: ContextVar[list[tuple[Player, str, Any]] | None] = ContextVar("player_writes", default=None)

# the log itself, for `Ruleset.apply_in_place`, which reads it at every input and begins one
# (`set`, then `reset`) only when no enclosing one runs, without `watch_alive`'s calls
WRITES = _writes


def watch_alive() -> tuple[list[tuple[Player, str, Any]], Any]:
    """A new log of the player writes in this thread, and the token to end it (`alive_before`)."""
    log: list[tuple[Player, str, Any]] = []
    return log, _writes.set(log)


def alive_before(log: list[tuple[Player, str, Any]], token: Any, players: list[Player]) -> list[bool] | None:
    """The log ended: `players`' `alive` as it was when it began, or None when no `alive` was
    written (an enclosing log gets the entries too)."""
    _writes.reset(token)
    hand_on(token, log)
    return alive_logged(log, players)


def hand_on(token: Any, log: list[tuple[Player, str, Any]]) -> None:
    """A log just ended (`reset(token)`): the enclosing one, if any, gets its writes too."""
    outer = token.old_value
    if type(outer) is list:
        outer += log


def deaths_logged(log: list[tuple[Player, str, Any]], players: list[Player]) -> list[Death]:
    """The deaths of a fold's writes, `players` the state's list it began with and ends with
    (`deaths_since` of `alive_logged`, without the two lists of ten compared)."""
    first = _first_alive(log)
    dead = []
    if first:
        for p in players:
            if first.get(id(p)) and not p.alive:
                dead.append(Death(p.name, p.death_cause or "", p.died_in or ""))
    return dead


def alive_logged(log: list[tuple[Player, str, Any]], players: list[Player]) -> list[bool] | None:
    """`players`' `alive` before a fold's writes `log`, or None when it wrote no `alive`."""
    first = _first_alive(log)
    return [first.get(id(p), p.alive) for p in players] if first else None


def _first_alive(log: list[tuple[Player, str, Any]]) -> dict[int, Any]:
    """Each player's `alive` before the log's first `alive` write to it (by the player object's id)."""
    first: dict[int, Any] = {}
    for p, name, old in log:
        if name == "alive":
            first.setdefault(id(p), old)
    return first


def fold_sharing_players(fold: Callable[[GameState, Any], Outcome], original: GameState, event: Any) -> Outcome:
    """`fold(copy, event)` into a copy of `original` whose players are shared (issue 37:
    copying ten players was most of `apply`'s copy; `Ruleset.apply`).  The copy is `copy()`
    but for the players without `extra`: the very objects of the original, written in
    place while the input is folded, each write's old value logged (`Player.__setattr__`,
    this thread only).  Then the outcome's state gets its own copy of each player written
    (or whose empty `extra` was filled) and the original's are put back; a failed fold puts
    them back only.  So a player may belong to several states between two `apply`s: a
    state `apply` returned is changed only by `apply`, or `apply_in_place` by a caller
    that keeps no older state."""
    # `original.copy(players=False)`, inline, one statement a field (one a step: no tuples
    # packed and unpacked, no call for `data`'s `SharedDict`, `_shared`)
    new = _new(GameState)
    new.ruleset = original.ruleset
    new.variant = original.variant
    new.seed = original.seed
    new.salt = original.salt
    new.rng_draws = original.rng_draws
    ph = original.phase
    new.phase = phase = _new(Phase)
    phase.kind = ph.kind
    phase.number = ph.number
    phase.started_at = ph.started_at
    phase.ends_at = ph.ends_at
    phase.step = ph.step
    new.winner = original.winner
    new.zone = original.zone
    new.data = data = _dict_new(SharedDict)
    _dict_update(data, original.data)
    data._own = set()
    new.facts = original.facts
    new.due = original.due  # the same next deadline until the fold (which drops it) writes
    new.logged = True
    players = original.players
    # (a loop, not `any(map(attrgetter))`: Python's own attribute reads are the fast ones)
    for p in players:
        if p.extra:  # a player with `extra`: each such is copied
            new.players = [p.copy() if p.extra else p for p in players]
            shared = [p for p in players if not p.extra]
            break
    else:  # (mostly) no player has `extra`: all shared
        new.players = players[:]
        shared = players  # the original's list, which the fold does not reach
    log: list[tuple[Player, str, Any]] = []
    token = _writes.set(log)
    try:
        outcome = fold(new, event)
    except BaseException:
        _writes.reset(token)
        new.logged = False
        _put_back(shared, log)
        raise
    _writes.reset(token)  # (not `finally`: dearer, as in `Ruleset.apply_in_place`)
    new.logged = False
    # (seldom) a player written, or his empty `extra` filled in place (a new `extra` is a
    # logged write: a shared player's `extra` is otherwise the empty dict it had)
    if not log:
        for p in shared:
            if p.extra:
                break
        else:
            return outcome
    _own_written(shared, log, outcome.state.players)
    return outcome


def _own_written(shared: list[Player], log: list[tuple[Player, str, Any]], players: list[Player]) -> None:
    """The new state's own copy of each shared player the fold wrote, the originals put back."""
    ids = set(map(id, shared))
    written = {id(entry[0]) for entry in log}
    for i, p in enumerate(players):
        if id(p) in ids and (p.extra or id(p) in written):
            fields = p.__dict__.copy()
            if not fields["extra"]:
                fields["extra"] = {}  # not the original's (empty) dict
            own = players[i] = _new(Player)
            _set(own, "__dict__", fields)
    _put_back(shared, log, ids)


def _put_back(shared: list[Player], log: list[tuple[Player, str, Any]], ids: set[int] | None = None) -> None:
    if ids is None:
        ids = set(map(id, shared))
    for p, name, old in reversed(log):
        if id(p) in ids:
            if old is _UNSET:
                object.__delattr__(p, name)
            else:
                _set(p, name, old)
    for p in shared:
        if p.extra:  # was empty: filled by the fold, now the new state's (or dropped)
            _set(p, "extra", {})


def _json_default(value: Any) -> Any:
    """What `json.dumps` cannot write, as pydantic writes it."""
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, set | frozenset):
        return list(value)
    if isinstance(value, date | time):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON data")


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_json_default).encode
# the C encoder `_encode` runs, made once and called at once (issue 37): no Python
# `iterencode` a call, no table of the containers met (a model's JSON has no cycle)
_c_encode = None if _json_encoder.c_make_encoder is None else _json_encoder.c_make_encoder(
    None, _json_default, _json_encoder.encode_basestring, None, ":", ",", False, False, True)
_string = _json_encoder.encode_basestring  # a str as JSON (quoted, escaped as `_encode` does)


def _dumps(value: Any) -> str:
    if _c_encode is None or type(value) is str:
        return _encode(value)
    return "".join(_c_encode(value, 0))


def _utc_text(at: datetime) -> str:
    """A time as `_json_default` writes it, quoted."""
    text = at.isoformat()
    return '"' + (text[:-6] + "Z" if text.endswith("+00:00") else text) + '"'


def _jsonable(value: Any) -> Any:
    return json.loads(_dumps(value))


_ATOMIC = frozenset((str, int, float, bool, type(None)))


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data: dicts and lists are rebuilt, str/int/float/bool/None
    shared, anything else (a datetime, a tuple…) goes through `copy.deepcopy`."""
    kind = type(value)
    if kind is dict or kind is SharedDict:
        new = dict.copy(value)  # the atomic values as they are, in C; then the containers
        if _ATOMIC.issuperset(map(type, new.values())):  # in C: most dicts hold no container
            return new
        for k, v in new.items():
            kind = type(v)
            if kind is dict and _ATOMIC.issuperset(map(type, v.values())):
                new[k] = dict.copy(v)  # a dict of plain values (a ballot…): no call a level down
            elif kind not in _ATOMIC:
                new[k] = copy_json(v)  # an existing key: the dict's size does not change
        return new
    if kind is list:
        new_list = value[:]
        if _ATOMIC.issuperset(map(type, new_list)):
            return new_list
        for i, v in enumerate(new_list):
            if type(v) not in _ATOMIC:
                new_list[i] = copy_json(v)
        return new_list
    if kind in _ATOMIC:
        return value
    return _copy.deepcopy(value)


_MISSING = object()
_dict_get, _dict_getitem, _dict_set = dict.get, dict.__getitem__, dict.__setitem__
_dict_new, _dict_update = dict.__new__, dict.update


class SharedDict(dict):  # type: ignore[type-arg]
    """The `data` (or a player's `extra`) of a copied state: its values are first those of
    the state it was copied from, and each one is copied (`copy_json`) the first time it is
    read through this dict, so what the copy changes never reaches the original, and what
    an input does not touch is not copied at all.  Every way to a value goes through here
    (`[]`, get, setdefault, pop, items, values, copy…); a value written is this dict's own.
    Written to JSON, compared and copied by its current values (`_raw`)."""

    __slots__ = ("_own",)

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        dict.__init__(self, values or ())  # a dict's values, not through `items`: no copy yet
        self._own: set[Any] = set()

    def _mine(self, key: Any, value: Any) -> Any:
        if type(value) in _ATOMIC or key in self._own:
            return value
        value = copy_json(value)
        _dict_set(self, key, value)
        self._own.add(key)
        return value

    def __getitem__(self, key: Any) -> Any:
        value = _dict_getitem(self, key)
        if type(value) in _ATOMIC or key in self._own:  # `_mine`'s first test, without its call
            return value
        return self._mine(key, value)

    def get(self, key: Any, default: Any = None) -> Any:
        value = _dict_get(self, key, _MISSING)  # one look-up, in C
        if value is _MISSING:
            return default
        if type(value) in _ATOMIC or key in self._own:
            return value
        return self._mine(key, value)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key in self:
            return self._mine(key, _dict_getitem(self, key))
        self[key] = default
        return default

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            value = self._mine(key, _dict_getitem(self, key))
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def popitem(self) -> tuple[Any, Any]:
        if not self:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(dict.keys(self)))
        return key, self.pop(key)

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return [(k, self._mine(k, v)) for k, v in list(dict.items(self))]

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self._mine(k, v) for k, v in list(dict.items(self))]

    def __setitem__(self, key: Any, value: Any) -> None:
        _dict_set(self, key, value)
        self._own.add(key)

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, key)
        self._own.discard(key)

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other: Any) -> SharedDict:  # type: ignore[override,misc]
        self.update(other)
        return self

    def __or__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        return self.copy() | other

    def clear(self) -> None:
        dict.clear(self)
        self._own.clear()

    def copy(self) -> dict[str, Any]:  # type: ignore[override]
        return dict(self.items())

    def __copy__(self) -> dict[str, Any]:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return copy_json(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return dict, (copy_json(self),)


# peek(data, key, default=None): a value of `data` to read now, not to change or keep: a
# `SharedDict`'s value as stored, not copied (issue 37: the schedule reads `data["day"]`
# after every step of `apply`, and would copy the whole day); dict's own `get`, no call
# of ours around it
peek = dict.get


def put(data: dict[str, Any], path: tuple[Any, ...], key: Any, value: Any) -> None:
    """`data[path[0]][path[1]]…[key] = value`, a dict missing on the way made (`setdefault`).
    In `apply`'s copy (`data` a `SharedDict`) whose value at `path[0]` is not its own yet,
    only the dicts on the way are copied, one level each, not the whole value (issue 37: a
    vote copied the whole day); the value stays not its own, so a later read through
    `data` still copies it whole and nothing shared can be written to."""
    top = path[0]
    if type(data) is not SharedDict or top in data._own or top not in data:
        inner = data.setdefault(top, {})
        for k in path[1:]:
            inner = inner.setdefault(k, {})
        inner[key] = value
        return
    inner = outer = dict.copy(_dict_getitem(data, top))
    for k in path[1:]:
        step = dict.copy(inner.get(k) or {})
        inner[k] = step
        inner = step
    inner[key] = value
    _dict_set(data, top, outer)


def _shared(values: dict[str, Any]) -> SharedDict:
    """`SharedDict(values)` without a call of Python's (one a step, and one a player's `extra`)."""
    new = _dict_new(SharedDict)
    _dict_update(new, values)
    new._own = set()
    return new


def _raw(values: dict[str, Any]) -> dict[str, Any]:
    """`values` to write or compare, not to change: a `SharedDict`'s current values without
    copying them (`dict()` of a dict subclass that keeps dict's iteration reads them as stored)."""
    return dict(values) if type(values) is SharedDict else values


class _Input(_Plain):
    """What every input has: the JSON pydantic wrote for it (`type` first, then the fields in
    order, `Z` for UTC times), reading it back, equality.  Plain slotted objects, not pydantic
    (issue 37); the strings from outside are cleaned on the way in (core.text)."""

    __slots__ = ()
    type: str = ""
    _FIELDS: tuple[str, ...] = ()

    def _dict(self) -> dict[str, Any]:
        return {"type": self.type} | {f: getattr(self, f) for f in self._FIELDS}

    @classmethod
    def model_validate(cls, raw: dict[str, Any]) -> Any:
        if raw.get("type", cls.type) != cls.type:
            raise ValueError(f"a {raw.get('type')!r} input is not a {cls.type!r} input")
        values = {f: raw[f] for f in cls._FIELDS if f in raw}
        if isinstance(values.get("at"), str):
            values["at"] = datetime.fromisoformat(values["at"])
        return cls(**values)

    @classmethod
    def model_validate_json(cls, text: str | bytes) -> Any:
        return cls.model_validate(json.loads(text))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._dict() == other._dict()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"


def _when(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    raise TypeError(f"expected a datetime, got {type(value).__name__}")


def _text(value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


class PmIn(_Input):
    """A private message to the GM account, as the forum delivered it."""

    __slots__ = ("id", "sender", "at", "text")
    _FIELDS = __slots__
    type = "pm"

    def __init__(self, id: str, sender: str, at: datetime, text: str) -> None:
        # the checks of _text, clean and _when inline when all is well (every input is made so)
        if type(id) is not str or type(sender) is not str or type(text) is not str or type(at) is not datetime:
            id, at, sender, text = _text(id), _when(at), _text(sender), _text(text)  # in the old order
        self.id = id  # the forum's message id (dedup key)
        # both strings by now: `needs_cleaning` inline, `odd_char`'s first test too (most are printable)
        self.sender = sender if sender.isprintable() or not odd_char(sender) else clean(sender)
        self.at = at  # forum server time
        self.text = text if text.isprintable() or not odd_char(text) else clean(text)

    def model_dump_json(self) -> str:
        # `_dumps(self._dict())` written at once (issue 37: every input's event is stored);
        # a field set to something else than an input makes goes the general way
        id, sender, at, text = self.id, self.sender, self.at, self.text
        if type(id) is str and type(sender) is str and type(at) is datetime and type(text) is str:
            return (f'{{"type":{_string(self.type)},"id":{_string(id)},"sender":{_string(sender)},'
                    f'"at":{_utc_text(at)},"text":{_string(text)}}}')
        return _dumps(self._dict())


class PostIn(_Input):
    """A post in one of the game's threads.  `thread` is the logical key (e.g. "vote:1")."""

    __slots__ = ("id", "thread", "author", "at", "text", "edited", "original_text")
    _FIELDS = __slots__
    type = "post"

    def __init__(self, id: str, thread: str, author: str, at: datetime, text: str, edited: bool = False,
                 original_text: str | None = None) -> None:
        # the checks of _text, clean and _when inline when all is well (every input is made so)
        if type(id) is not str or type(thread) is not str or type(author) is not str or type(text) is not str \
                or type(at) is not datetime:
            id, thread, at, author, text = _text(id), _text(thread), _when(at), _text(author), _text(text)
        self.id = id
        self.thread = thread
        # as `PmIn`'s
        self.author = author if author.isprintable() or not odd_char(author) else clean(author)
        self.at = at
        self.text = text if text.isprintable() or not odd_char(text) else clean(text)
        self.edited = bool(edited)
        self.original_text = None if original_text is None else clean(original_text)  # the first version, when known

    def model_dump_json(self) -> str:
        # as `PmIn.model_dump_json`
        id, thread, author, at, text, edited, original = (
            self.id, self.thread, self.author, self.at, self.text, self.edited, self.original_text)
        if type(id) is str and type(thread) is str and type(author) is str and type(at) is datetime \
                and type(text) is str and type(edited) is bool and (original is None or type(original) is str):
            return (f'{{"type":{_string(self.type)},"id":{_string(id)},"thread":{_string(thread)},'
                    f'"author":{_string(author)},"at":{_utc_text(at)},"text":{_string(text)},'
                    f'"edited":{"true" if edited else "false"},'
                    f'"original_text":{"null" if original is None else _string(original)}}}')
        return _dumps(self._dict())


class DeadlineIn(_Input):
    """A scheduled moment was reached.  `kind` names what it closes or opens."""

    __slots__ = ("id", "at", "kind")
    _FIELDS = __slots__
    type = "deadline"

    def __init__(self, id: str, at: datetime, kind: str) -> None:
        # the checks of _text and _when inline when all is well
        if type(id) is not str or type(kind) is not str or type(at) is not datetime:
            id, at, kind = _text(id), _when(at), _text(kind)
        self.id = id
        self.at = at
        self.kind = kind

    def model_dump_json(self) -> str:
        # as `PmIn.model_dump_json`
        id, at, kind = self.id, self.at, self.kind
        if type(id) is str and type(at) is datetime and type(kind) is str:
            return f'{{"type":{_string(self.type)},"id":{_string(id)},"at":{_utc_text(at)},"kind":{_string(kind)}}}'
        return _dumps(self._dict())


class GmIn(_Input):
    """A human GM's override, always with a reason."""

    __slots__ = ("id", "at", "command", "args", "reason")
    _FIELDS = __slots__
    type = "gm"

    def __init__(self, *, id: str, at: datetime, command: str, args: dict[str, Any] | None = None,
                 reason: str = "") -> None:
        self.id = _text(id)
        self.at = _when(at)
        self.command = clean(command)
        if args is not None and not isinstance(args, dict):
            raise TypeError(f"expected a dict of arguments, got {type(args).__name__}")
        self.args: dict[str, Any] = {clean(k): clean_value(v) for k, v in (args or {}).items()}
        self.reason = clean(reason)


Input = PmIn | PostIn | DeadlineIn | GmIn
_KINDS: dict[str, type[_Input]] = {"pm": PmIn, "post": PostIn, "deadline": DeadlineIn, "gm": GmIn}


def read_input(raw: dict[str, Any]) -> Input:
    """An input from its stored JSON object, by its `type`."""
    kind = _KINDS.get(raw.get("type"))  # type: ignore[arg-type]
    if kind is None:
        raise ValueError(f"unknown input type {raw.get('type')!r}")
    return kind.model_validate(raw)  # type: ignore[no-any-return]


class InputEnvelope:
    """Wraps any input for storage: `Input` told apart by its `type`."""

    __slots__ = ("input",)

    def __init__(self, *, input: Input) -> None:
        self.input = input

    def model_dump_json(self) -> str:
        return '{"input":' + self.input.model_dump_json() + "}"

    @classmethod
    def model_validate(cls, raw: dict[str, Any]) -> InputEnvelope:
        return cls(input=read_input(raw["input"]))

    @classmethod
    def model_validate_json(cls, text: str | bytes) -> InputEnvelope:
        return cls.model_validate(json.loads(text))


# ---- outputs ------------------------------------------------------------------------


class _Message:
    """A message of an outcome.  Its text (a post's or PM's `body`, a refusal's `reason`)
    may come as a `core.spec.Text` or `Lines`, rendered on the first read of the attribute
    (or `model_dump_json`): a simulated game reads few of them.  `model_dump_json` /
    `model_dump` as pydantic wrote them."""

    __slots__ = ("source",)  # the text unrendered (a Text or Lines), None for a plain string
    _FIELDS: tuple[str, ...] = ()
    _TEXT = "body"  # the field that may come unrendered

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return {f: getattr(self, f) for f in self._FIELDS}

    def model_dump_json(self) -> str:
        return _dumps(self.model_dump())

    def text_parts(self) -> tuple[list[str], list[str]]:
        """What its text is made of, without rendering it (`text_parts` of one message)."""
        return text_parts([self])

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.model_dump() == other.model_dump()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"


def _rendered(slot: str) -> property:
    """The message's text, rendered from its source on the first read and kept in `slot`."""
    def read(self: Any) -> str:
        text = getattr(self, slot)
        if text is None:
            text = str(self.source)
            setattr(self, slot, text)
        return text
    return property(read)


class PublicPost(_Message):
    """A post on the board.  `thread` is a logical key; `title` set ⇒ open that thread."""

    __slots__ = ("thread", "_body", "title")
    _FIELDS = ("thread", "body", "title")

    def __init__(self, thread: str, body: Any, title: str | None = None) -> None:
        self.thread = thread
        self.title = title
        if type(body) is str:  # (_text_or_source inline: a message is made for most inputs)
            self._body, self.source = body, None
        else:
            self._body, self.source = None, body

    body = _rendered("_body")


class PrivateMessage(_Message):
    __slots__ = ("to", "subject", "_body")
    _FIELDS = ("to", "subject", "body")

    def __init__(self, to: str, subject: str, body: Any) -> None:
        self.to = to  # forum account name
        self.subject = subject
        if type(body) is str:  # (_text_or_source inline: a message is made for most inputs)
            self._body, self.source = body, None
        else:
            self._body, self.source = None, body

    body = _rendered("_body")


class Refusal(_Message):
    """An input that changed nothing, and why (also sent to the player as a PM)."""

    __slots__ = ("sender", "text", "_reason")
    _FIELDS = ("sender", "text", "reason")
    _TEXT = "reason"

    def __init__(self, sender: str, text: str, reason: Any) -> None:
        self.sender = sender
        self.text = text
        if type(reason) is str:  # (_text_or_source inline: a message is made for most inputs)
            self._reason, self.source = reason, None
        else:
            self._reason, self.source = None, reason

    reason = _rendered("_reason")


def text_parts(messages: list[Any]) -> tuple[list[str], list[str]]:
    """What the texts of `messages` are made of, rendering none: the keys of the variant's
    texts (`core.spec.Text`, also those among a text's fields) and the plain strings; a
    message given a plain string gives it whole (sim/report.py counts announcements by them)."""
    keys: list[str] = []
    strings: list[str] = []
    lazy = _LAZY
    for message in messages:
        source = message.source
        if type(source) is Text:  # most messages: one text, its fields plain
            for value in source.values.values():
                if type(value) in lazy:
                    break
            else:
                keys.append(source.key)
                continue
            walked = _WALKED.get(source)  # (a text with lazy fields: often one a ruleset keeps, a role PM)
            if walked is None:
                if len(_WALKED) >= _WALKED_MAX:
                    _WALKED.clear()
                walked = _WALKED[source] = _walk([source], [], [])
            keys += walked[0]
            strings += walked[1]
        elif source is None:
            strings.append(getattr(message, message._TEXT))
        else:
            _walk([source], keys, strings)
    return keys, strings


def _walk(todo: list[Any], keys: list[str], strings: list[str]) -> tuple[list[str], list[str]]:
    """`keys` and `strings` with the parts of the texts in `todo` added (`text_parts`)."""
    lazy = _LAZY
    while todo:  # depth first: a text's lazy fields last to first, a Lines' parts in order
        item = todo.pop()
        kind = type(item)
        if kind is Text:
            keys.append(item.key)
            for value in item.values.values():
                if type(value) in lazy:
                    todo.append(value)
        elif kind is Lines:
            todo += reversed(item.parts)
        else:
            strings.append(item)
    return keys, strings


_LAZY = frozenset((Text, Lines))  # a text's fields walked into (a set: one look-up, not two compares)
# the parts of each text with lazy fields met (a text's values never change after it is made:
# `RulesetSpec.later`), by the text itself; a ruleset keeps its role PMs for many games
_WALKED: dict[Text, tuple[list[str], list[str]]] = {}
_WALKED_MAX = 4096


@slot_init
@dataclass(frozen=True, slots=True)
class Death:
    """A typed event: a player left the game (core.deaths.die)."""

    name: str
    cause: str  # killed, executed, no_vote, modkill, wasted, cards… (the family's words)
    phase: str  # the phase label it happened in ("night 2")


@slot_init
@dataclass(frozen=True, slots=True)
class Event:
    """A typed event of resolution (core.events.note): its kind, and the GM log line with it;
    a vote's close carries its count (kind "tally", core.events.record_tally)."""

    kind: str
    line: str
    tally: DayTally | None = None


@dataclass(slots=True, kw_only=True, init=False)
class Outcome:
    """What one input did: the new state and the messages it causes."""

    state: GameState
    posts: list[PublicPost] = field(default_factory=list)
    pms: list[PrivateMessage] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    log: list[str] = field(default_factory=list)  # GM-only explanation lines
    notes: list[str] = field(default_factory=list)  # what the human GM should know (诈尸, removals…)
    deaths: list[Death] = field(default_factory=list)  # who left the game by this input, in seat order
    events: list[Event] = field(default_factory=list)  # what resolution did (core.events), in order

    def __init__(self, *, state: GameState, posts: list[PublicPost] | None = None,
                 pms: list[PrivateMessage] | None = None, refusals: list[Refusal] | None = None,
                 log: list[str] | None = None, notes: list[str] | None = None, deaths: list[Death] | None = None,
                 events: list[Event] | None = None) -> None:
        # by hand, not the dataclass's: one is made for every input (issue 37)
        self.state = state
        self.posts = [] if posts is None else posts
        self.pms = [] if pms is None else pms
        self.refusals = [] if refusals is None else refusals
        self.log = [] if log is None else log
        self.notes = [] if notes is None else notes
        self.deaths = [] if deaths is None else deaths
        self.events = [] if events is None else events

    def model_dump_json(self) -> str:
        """Everything the input did as JSON, in field order (as pydantic wrote it)."""
        return _dumps({"state": self.state._dict(), "posts": [m.model_dump() for m in self.posts],
                       "pms": [m.model_dump() for m in self.pms], "refusals": [m.model_dump() for m in self.refusals],
                       "log": list(self.log), "notes": self.notes, "deaths": [asdict(d) for d in self.deaths],
                       "events": [asdict(e) for e in self.events]})

