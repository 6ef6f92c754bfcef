"""Abilities as data (issue 36): what a player may send by PM, read from the variant's
`[abilities.*]` and `[roles.*].abilities` tables, and the checks every family shares.

An ability is one power: its id (the key of its entries, e.g. `subs[id]`), its name (the word
in receipts, help and refusals), the words players write, the roles that hold it, its window
(night / power / day / any), its lock (minutes before the window's end after which nothing new
is taken), its target rule (living / dead / self / other / cell / none), its group (own: each
holder alone; role: the holders of a role act jointly; faction: the faction's rule), whether
a declaration is needed, its cost and whether it may be cancelled until its window closes.

A role built from abilities the family has is then a variant file: `[roles.x] abilities = [..]`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from tianshen.core.grammar import VERBS, Verbs, VerbTable
from tianshen.core.intake import ReadLate, Refused
from tianshen.core.model import GameState, Player
from tianshen.core.spec import RulesetSpec

WINDOWS = ("night", "power", "day", "any")
TARGETS = ("living", "dead", "self", "other", "cell", "none", "player", "executed")
GROUPS = ("own", "role", "faction")
CANCELS = ("until_end", "never")


class AbilityError(ValueError):
    """A variant whose ability table is wrong: one line for the GM who wrote it."""


@dataclass(frozen=True)
class Ability:
    id: str
    name: str  # the word in receipts, help and refusals
    words: tuple[str, ...]  # what players write (the parser's aliases)
    roles: tuple[str, ...] = ()  # the roles that hold it (from [roles.*].abilities)
    verb: str = ""  # the command it parses to ("" : its id)
    window: str = "night"
    lock: float | None = None  # minutes before the window's end
    target: str = "living"
    group: str = "role"
    declaration: bool = False
    cost: int = 0
    cancel: str = "until_end"
    extra: tuple[tuple[str, Any], ...] = ()  # the family's own keys, as written
    _extra: dict[str, Any] = field(init=False, repr=False, compare=False)  # `extra` as a dict, for `get`

    def __post_init__(self) -> None:
        extra = dict(self.extra)
        object.__setattr__(self, "_extra", extra)
        # `get` is that dict's own: one call in C (the night reads an ability's keys ~140 times a game)
        object.__setattr__(self, "get", extra.get)

    @property
    def command(self) -> str:
        return self.verb or self.id

    def get(self, key: str, default: Any = None) -> Any:  # (each instance has `_extra.get` instead)
        return self._extra.get(key, default)


@dataclass(frozen=True)
class Table:
    """The abilities of a variant, by id, and which of them each role holds (in its order)."""

    by_id: dict[str, Ability]
    of_role: dict[str, tuple[str, ...]]
    lock: float | None = None  # the variant's lock ([options] lock_minutes), an ability's unless its own
    _by_command: dict[str, Ability] = field(init=False, repr=False, compare=False)  # the first per command
    # role -> its abilities, in its order; (role, command) -> the first of them for the command
    _held: dict[str, tuple[Ability, ...]] = field(init=False, repr=False, compare=False)
    _holds: dict[tuple[str, str], Ability] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        first: dict[str, Ability] = {}
        for a in self.by_id.values():
            first.setdefault(a.command, a)
        object.__setattr__(self, "_by_command", first)
        held = {role: tuple(self.by_id[a] for a in ids) for role, ids in self.of_role.items()}
        holds: dict[tuple[str, str], Ability] = {}
        for role, abilities in held.items():
            for a in abilities:
                holds.setdefault((role, a.command), a)
        object.__setattr__(self, "_held", held)
        object.__setattr__(self, "_holds", holds)

    def held(self, role: str) -> list[Ability]:
        return list(self._held.get(role, ()))

    def first(self, role: str) -> Ability | None:
        held = self.of_role.get(role)
        return self.by_id[held[0]] if held else None

    def by_command(self, command: str) -> Ability | None:
        return self._by_command.get(command)

    def holds(self, role: str, command: str) -> Ability | None:
        return self._holds.get((role, command))

    def verbs(self) -> dict[str, tuple[str, ...]]:
        """The PM words of every ability, by command, for `core.grammar.parse_pm`."""
        out: dict[str, tuple[str, ...]] = {}
        for a in self.by_id.values():
            words = out.get(a.command, ())
            out[a.command] = words + tuple(w for w in a.words if w not in words)
        return out

    def commands(self) -> frozenset[str]:
        return frozenset(a.command for a in self.by_id.values())

    def declaring(self) -> frozenset[str]:
        return frozenset(a.command for a in self.by_id.values() if a.declaration)


KNOWN = {"name", "words", "verb", "window", "lock", "target", "group", "declaration", "cost", "cancel"}


def pm_verbs(spec: RulesetSpec) -> Verbs:
    """Every word a player of the variant may write: the shared verbs (all, or those its
    `[verbs] shared` list keeps), its abilities' words, then its own `[verbs]` words."""
    try:
        own = dict(spec.section("verbs"))
    except KeyError:
        own = {}
    kept = own.pop("shared", None)
    if unknown := [v for v in kept or [] if v not in VERBS]:
        raise AbilityError(f"ruleset {spec.id}: [verbs] shared names {', '.join(unknown)}, not one of {', '.join(VERBS)}")
    shared = VERBS if kept is None else {v: VERBS[v] for v in kept}
    return VerbTable(shared | table(spec).verbs() | {v: tuple(words) for v, words in own.items()})


def table(spec: RulesetSpec) -> Table:
    """The variant's ability table (read once per spec object)."""
    return spec.derived("core.abilities", read)


def read(spec: RulesetSpec) -> Table:
    try:
        raw = spec.section("abilities")
    except KeyError:
        raw = {}
    of_role: dict[str, tuple[str, ...]] = {}
    for rid, info in spec.roles.items():
        held = tuple(info.abilities)
        for aid in held:
            if aid not in raw:
                raise AbilityError(f"ruleset {spec.id}: role {rid} holds ability '{aid}', "
                                   f"which [abilities] does not define")
        of_role[rid] = held
    by_id = {aid: _ability(spec, aid, info, tuple(r for r, h in of_role.items() if aid in h))
             for aid, info in raw.items()}
    lock = spec.options.get("lock_minutes")
    return Table(by_id, of_role, None if lock is None else float(lock))


def _ability(spec: RulesetSpec, aid: str, info: dict[str, Any], roles: tuple[str, ...]) -> Ability:
    def pick(key: str, allowed: tuple[str, ...], default: str) -> str:
        value = str(info.get(key, default))
        if value not in allowed:
            raise AbilityError(f"ruleset {spec.id}: ability {aid}: {key} '{value}' is not one of {', '.join(allowed)}")
        return value

    name = str(info.get("name", aid))
    lock = info.get("lock", spec.options.get("lock_minutes"))  # the variant's lock unless its own
    return Ability(
        id=aid, name=name, words=tuple(info.get("words", [name])), roles=roles, verb=str(info.get("verb", "")),
        window=pick("window", WINDOWS, "night"), lock=None if lock is None else float(lock),
        target=pick("target", TARGETS, "living"), group=pick("group", GROUPS, "role"),
        declaration=bool(info.get("declaration", False)), cost=int(info.get("cost", 0)),
        cancel=pick("cancel", CANCELS, "until_end"),
        extra=tuple((k, v) for k, v in info.items() if k not in KNOWN))


# ---- the one intake check ------------------------------------------------------------------


def check_window(spec: RulesetSpec, ability: Ability, state: GameState, at: datetime, queue_day: bool = False) -> None:
    """The ability's window by forum time (DECISIONS §0.1): a PM written before the window
    opened or after it closed is refused with the variant's words (the ability's own
    `outside` text, else `not_night`, `night_over`, `not_power_time`, `not_day`), and from
    its lock on with `night_locked`.  With `queue_day` a night ability sent by day is taken
    for the next night (000 1.1.5): only its lock is checked."""
    ph = state.phase
    window = ability.window
    if ph.kind == "day" and window in ("night", "power") and ph.started_at and at < ph.started_at:
        raise ReadLate(spec.later("pm_read_late"))  # check_late, read here (one call less a PM)
    if window == "night" and not queue_day:
        if ph.kind != "night" or (ph.started_at and at < ph.started_at):
            # 002 平民: the window opens at dusk; a PM whose forum time is still in the day is
            # invalid even if it is processed after dusk (DECISIONS §0.1)
            raise Refused(spec.later(ability.get("outside") or "not_night"))
        if ph.ends_at and at >= ph.ends_at:
            raise Refused(spec.later("night_over"))
    elif window == "power":
        # a power round (004 补充 一 3–4): the night's `power` step, until its deadline
        if ph.kind != "night" or ph.step != "power" or ph.ends_at is None or at >= ph.ends_at:
            raise Refused(spec.later(ability.get("outside") or "not_power_time"))
    elif window == "day" and ph.kind != "day":
        raise Refused(spec.later(ability.get("outside") or "not_day"))
    if ability.lock is not None:  # (check_lock does nothing without one)
        check_lock(spec, ability.lock, state, at, str(ability.get("locked", "night_locked")))


def check_late(spec: RulesetSpec, ability: Ability, state: GameState, at: datetime) -> None:
    """DECISIONS §0.1: the forum's time decides.  A night (or power round) command written
    before this day began, that the board showed only after dawn (a lagging conversation
    page), is not refused as sent by day: it came too late to be counted (`pm_read_late`)."""
    ph = state.phase
    if ph.kind == "day" and ability.window in ("night", "power") and ph.started_at and at < ph.started_at:
        raise ReadLate(spec.later("pm_read_late"))  # (as check_window reads it)


def check_lock(spec: RulesetSpec, lock: float | None, state: GameState, at: datetime,
               words: str = "night_locked") -> None:
    """Nothing new from `lock` minutes before the night's end (001 §2.11, 000 §3.4.4, 004 六's
    earlier deadline of the 花蝴蝶), refused with the ability's `locked` words."""
    ph = state.phase
    if lock is not None and ph.kind == "night" and ph.ends_at is not None:
        if at >= ph.ends_at - timedelta(minutes=lock):
            raise Refused(spec.later(words, minutes=f"{lock:g}"))


def check_role(spec: RulesetSpec, tab: Table, p: Player, command: str) -> Ability:
    """The player's ability for this command, or the refusal that names his own."""
    mine = tab.holds(p.role, command)
    if mine is not None:
        return mine
    asked = tab.by_command(command)
    held = "、".join(a.name for a in tab.held(p.role))
    hint = spec.later("ability_hint", names=held) if held else ""
    raise Refused(spec.later("ability_not_yours", name=asked.name if asked else command, hint=hint))


def check_target(spec: RulesetSpec, ability: Ability, p: Player, target: Player, same_group: bool) -> None:
    """The ability's target rule: living, dead, self, other (not one's own group)."""
    rule = ability.target
    if rule == "dead":
        if target.alive:
            raise Refused(spec.later("target_alive", name=target.name, ability=ability.name))
        return
    if not target.alive:
        raise Refused(spec.later("target_dead", name=target.name))
    if rule == "self" and target.name != p.name:
        raise Refused(spec.later("target_not_self", ability=ability.name))
    if rule == "other" and same_group:
        raise Refused(spec.later("target_own", role=spec.role_name(p.role)))


def help_names(tab: Table, role: str) -> list[str]:
    """The names of a role's abilities, as its help lists them."""
    return [a.name for a in tab.held(role)]
