"""A ruleset variant's data, as read from `rulesets/<variant>.toml` (OpenSpiel's "Game") by
tianshen.specs (the shell: the core reads no file).

Numbers (counts, timings, thresholds) and every announcement text live in the TOML file,
so a GM can run a variant without touching code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

DEFAULT_GM = "神的使者"  # the GM account's name in rehearsals, replays and the rules' own examples


class Timing(BaseModel):
    """Phase lengths in hours (002 Part II: 60-hour game day).  A family may add its own
    keys (read them with `hours(key)`)."""

    model_config = ConfigDict(extra="allow")

    night_hours: float = 24
    day_hours: float = 36
    vote_opens_hour: float = 12
    ld_extension_hours: float = 24
    ld_hours: float = 12
    summon_round_hours: float = 6
    substitution_hours: float = 12

    def hours(self, key: str, default: float | None = None) -> float:
        value = getattr(self, key, None)
        if value is None:
            if default is None:
                raise KeyError(f"no timing '{key}'")
            return default
        return float(value)


class RoleInfo(BaseModel):
    name: str  # Chinese name as the seed writes it
    faction: str
    count: int = 0
    description: str = ""
    abilities: list[str] = Field(default_factory=list)  # ids of [abilities.*] (core.abilities)


class RulesetSpec(BaseModel):
    """A variant.  A family may keep tables of its own at the top level (n_lives: `cards`,
    `abilities`, `deal`); read them with `section(name)`."""

    model_config = ConfigDict(extra="allow")

    id: str  # the variant id, e.g. "classic_10"
    ruleset: str  # the family, e.g. "classic"
    title: str
    players: int  # the default number of seats
    player_counts: list[int] = Field(default_factory=list)  # when several are allowed (n_lives: 5–7)
    roles: dict[str, RoleInfo]
    timing: Timing = Field(default_factory=Timing)
    options: dict[str, Any] = Field(default_factory=dict)
    factions: dict[str, str] = Field(default_factory=dict)  # id -> Chinese name
    texts: dict[str, str] = Field(default_factory=dict)
    # the GM account players send their PMs to, `{gm}` in every text and role description:
    # the game's (GameSetup.gm_account, set by tianshen.rules.game_ruleset), else DEFAULT_GM
    gm_account: str = DEFAULT_GM
    _derived: dict[str, Any] = PrivateAttr(default_factory=dict)  # see `derived`

    def text(self, key: str, **values: Any) -> str:
        """Render announcement `key` from its template (str.format fields)."""
        if not values:  # (a subject line…: `_plain`'s table read here first, no call)
            done = self.__pydantic_private__["_derived"].get("spec.plain_texts")
            return done[key] if done is not None and key in done else self._plain(key)
        try:
            template = self.texts[key]
        except KeyError as exc:
            raise KeyError(f"ruleset {self.id} has no text '{key}'") from exc
        values.setdefault("gm", self.gm_account)  # `values` is this call's own dict
        return template.format_map(values).strip("\n")

    def later(self, key: str, **values: Any) -> Text:
        """Announcement `key` rendered only when it is read (`str()`, a message's `body`): the
        same text `text` gives.  The key must exist now; the values must not change after
        (strings, numbers, other `Text`s or `Lines`)."""
        if key not in self.texts:
            raise KeyError(f"ruleset {self.id} has no text '{key}'")
        made = _new_text(Text)  # Text(self, key, values) without its __init__'s call (~100 a game)
        made.spec = self  # (one store a field: a tuple of four packed and unpacked is ~300 more)
        made.key = key
        made.values = values
        made._done = None
        return made

    def later_of(self, key: str, values: dict[str, Any]) -> Text:
        """`later` with its fields in a dict the caller made and hands over (as `Hot.later_of`)."""
        return self.later(key, **values)

    def _plain(self, key: str) -> str:
        """A text without fields (a subject line…), rendered once per spec."""
        derived = self.__pydantic_private__["_derived"]
        done = derived.get("spec.plain_texts")
        if done is None:
            done = derived["spec.plain_texts"] = {}
        if key not in done:
            try:
                template = self.texts[key]
            except KeyError as exc:
                raise KeyError(f"ruleset {self.id} has no text '{key}'") from exc
            done[key] = template.format_map({"gm": self.gm_account}).strip("\n")
        return done[key]  # type: ignore[no-any-return]

    def role_description(self, role: str) -> str:
        """A role's description for its role PM, with the GM account's name filled in."""
        return self.roles[role].description.replace("{gm}", self.gm_account)

    def for_gm(self, account: str) -> RulesetSpec:
        """This variant telling players to PM `account` (a copy: specs are cached and shared)."""
        if account == self.gm_account:
            return self
        spec = self.model_copy(update={"gm_account": account})
        spec._derived = {}
        return spec

    def hot(self) -> Hot:
        """This spec's most read values on a plain object (`Hot`), made once per spec object."""
        cache = self.__pydantic_private__["_derived"]
        try:
            return cache["spec.hot"]  # type: ignore[no-any-return]
        except KeyError:
            cache["spec.hot"] = made = Hot(self)
            return made

    def derived(self, key: str, build: Callable[[RulesetSpec], Any]) -> Any:
        """A table a family reads out of the spec, built once per spec object and kept on it
        (it goes with the spec: no module-wide cache grows in a long-running process)."""
        cache = self.__pydantic_private__["_derived"]  # not `self._derived`: pydantic's __getattr__ is slow
        try:
            return cache[key]
        except KeyError:
            cache[key] = value = build(self)
            return value

    def section(self, name: str) -> dict[str, Any]:
        """A family's own top-level table of the variant file."""
        value = (self.model_extra or {}).get(name)
        if not isinstance(value, dict):
            raise KeyError(f"ruleset {self.id} has no [{name}] table")
        return value

    def allows(self, players: int) -> bool:
        return players in (self.player_counts or [self.players])

    def role_name(self, role: str) -> str:
        return self.roles[role].name

    def role_by_name(self, written: str) -> str | None:
        """A role id from its id or its Chinese name."""
        if written in self.roles:
            return written
        return next((rid for rid, info in self.roles.items() if info.name == written), None)


class Hot:
    """The texts, title, factions, timing and role names of one spec on a plain object (issue
    37): every read of a pydantic model's attribute goes through its `__getattr__` hook (~450
    instructions, ~60 here).  A spec is not changed after it is loaded (`for_gm` copies; a GM's
    edited file is a new spec, so a new `Hot`); its texts, factions and timing are the spec's own."""

    __slots__ = ("spec", "id", "title", "gm_account", "texts", "factions", "timing", "plain", "names", "role_factions",
                 "_descriptions")

    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec
        self.id = spec.id
        self.title = spec.title
        self.gm_account = spec.gm_account
        self.texts = spec.texts
        self.factions = spec.factions
        self.timing = spec.timing
        derived = spec.__pydantic_private__["_derived"]
        plain = derived.get("spec.plain_texts")  # (one table with `RulesetSpec._plain`)
        if plain is None:
            plain = derived["spec.plain_texts"] = {}
        self.plain: dict[str, str] = plain
        self.names = {rid: info.name for rid, info in spec.roles.items()}
        self.role_factions = {rid: info.faction for rid, info in spec.roles.items()}
        self._descriptions: dict[str, str] | None = None

    def text(self, key: str, **values: Any) -> str:
        """`RulesetSpec.text` (a second copy on purpose: the spec's delegating here cost n_lives
        7p about 1.9 M instructions a game, its families still call the spec's)."""
        if not values:
            done = self.plain.get(key)
            return done if done is not None else self.spec._plain(key)
        try:
            template = self.texts[key]
        except KeyError as exc:
            raise KeyError(f"ruleset {self.id} has no text '{key}'") from exc
        values.setdefault("gm", self.gm_account)
        return template.format_map(values).strip("\n")

    def later(self, key: str, **values: Any) -> Text:
        """`RulesetSpec.later` (the `Text` keeps the spec)."""
        return self.later_of(key, values)

    def later_of(self, key: str, values: dict[str, Any]) -> Text:
        """`later` with its fields in a dict the caller made and hands over (kept as it is, not
        copied): a call with keywords to a function taking `**values` is not the interpreter's
        quick call of a function, ~270 instructions more (issue 37; the rules' most made texts)."""
        if key not in self.texts:
            raise KeyError(f"ruleset {self.id} has no text '{key}'")
        made = _new_text(Text)
        made.spec = self.spec
        made.key = key
        made.values = values
        made._done = None
        return made

    def role_name(self, role: str) -> str:
        return self.names[role]

    def role_description(self, role: str) -> str:
        """`RulesetSpec.role_description`, each role's made once."""
        done = self._descriptions
        if done is None:
            done = self._descriptions = {}
        text = done.get(role)
        if text is None:
            text = done[role] = self.spec.role_description(role)
        return text


class Text:
    """A text of the variant not rendered yet (`RulesetSpec.later`): its key and fields, and
    the text itself after the first `str()`.  A simulated game never reads most of its texts."""

    __slots__ = ("spec", "key", "values", "_done")

    def __init__(self, spec: RulesetSpec, key: str, values: dict[str, Any]) -> None:
        self.spec = spec
        self.key = key
        self.values = values
        self._done: str | None = None

    def __str__(self) -> str:
        done = self._done
        if done is None:
            done = self._done = self.spec.text(self.key, **self.values)
        return done

    def __repr__(self) -> str:
        return f"Text({self.key!r})"


class Lines:
    """Texts and strings joined by `sep` when first read (a post of several announcements)."""

    __slots__ = ("sep", "parts", "_done")

    def __init__(self, sep: str, parts: list[str | Text | Lines]) -> None:
        self.sep = sep
        self.parts = tuple(parts)  # the caller's list may grow after
        self._done: str | None = None

    def __str__(self) -> str:
        done = self._done
        if done is None:
            done = self._done = self.sep.join([p if type(p) is str else str(p) for p in self.parts])
        return done

    def __repr__(self) -> str:
        return f"Lines({self.sep!r}, {list(self.parts)!r})"


_new_text = object.__new__

Body = str | Text | Lines  # what a message's text may be before it is read
