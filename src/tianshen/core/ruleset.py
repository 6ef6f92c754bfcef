"""The interface every ruleset implements, and the one entry point that folds an input.

A ruleset is pure: (state, input) -> Outcome.  It never reads a clock, a database or the
forum; times come with the inputs, randomness from the RNG in the state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel, Field, field_validator, model_validator

from tianshen.core import abilities, activity, checkin, clock, flow, rng, substitution
from tianshen.core.ballots import VotePosts
from tianshen.core.clock import DEFAULT_ZONE
from tianshen.core.deaths import deaths_since, die
from tianshen.core.flow import REMINDER, Step
from tianshen.core.grammar import Command, Verbs
from tianshen.core.intake import answer_pm
from tianshen.core.model import (
    DUE_MOVED,
    DUE_UNKNOWN,
    WRITES,
    DeadlineIn,
    GameState,
    GmIn,
    Input,
    Outcome,
    Phase,
    Player,
    PmIn,
    PostIn,
    PrivateMessage,
    PublicPost,
    Refusal,
    alive_logged,
    deaths_logged,
    fold_sharing_players,
    hand_on,
    peek,
)
from tianshen.core.names import NameMatchError, fold, match_name
from tianshen.core.outbox import Messages
from tianshen.core.overrides import GmRefused, LedgerOverrides, sent_at
from tianshen.core.spec import DEFAULT_GM, Lines, RulesetSpec, Text
from tianshen.core.tally import DayTally
from tianshen.core.votes import count_rows


class Seat(BaseModel):
    name: str  # the 马甲 used in the game
    forum_name: str = ""  # the player's own account (defaults to the 马甲)


class GameSetup(BaseModel):
    """What a game starts from: seats, seed, start time, roles fixed by the GM or a script."""

    seats: list[Seat]
    seed: int
    # The secret of the seed commitment (core.rng): set by the shell for a real game
    # (GameDriver.register draws one); None = derived from the seed, not secret (scripts, tests).
    salt: str | None = None
    start: datetime
    # The board's display zone (core.clock): every time in the game's texts is shown in it.
    # Data, fixed at sign-up, so a replay of the event log shows the same texts.
    zone: str = DEFAULT_ZONE
    fixed_roles: dict[str, str] = Field(default_factory=dict)  # name -> role id
    substitutes: list[str] = Field(default_factory=list)  # forum accounts of the substitutes (替补)
    gm_contact: str | None = None  # the human GM's forum account: gets the notes by PM
    # The GM account tianshen logs in as, as the board shows it: players are told to PM it
    # (`{gm}` in the texts; the shell sets it at sign-up, tianshen.rules.game_ruleset reads it).
    gm_account: str = DEFAULT_GM
    setup: dict[str, Any] = Field(default_factory=dict)  # ruleset-specific dealing options

    @field_validator("zone")
    @classmethod
    def _zone_known(cls, zone: str) -> str:
        return clock.check_zone(zone)

    @field_validator("salt")
    @classmethod
    def _salt_format(cls, salt: str | None) -> str | None:
        if salt is not None and not rng.SALT_FORMAT.fullmatch(salt):
            raise ValueError(f"a salt is at least {rng.SALT_HEX_DIGITS} lowercase hex digits (128 bits)")
        return salt

    def game_salt(self) -> str:
        """The salt the game commits with: the one given, else derived from the seed."""
        return self.salt or rng.derived_salt(self.seed)

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


@dataclass(frozen=True, slots=True)
class VoteCount:
    """The count of the running vote as every player may know it (core.observation): the
    ruleset's own text (its 「票数」 reply), or rows (name, votes, voters); `note` says what it is."""

    text: str = ""
    rows: tuple[tuple[str, int, str], ...] = ()
    note: str = ""


@dataclass(frozen=True, slots=True)
class BoardMap:
    """A family's board of cells (hex_survival's map) as plain data for the pages: the cells
    in table order, their neighbours, and for the GM who stands where and the dig depths."""

    cells: tuple[str, ...]
    neighbours: dict[str, tuple[str, ...]]
    people: dict[str, tuple[str, ...]]  # cell -> "name hp" of the living there (GM view only)
    depths: dict[str, int]  # cell -> layers dug (GM view only)


_ALIVE = attrgetter("alive")
_CORE_ENDS = ("checkin_end", "substitution_end")  # core's own deadlines, not a family's step


class Deadline(NamedTuple):
    """A scheduled moment and what it closes or opens (a plain value, built several times
    per input: a named tuple, the cheapest to make)."""

    at: datetime
    kind: str


_deadline = partial(tuple.__new__, Deadline)  # Deadline((at, kind)) in C: the schedule makes one at every input
T = TypeVar("T")
_KEPT_MOST = 4096  # role PMs and aliases a ruleset keeps (a long-running shell meets new names)


class SetupKept:
    """What `Ruleset.setup` keeps from one game to the next, each table bounded (`_KEPT_MOST`):
    the players of a table before the deal, role PMs (`_role_pm_key`), aliases by account and
    马甲, the player list's title and the role PM's subject.  Set in `__init__`, not made when
    first read: a ruleset's instance dict read as `__dict__` slows every attribute read after."""

    __slots__ = ("tables", "role_pms", "aliases", "titles")

    def __init__(self) -> None:
        self.tables: dict[tuple[tuple[str, str], ...], tuple[Player, ...]] = {}
        self.role_pms: dict[tuple[Any, ...], Text] = {}
        self.aliases: dict[tuple[str, str], str | Lines] = {}
        self.titles: tuple[str, str] | None = None


def _keep(table: dict[Any, T], key: Any, made: T) -> T:
    """`made` kept in `table` under `key`; a full table (`_KEPT_MOST`) is emptied first."""
    if len(table) >= _KEPT_MOST:
        table.clear()
    table[key] = made
    return made


def _role_pm_key(p: Player, extra: str | Text | Lines) -> tuple[Any, ...] | None:
    """What a role PM of `Ruleset.role_pm` is made of: the account, the 马甲, the role and the
    extra line by its text or its key and values; None when the extra's values cannot be a key."""
    if type(extra) is str:
        return p.forum_name, p.name, p.role, extra
    if type(extra) is Text:
        values = tuple(extra.values.items())
        try:
            hash(values)
        except TypeError:
            return None
        return p.forum_name, p.name, p.role, extra.key, values
    return None


class Ruleset(LedgerOverrides, VotePosts, ABC):
    """One ruleset family; an instance is bound to one variant's spec."""

    def __init__(self, spec: RulesetSpec) -> None:
        self.spec = spec
        # what players may send by PM (core.abilities): the variant's ability table, every
        # word it reads and the verbs whose text runs to the PM's end (a killer's declaration)
        self.abilities = abilities.table(spec)
        self.pm_verbs: Verbs = abilities.pm_verbs(spec)
        self.pm_declaring: frozenset[str] = self.abilities.declaring()
        # whether the family has an `after_input` (apply_in_place makes its Messages only then)
        self._after_input = type(self).after_input is not Ruleset.after_input
        # whether the family has its own `watch_activity` (every post goes to it; the shared
        # one needs only a dead author's post unless the variant counts posts: `_fold_post`)
        self._own_watch = type(self).watch_activity is not Ruleset.watch_activity
        self._own_lurkers = type(self).report_lurkers is not Ruleset.report_lurkers  # (the same, at deadlines)
        self._own_post = type(self).on_post is not Ruleset.on_post  # (else a post goes to `on_vote_post`)
        self._own_post_taken = type(self).post_taken is not VotePosts.post_taken  # (else not called a post)
        self._step_ends = (self.STEPS, flow.ends(self.STEPS))  # what runs at each deadline kind
        # the variant's options, the spec's very dict (a test may write it): read at every post
        # and deadline, where a read of a pydantic field costs ~450 instructions (its
        # `__getattr__` hook), this one ~60
        self._options = spec.options
        self._hot = spec.hot()  # its texts, title and role names, read without that hook
        self._kept = SetupKept()  # what `setup` makes once for many games

    def setup(self, game: GameSetup) -> Outcome:
        """The setup frame, once for every family: the seat count, the players, the deal
        (`deal`), the family's data and night 1 (`begin`), the player list (with the family's
        `player_list_values`) and every role PM (`role_pm`)."""
        spec = self.spec
        if not spec.allows(len(game.seats)):
            counts = " or ".join(map(str, spec.player_counts or [spec.players]))
            raise ValueError(f"{spec.id} needs {counts} players, got {len(game.seats)}")
        players = [p.copy() for p in self._seated(game.seats)]
        state = GameState(ruleset=spec.ruleset, variant=spec.id, seed=game.seed, salt=game.game_salt(), zone=game.zone,
                          players=players)
        self.deal(state, game)
        self.begin(state, game)
        out = Messages()
        hot = self._hot
        list_title, subject = self._setup_titles()
        out.post("main", hot.later("player_list", title=hot.title, players=self.roster(state),
                                   seed_hash=rng.seed_digest(state.seed, state.salt),
                                   ends=clock.show(state.phase.ends_at, state.zone), **self.player_list_values(state)),
                 title=list_title)
        role_pm = self.role_pm
        for p in state.players:
            out.pm(p.forum_name, subject, role_pm(state, p))
        return out.outcome(state)

    def _seated(self, seats: list[Seat]) -> tuple[Player, ...]:
        """The players of these seats before the deal, made once per table (bounded: `_KEPT_MOST`):
        a game takes a copy of each."""
        key = tuple([(s.name, s.forum_name) for s in seats])
        kept = self._kept.tables
        made = kept.get(key)
        if made is None:
            made = _keep(kept, key, tuple(Player(name=name, forum_name=forum_name or name, seat=i + 1)
                                          for i, (name, forum_name) in enumerate(key)))
        return made

    def _setup_titles(self) -> tuple[str, str]:
        """The player list's title and the role PM's subject, rendered once per ruleset."""
        kept = self._kept
        if kept.titles is None:
            hot = self._hot
            kept.titles = hot.text("player_list_title", title=hot.title), hot.text("role_pm_subject", title=hot.title)
        return kept.titles

    def deal(self, state: GameState, game: GameSetup) -> None:
        """A hook: the roles dealt at setup (n_lives: with its factions by player count)."""
        self.deal_roles(state, game.fixed_roles)

    @abstractmethod
    def begin(self, state: GameState, game: GameSetup) -> None:
        """The family's data after the deal, in its key order, and night 1 (with the check-in)."""

    def roster(self, state: GameState) -> str:
        """The player list's lines: seat and name."""
        return "\n".join(f"{p.seat}. {p.name}" for p in state.players)

    def player_list_values(self, state: GameState) -> dict[str, Any]:
        """A hook: the family's fields of its player list text (the check-in request, the map…)."""
        return {}

    def on_pm(self, state: GameState, pm: PmIn) -> Outcome:
        """Parse a PM, run each command by the family's `pm_command`, always answer the
        sender (core.intake); a step that everyone's /done ends may end now (note_done)."""
        # (by night the family's `pm_command` itself: `_command`'s late read is by day only)
        run = self._command if state.phase.kind == "day" else self.pm_command
        out, p = answer_pm(self._hot, state, pm, run, self.pm_help_text, self.pm_verbs, self.pm_declaring)
        if p is not None and peek(state.data, "done"):  # (note_done looks at nothing else before a /done)
            self.note_done(state, pm.at)
        return out.outcome(state)

    def _command(self, state: GameState, p: Player, cmd: Command, at: datetime, out: Messages) -> str:
        """One command: an ability's is first checked against the time it was written (the
        late read, core.abilities.check_late), then the family runs it."""
        if state.phase.kind == "day" and (ability := self.abilities.by_command(cmd.verb)):  # (late only by day)
            abilities.check_late(self.spec, ability, state, at)
        return self.pm_command(state, p, cmd, at, out)

    @abstractmethod
    def pm_command(self, state: GameState, p: Player, cmd: Command, at: datetime, out: Messages) -> str:
        """One command of a player's PM: its receipt line (a `Refused` says why not)."""

    @abstractmethod
    def pm_help(self, state: GameState, p: Player) -> str:
        """What a player who wrote something unreadable is told he may write."""

    def pm_help_text(self, state: GameState, p: Player) -> str | Text:
        """`pm_help` for a PM's answer: a family may give it unrendered (`RulesetSpec.later`)."""
        return self.pm_help(state, p)

    def on_post(self, state: GameState, post: PostIn) -> Outcome:
        """A post in a game thread: votes, by the family's ballot policy (core.ballots)."""
        return self.on_vote_post(state, post)

    def next_deadline(self, state: GameState) -> Deadline | None:
        """The next scheduled moment; None when the game is over or paused by the GM.  Worked
        out once for a state as it is (`GameState.due`, dropped by every fold that can have
        moved it: `apply_in_place`)."""
        due = state.due
        if due is DUE_UNKNOWN or due is DUE_MOVED:
            due = state.due = self._next_deadline(state)
        return due

    def _next_deadline(self, state: GameState) -> Deadline | None:
        data = state.data
        if peek(data, "paused_at"):  # (a string: `peek`, no call of SharedDict's in `apply`)
            return None
        due = self.schedule(state)
        if not peek(data, "checkin") and not peek(data, "substitution"):
            return due
        for kind, ends in (("checkin_end", checkin.deadline(state)), ("substitution_end", substitution.deadline(state))):
            if ends is not None and (due is None or ends <= due.at):
                due = Deadline(at=ends, kind=kind)
        return due

    # the family's phases as steps (core.flow): when each ends, what runs there, what an
    # extension moves, early end and reminders; tianshen.rules.families() refuses a family
    # whose table and record (core.family.Family.deadlines) differ, or that names a method
    # it lacks
    STEPS: tuple[Step, ...] = ()

    def schedule(self, state: GameState) -> Deadline | None:
        """The ruleset's next deadline from its step table, or None when the game is over."""
        due = flow.due(self.STEPS, state)
        return None if due is None else _deadline(due)

    def shift_schedule(self, state: GameState, hours: float) -> None:
        """Every remaining deadline of the step moves by `hours` (extend, resume, leave, a
        substitution, downtime): the phase's end and each time the step's `shift` names in
        `data`; an early end (/done) is dropped."""
        flow.shift(flow.current(self.STEPS, state), state, hours)

    def on_deadline(self, state: GameState, deadline: DeadlineIn, known: Deadline | None = None) -> Outcome:
        """Close or open what the deadline names (resolve the night, count the votes…), once
        the schedule confirms it is the one due; any other is logged and ignored.  `known`:
        the schedule's deadline of the state as it is, when the caller knows it."""
        out = Messages()
        due = known or self.schedule(state)
        if due is None or due.kind != deadline.kind:
            out.log.append(f"deadline {deadline.kind} ignored: the game expects {due.kind if due else 'nothing'}")
            return out.outcome(state)
        steps, ends = self._step_ends
        if steps is not self.STEPS:  # (a table set after the ruleset was made)
            steps, ends = self._step_ends = (self.STEPS, flow.ends(self.STEPS))
        getattr(self, ends[deadline.kind])(state, deadline.at, out)
        return out.outcome(state)

    def remind(self, state: GameState, at: datetime, out: Messages) -> None:
        """A step's reminder (flow.Step.reminder_from): once per phase and step, then the
        family's `remind_players` with the step's end."""
        state.data["reminded"] = flow.reminded_mark(state)
        step = flow.current(self.STEPS, state)
        self.remind_players(state, flow.end_of(step, state) if step else None, out)

    def remind_players(self, state: GameState, ends: datetime | None, out: Messages) -> None:
        """A hook: the reminder PMs of a step that declares a reminder."""

    def on_gm(self, state: GameState, gm: GmIn) -> Outcome:
        """A GM override: `gm_<command>` of the ruleset (or of this base class).  Each one
        needs a reason, and is recorded in the state's `gm_log` (and the event log)."""
        handler = getattr(self, "gm_" + gm.command.replace("-", "_"), None)
        try:
            if handler is None or gm.command in self.ledger_commands():
                raise GmRefused(f"unknown command '{gm.command}'; commands: {', '.join(self.gm_commands())}")
            if not gm.reason.strip():
                raise GmRefused("every override needs a reason (--reason)")
            if state.phase.kind == "over":
                raise GmRefused("the game is over")
            outcome: Outcome = handler(state, gm)
        except GmRefused as exc:
            return Outcome(state=state, refusals=[Refusal(sender="GM", text=gm.command, reason=str(exc))])
        entry = {"at": gm.at.isoformat(), "command": gm.command, "args": gm.args, "reason": gm.reason}
        outcome.state.data.setdefault("gm_log", []).append(entry)
        outcome.log.insert(0, f"GM {gm.command} {gm_args(gm.args, state.zone)}: {gm.reason}".replace("  ", " "))
        return outcome

    def _player_arg(self, state: GameState, gm: GmIn, key: str = "player") -> Player:
        """The player a GM command names (robust matching; unknown or ambiguous is refused)."""
        try:
            return state.player(match_name(str(gm.args.get(key) or ""), [p.name for p in state.players]))
        except NameMatchError as exc:
            raise GmRefused(exc.message) from None

    def gm_enter_action(self, state: GameState, gm: GmIn) -> Outcome:
        """Enter a PM a player sent another way; `sent_at` = when he sent it (default now)."""
        p = self._player_arg(state, gm)
        return self.on_pm(state, PmIn(id=gm.id, sender=p.name, at=sent_at(gm), text=str(gm.args.get("text", ""))))

    def deal_roles(self, state: GameState, fixed: dict[str, str], pool: list[str] | None = None) -> None:
        """Roles by lot with the state's seeded RNG (DECISIONS §0.6), except those the GM or a
        script fixes; `pool` defaults to the variant's role counts."""
        pool = list(pool) if pool is not None else [r for r, info in self.spec.roles.items() for _ in range(info.count)]
        for name, role in fixed.items():
            if state.find(name) is None:
                raise ValueError(f"fixed role for unknown player '{name}'")
            if role not in pool:
                raise ValueError(f"role '{role}' is not available (or too many) in {self.spec.id}")
            pool.remove(role)
        free = rng.shuffled(state, pool)
        factions = self._hot.role_factions
        for p in state.players:
            role = fixed.get(p.name) or free.pop(0)
            p.write({"role": role, "faction": factions[role]})
        state.roles_changed()

    def gm_commands(self) -> list[str]:
        """The overrides of this ruleset: its `gm_…` methods, less those over a ledger its
        family does not keep."""
        found = (n[3:].replace("_", "-") for n in dir(self) if n.startswith("gm_") and n != "gm_commands")
        return sorted(set(found) - self.ledger_commands())

    # ---- overrides every ruleset has --------------------------------------------------

    def gm_advance(self, state: GameState, gm: GmIn) -> Outcome:
        """End the current phase (or step) now: 002 "天神可以提前结束这个时段"."""
        due = self.phase_end(state)
        if due is None:
            raise GmRefused("nothing is scheduled")
        return self.on_deadline(state, DeadlineIn(id=gm.id, at=gm.at, kind=due.kind))

    def phase_end(self, state: GameState) -> Deadline | None:
        """The next deadline that ends something, passing over reminders (they only remind;
        `state` is left past them)."""
        due = self.schedule(state)
        while due is not None and due.kind == REMINDER:
            self.on_deadline(state, DeadlineIn(id="skip-reminder", at=due.at, kind=due.kind))
            due = self.schedule(state)
        return due

    def gm_extend(self, state: GameState, gm: GmIn) -> Outcome:
        """Move the current phase's deadlines later by `hours` (002: 延长游戏时段), at least
        that long: the phase end lands on a whole minute (`whole_minute_shift`)."""
        hours = self.whole_minute_shift(state, gm_hours(gm))
        self.shift_schedule(state, hours)
        checkin.shift(state, hours)
        return self._announce(state, "gm_extended", hours=_num(hours), duration=_duration(hours), reason=gm.reason)

    def gm_leave(self, state: GameState, gm: GmIn) -> Outcome:
        """请假 (002, 000 §9.2, 003 §10.2, 004 补充 二 1): the phase is extended for a player
        on leave, in every family; `on_leave` records what the family keeps of it."""
        p = self._player_arg(state, gm)
        most = getattr(self.spec.timing, "leave_max_hours", None)  # 004 补充 二 1: 最多24小时
        asked = gm_hours(gm, most=None if most is None else float(most))
        hours = self.whole_minute_shift(state, asked)
        until = gm.at + timedelta(hours=asked)
        self.on_leave(state, p, until)
        self.shift_schedule(state, hours)
        return self._announce(state, "gm_leave", name=p.name, hours=_num(hours), duration=_duration(hours),
                              reason=gm.reason, until=clock.show(until, state.zone))

    def whole_minute_shift(self, state: GameState, hours: float) -> float:
        """`hours`, made a little longer when needed so that the phase end it moves lands on a
        whole minute of the clock (players read deadlines to the minute).  A variant whose
        timings are not whole minutes (the tests' fast variants) is shifted as asked."""
        end = self.phase_ends_at(state)
        if end is None or not _whole_minutes(self.spec):
            return hours
        moved = end + timedelta(hours=hours)
        return (clock.whole_minute(moved) - end) / timedelta(hours=1)

    def phase_ends_at(self, state: GameState) -> datetime | None:
        """When the current phase ends (the day, not the vote thread's opening), as an
        extension's notice names it."""
        if state.phase.ends_at is not None:
            return state.phase.ends_at
        due = self.schedule(state)
        return due.at if due else None

    def role_alias(self, p: Player) -> str | Lines:
        """The role PM's line naming the seat's 马甲, with its line end; none when the 马甲 is
        the player's own account (issue 31 item 8)."""
        if p.forum_name in ("", p.name):
            return ""
        kept, key = self._kept.aliases, (p.forum_name, p.name)
        made = kept.get(key)
        if made is None:
            hot = self._hot
            made = _keep(kept, key, Lines("", [hot.later("role_alias", title=hot.title, name=p.name), "\n"]))
        return made

    def open_vote(self, state: GameState) -> tuple[str, datetime] | None:
        """The thread of the vote running now and its end (None: no vote thread open): an
        extension is told there too, where the vote's first post gave the old deadline.  A
        step that declares `votes` (core.flow) has the phase's vote thread open until its end."""
        step = flow.current(self.STEPS, state)
        at = flow.time_at(state, step.deadline) if step and step.votes else None
        return (f"vote:{state.phase.number}", at) if at else None

    def vote_post_done(self, state: GameState, post: PostIn) -> None:
        """After a vote post was taken or refused: the step may end early (note_done)."""
        if peek(state.data, "done"):  # (note_done looks at nothing else before a /done)
            self.note_done(state, post.at)

    def note_done(self, state: GameState, at: datetime) -> None:
        """DECISIONS §0.5 (000, 001, 002): a step whose table says everyone's /done ends it
        early (`early_done`) ends now, once every living player has sent /done and, while a
        vote is counted, the ballots ledger misses nobody's ballot."""
        done = peek(state.data, "done")  # (nobody's /done yet: the step need not be looked up)
        if not done:
            return
        step = flow.current(self.STEPS, state)
        if step is None or not step.early_done:
            return
        alive = {p.name for p in state.players if p.alive}
        if not alive or not alive <= set(done):
            return
        count = self.ballots.count(state, closing=False) if self.ballots is not None else None
        if count is None or not count.missing:
            state.data["early_at"] = clock.iso(at, at.utcoffset())
            state.changed()  # the step ends now: a PM's or a post's fold does not keep its deadline

    def on_leave(self, state: GameState, p: Player, until: datetime) -> None:
        """What a family records of a player's leave (until when) besides the extension (hex:
        the day's vote; butterfly_elder: excused from lurking)."""
        return None

    def gm_modkill(self, state: GameState, gm: GmIn) -> Outcome:
        """判出局 (000 §9.1, 001 §6.1, 003 §10.1, 004 补充 二 2): the player leaves the game at
        once; how his death is announced and what follows is the family's (`modkill`)."""
        p = self._player_arg(state, gm)
        if not p.alive:
            raise GmRefused(f"{p.name} is already out")
        return self.modkill(state, p, gm)

    def modkill(self, state: GameState, p: Player, gm: GmIn) -> Outcome:
        """判出局: out at once, announced as any death is (`gm_modkill`), then the win check."""
        self.remove(state, p, "modkill", gm.at)
        out = Messages()
        self.announce_death(state, "gm_modkill", p, gm.at, out, reason=gm.reason)
        return out.outcome(state)

    # ---- the shell's hooks for a death (issue 35 item 1) ----------------------------------

    def remove(self, state: GameState, p: Player, cause: str, at: datetime) -> None:
        """A hook: the player leaves the game (core.deaths.die; n_lives takes his cards,
        butterfly_elder opens his will)."""
        die(state, p, cause)

    def announce_death(self, state: GameState, key: str, p: Player, at: datetime, out: Messages,
                       **values: Any) -> None:
        """The main-thread post of a death outside the night and the vote (text `key`, the
        side as `public_identity` says it), unless the win check posts it with the game over."""
        side = self.public_identity(state, p)
        lines = [self.spec.text(key, name=p.name, identity=side, camp=side, **values)]
        self.after_death(state, lines, out)
        if not self.announce_victory(state, at, out, lines):
            out.post("main", Lines("\n", lines))

    def after_death(self, state: GameState, lines: list[str | Text], out: Messages) -> None:
        """A hook: what follows a death in its post (hex_survival: the 默哀期); nothing by default."""

    def announce_victory(self, state: GameState, at: datetime, out: Messages,
                         lines: list[str | Text] | None = None) -> bool:
        """When the game is won (`check_victory`), post `lines` with the game over and say True."""
        self.before_victory_check(state, at, out)
        winner = self.check_victory(state)
        if winner is None:
            return False
        self.game_over(state, at, out, winner, lines or [])
        return True

    def before_victory_check(self, state: GameState, at: datetime, out: Messages) -> None:
        """A hook: what settles at every announcement before the win check (game_ten:
        conversion, B12)."""

    def gm_end_game(self, state: GameState, gm: GmIn) -> Outcome:
        """End the game now (000 §11.3 不分胜负), with the winner the GM names or none; the
        family's end post (`end_by_gm`)."""
        winner = self._winner_arg(gm)
        out = Messages()
        self.end_by_gm(state, gm.at, winner, out)
        return out.outcome(state)

    def end_by_gm(self, state: GameState, at: datetime, winner: str | None, out: Messages) -> None:
        """The game over when the GM ends the game (its post, every seat, the seed)."""
        self.game_over(state, at, out, winner, [])

    # ---- the game over, once (issue 35 item 1) --------------------------------------------

    # how the game-over post joins the lines before it (a death, the last count) and its result
    game_over_joiner = "\n"
    # what a dead seat's line in the game-over post adds (final_line)
    dead_mark = "，已死亡"

    def game_over(self, state: GameState, at: datetime, out: Messages, winner: str | None,
                  lines: list[str | Text]) -> None:
        """The end: the winner (none when the GM ends the game without one, or a draw), every
        seat (`final_line`), the seed and its salt (§0.6), after `lines`."""
        spec = self.spec
        state.winner = winner
        state.phase = Phase(kind="over", number=state.phase.number, started_at=at)
        roles = "\n".join(self.final_line(state, p) for p in state.players)
        body: Text | Lines
        if winner == "draw":
            body = spec.later("victory_draw", roles=roles, **self.winner_values(state, winner), **rng.reveal(state))
        elif winner:
            body = spec.later("victory", winner=self.winner_words(winner), roles=roles,
                              **self.winner_values(state, winner), **rng.reveal(state))
            if extra := self.victory_extra(state, winner):
                body = Lines("\n", [body, extra])
        else:
            body = spec.later("gm_end_game", roles=roles, **rng.reveal(state))
        out.post("main", Lines(self.game_over_joiner, [*lines, body]))

    def final_line(self, state: GameState, p: Player) -> str:
        """A hook: a seat's line in the game-over post (its role, and whether it is out)."""
        return f"{p.label}：{self._hot.names[p.role]}{'' if p.alive else self.dead_mark}"

    def winner_words(self, winner: str) -> str:
        """A hook: the winner as the game-over post names it."""
        return self.spec.factions[winner]

    def winner_values(self, state: GameState, winner: str) -> dict[str, Any]:
        """A hook: the family's fields of its victory text (n_lives: the winners' names)."""
        return {}

    def victory_extra(self, state: GameState, winner: str) -> str:
        """A hook: lines after the victory (game_ten: who shares the prize, 001 §7.1)."""
        return ""

    def gm_pause(self, state: GameState, gm: GmIn) -> Outcome:
        """Stop the clock (e.g. a forum outage); PMs are still taken."""
        if state.data.get("paused_at"):
            raise GmRefused("the game is already paused")
        state.data["paused_at"] = gm.at.isoformat()
        return self._announce(state, "gm_paused", reason=gm.reason)

    def gm_resume(self, state: GameState, gm: GmIn) -> Outcome:
        """Restart the clock; the current phase is extended by the time paused."""
        paused = state.data.pop("paused_at", None)
        if not paused:
            raise GmRefused("the game is not paused")
        paused_hours = self.whole_minute_shift(state, (gm.at - datetime.fromisoformat(paused)) / timedelta(hours=1))
        self.shift_schedule(state, paused_hours)
        checkin.shift(state, paused_hours)
        return self._announce(state, "gm_resumed", reason=gm.reason)

    def _announce(self, state: GameState, key: str, **values: Any) -> Outcome:
        """The notice of a moved schedule in the main thread, naming the phase's new end; a
        vote thread open now is told its new deadline in the thread itself (issue 31 item 3)."""
        ends = clock.show(self.phase_ends_at(state), state.zone)
        body = self.spec.text(key, ends=ends, phase=state.phase.words, **values)
        posts = [PublicPost(thread="main", body=body)]
        if key != "gm_paused" and (notice := self._vote_notice(state, **values)):
            posts.append(notice)
        return Outcome(state=state, posts=posts)

    def _vote_notice(self, state: GameState, **values: Any) -> PublicPost | None:
        """The open vote thread's new deadline, posted in that thread (None: no vote open)."""
        vote = self.open_vote(state)
        if vote is None or "vote_extended" not in self.spec.texts:
            return None
        thread, vote_ends = vote
        return PublicPost(thread=thread, body=self.spec.text(
            "vote_extended", **{**values, "ends": clock.show(vote_ends, state.zone)}))

    def can_draw(self) -> bool:
        """Whether this ruleset's own victory can end in a draw (then the GM may name one)."""
        return False

    def _winner_arg(self, gm: GmIn) -> str | None:
        """The winner `end-game` names (none: the game just stops); one rule for every family:
        a faction, or "draw" where `can_draw`."""
        winner = str(gm.args.get("winner") or "") or None
        winners = [*self.spec.factions, *(["draw"] if self.can_draw() else [])]
        if winner is not None and winner not in winners:
            raise GmRefused(f"winner must be one of {', '.join(winners)}")
        return winner

    @abstractmethod
    def check_victory(self, state: GameState) -> str | None:
        """The winning side's id, or None."""

    def player_view(self, state: GameState, name: str) -> dict[str, Any]:
        """The GM's per-player view for replay JSON and `admin status` (secrets included): the
        head once (alive, side, role and its name, death), then the family's `player_notes`."""
        p = state.player(name)
        view: dict[str, Any] = {
            "alive": p.alive, "faction": p.faction, "role": p.role, "role_name": self.role_words(p),
            "died_in": p.died_in, "death_cause": p.death_cause,
        }
        view.update(self.player_notes(state, p))
        return view

    def role_words(self, p: Player) -> str:
        """A hook: the role's name in the GM's view (n_lives: the side and its card role)."""
        return self.spec.role_name(p.role)

    def player_notes(self, state: GameState, p: Player) -> dict[str, Any]:
        """A hook: what the GM's view adds for the family (HP, cards, marks…)."""
        return {}

    COUNT_NOTE = ""  # what the public count's rows are, for a family without a 「票数」 answer

    def vote_count(self, state: GameState) -> VoteCount | None:
        """The running vote's public count (None: no vote running), read from the ballots
        ledger's `shown` count: the family's 「票数」 answer where it has one (`count_reply`),
        else rows, most votes first, then who reached them first; `state` is not changed."""
        shown = self.ballots.shown(state) if self.ballots is not None else None
        if shown is None or self.ballots is None:
            return None
        if text := self.count_reply(state, shown):
            return VoteCount(text=text, note="天神对「票数」短消息的回复")
        if not shown.ballots:
            return VoteCount(note="还没有人投票")
        voters = {r.name: [b.voter for b in shown.ballots if b.target == r.name] for r in shown.rows}
        rows = count_rows({r.name: r.total for r in shown.rows}, voters, self.ballots.cast_at(state))
        return VoteCount(rows=rows, note=self.COUNT_NOTE + (f"；弃票：{'、'.join(shown.abstained)}" if shown.abstained else ""))

    def count_reply(self, state: GameState, shown: DayTally | None) -> str:
        """A hook: the answer to a 「票数」 PM from the shown count ("" when the family has
        none; a `Refused` when no vote runs)."""
        return ""

    def board_map(self, state: GameState | None, secret: bool) -> BoardMap | None:
        """The family's map for the web pages (None: it has none); `secret` adds the GM's part."""
        return None

    def seat_view(self, state: GameState, name: str) -> dict[str, Any]:
        """What seat `name` alone knows beyond its role (core.observation); nothing by default."""
        return {}

    def public_identity(self, state: GameState, p: Player) -> str:
        """What the players were told of a dead player's side ("" when the rules reveal
        nothing, 000 §5.8)."""
        return self.spec.factions.get(p.faction, p.faction)

    def apply(self, state: GameState, event: Input) -> Outcome:
        """Fold one input.  The state passed in is never modified (issue 37: it shares its
        players with the copy folded into while the input is folded, `core.model.fold_sharing_players`)."""
        return fold_sharing_players(self.apply_in_place, state, event)

    def apply_in_place(self, state: GameState, event: Input) -> Outcome:
        """`apply` without the copy: `state` itself becomes the outcome's state.  Only for a
        caller that drops the old state anyway (sim.montecarlo); everyone else uses `apply`."""
        # the deaths: the players' `alive` writes, not two lists of the living; logged in
        # an enclosing log when the state is marked `logged` (`apply`'s `fold_sharing_players`, a
        # Monte Carlo game's whole log), else in one of this fold's own (`core.model.watch_alive`, inline)
        log = WRITES.get() if state.logged else None
        token = start = None
        if log is None:
            log = []
            token = WRITES.set(log)
        else:  # (the enclosing log may hold writes before this fold's)
            start = len(log)
        players = state.players
        known, state.due = state.due, DUE_UNKNOWN  # the fold may move the next deadline
        # A PM or a post moves it only through the phase or a write that says so
        # (`GameState.changed`: /done's early end, an extension, a substitution): the phase as
        # it was, to keep the deadline known after such a fold (None: not kept)
        # (its fields kept one by one and compared by identity: no tuples a fold; the same
        # object is the same value, a new one only costs the kept deadline)
        phase = state.phase
        kind = type(event)
        keep = ((kind is PmIn or kind is PostIn) and known is not DUE_UNKNOWN and known is not DUE_MOVED
                and not self._after_input)
        if keep:
            kind0, step0, number0, ends0, started0 = (phase.kind, phase.step, phase.number,
                                                      phase.ends_at, phase.started_at)
        try:
            # (a PM or a post straight to its fold: `_fold` would only hand it on)
            outcome = (self._fold_pm(state, event, None) if kind is PmIn else  # type: ignore[arg-type]
                       self._fold_post(state, event, None) if kind is PostIn else  # type: ignore[arg-type]
                       self._fold(state, event, None, known))
            new = outcome.state
            if (keep and new is state and new.due is DUE_UNKNOWN and new.phase is phase
                    and phase.kind is kind0 and phase.step is step0 and phase.number is number0
                    and phase.ends_at is ends0 and phase.started_at is started0):
                new.due = known
            else:
                new.due = DUE_UNKNOWN
            if self._after_input:
                after = Messages()
                self.after_input(outcome.state, event, after)
                outcome.posts += after.posts
                outcome.pms += after.pms
                outcome.notes += after.notes
        except BaseException:
            if token is not None:
                WRITES.reset(token)
                hand_on(token, log)
            raise
        if token is not None:  # (not `finally`: ~500 instructions more a fold)
            WRITES.reset(token)
            if log:
                hand_on(token, log)
        if start:
            log = log[start:]
        if log:  # (the same list of players: the deaths from the log alone)
            if outcome.state.players is players:
                if dead := deaths_logged(log, players):
                    outcome.deaths = dead
            elif (alive := alive_logged(log, players)) is not None and alive != list(map(_ALIVE, outcome.state.players)):
                outcome.deaths = deaths_since(alive, outcome.state)
        return outcome

    def after_input(self, state: GameState, event: Input, out: Messages) -> None:
        """A hook: after every input is folded, what the family does then (hex_survival
        opens a substitution asked for at dusk); nothing by default."""

    def _fold(self, state: GameState, event: Input, first: Messages | None = None, known: Any = DUE_UNKNOWN) -> Outcome:
        """The shared mechanics, then the family's handler of the input's kind; `first`: what
        the shared mechanics say before the ruleset speaks (made only when they speak); `known`:
        the state's next deadline before the fold, when it was asked for."""
        if isinstance(event, PmIn):
            return self._fold_pm(state, event, first)
        if isinstance(event, PostIn):
            return self._fold_post(state, event, first)
        if isinstance(event, DeadlineIn):
            if event.kind == "checkin_end":
                first = Messages() if first is None else first
                self._close_checkin(state, event.at, first)
                return first.outcome(state)
            if event.kind == "substitution_end":
                first = Messages() if first is None else first
                for seat in substitution.expire(state):
                    self.seat_wasted(state, state.player(seat), event.at, first)
                return first.outcome(state)
            # the next deadline known is the schedule's unless a check-in or substitution ends first
            due = known if known and known.kind not in _CORE_ENDS else None
            outcome = self.on_deadline(state, event, due)
            # (the shared `report_lurkers` has nothing to say without a lurking quota: no
            # messages made for it then)
            if self._own_lurkers or activity.QUOTA in self._options:
                first = Messages() if first is None else first
                self.report_lurkers(outcome.state, event.at, first)
            return self._after_fold(outcome, first)
        return self._after_fold(self.on_gm(state, event), first)  # type: ignore[arg-type]

    def _fold_post(self, state: GameState, post: PostIn, first: Messages | None) -> Outcome:
        """`_fold` of a post: `first` made only when the shared mechanics speak (a 交替期, the
        check-in, the activity watch: by default only a dead author's post is noted)."""
        if state.phase.kind != "over" and peek(state.data, "substitution"):  # a 交替期 is open (seldom)
            state.changed()  # (a player back may end it)
            first = Messages() if first is None else first
            substitution.player_returned(self.spec, state, post.author, first)
        # (a check-in open: `take` looks at it again; most posts come after it)
        if peek(state.data, "checkin") and checkin.take(state, post):
            return (Messages() if first is None else first).outcome(state)
        # the shared `watch_activity` notes only a dead author's post (诈尸) unless the variant
        # counts posts: a living author's post needs no call and no messages of its own
        if (self._own_watch or activity.QUOTA in self._options
                or ((p := state.find(post.author)) is not None and not p.alive)):
            first = Messages() if first is None else first
            self.watch_activity(state, post, first)
        # (a family without its own `on_post`: straight to the vote thread's, one call less a post)
        outcome = self.on_post(state, post) if self._own_post else self.on_vote_post(state, post)
        return self._after_fold(outcome, first)

    def _fold_pm(self, state: GameState, pm: PmIn, first: Messages | None) -> Outcome:
        """`_fold` of a PM: `first` made only when the shared mechanics speak (a substitution)."""
        if state.phase.kind != "over":
            sender = pm.sender
            # a substitute answering the call (001 §6.3); every other PM goes on to `on_pm`,
            # which answers strangers and real accounts too (issue 13 item 4: every PM gets a reply)
            # (the sender looked up only when he is on the substitutes' list: `answer_pm` finds him)
            if substitution.involves(state, sender) and state.find(sender) is None:
                state.changed()  # (a seat taken may end the 交替期)
                first = Messages() if first is None else first
                seat = substitution.answer(self.spec, state, pm, first)
                if seat is not None:
                    first.pms += self.seat_taken(state, state.player(seat))
                return first.outcome(state)
            if peek(state.data, "substitution"):  # a 交替期 is open (seldom)
                state.changed()  # (a player back may end it)
                first = Messages() if first is None else first
                substitution.player_returned(self.spec, state, sender, first)
        outcome = self.on_pm(state, pm)
        if first is not None:
            outcome = self._after_fold(outcome, first)
        elif outcome.state.phase.kind == "over":
            outcome.state.data.pop("paused_at", None)  # a game over has no clock to resume
        sender = pm.sender
        for m in outcome.pms:  # (answered, as every ruleset path should: no call)
            if m.to == sender:
                return outcome
        self._answer_anyway(pm, outcome)
        return outcome

    def _after_fold(self, outcome: Outcome, first: Messages | None) -> Outcome:
        """What every fold ends with: a game over's pause dropped, `first`'s messages first
        (None: the shared mechanics said nothing)."""
        if outcome.state.phase.kind == "over":
            outcome.state.data.pop("paused_at", None)  # a game over has no clock to resume
        if first is None:
            return outcome
        if first.posts:
            outcome.posts[:0] = first.posts
        if first.pms:
            outcome.pms[:0] = first.pms
        if first.notes:
            outcome.notes[:0] = first.notes
        return outcome

    def _answer_anyway(self, pm: PmIn, outcome: Outcome) -> None:
        """DECISIONS §0.3: every PM gets an answer.  A ruleset path that forgot to answer gets
        this short one, and the GM a note, rather than silence (issue 13 item 4)."""
        for m in outcome.pms:
            if m.to == pm.sender:
                return
        reason = self.spec.text("pm_unanswered")
        outcome.refusals.append(Refusal(sender=pm.sender, text=pm.text, reason=reason))
        outcome.pms.append(PrivateMessage(to=pm.sender, subject="天神回复", body=reason))
        outcome.notes.append(f"{pm.sender} 的短消息没有得到规则的回复，已发送通用回复：{' '.join(pm.text.split())[:40]}")

    # ---- activity (000 §9.1.6, 001 §4.3/§6.1.6, 003 §10.1.6, 004 补充 二) ------------------

    def watch_activity(self, state: GameState, post: PostIn, out: Messages) -> None:
        """A hook: every post in a game thread, before the family's `on_post` (the shared
        rule: 诈尸 noted, posts counted for the lurking quota)."""
        p = state.find(post.author)
        if p is None or state.phase.kind == "over":
            return
        if not p.alive and activity.is_zombie_post(state, p, post.thread):  # (the living: no call)
            text = " ".join(post.text.split())
            out.notes.append(f"诈尸：{p.name}（已死亡）在 {post.thread} 发帖：{text[:40]}")
        options = self.spec.options
        if activity.QUOTA in options and (rule := activity.quota(options)):  # (most variants: none)
            activity.record(state, post, rule[1])

    def report_lurkers(self, state: GameState, at: datetime, out: Messages) -> None:
        """A hook: after every deadline (the shared rule: the GM is told who posted less than
        the quota)."""
        options = self.spec.options
        rule = activity.quota(options) if activity.QUOTA in options else None
        if not rule:  # (most variants: nothing more to read)
            return
        start = state.data.get("started_at") or None
        if state.phase.kind == "over" or start is None:
            return
        posts, hours = rule
        for name, count in activity.lurkers(state, at, posts, hours, datetime.fromisoformat(start)):
            out.notes.append(f"潜水：{name} 最近{hours:g}小时只发了{count}贴（规则要求至少{posts}贴）")

    # ---- seats ----------------------------------------------------------------------

    def _close_checkin(self, state: GameState, at: datetime, out: Messages) -> None:
        """001 §3.2: 24小时之内未跟贴签到者，视为自动退出游戏。由天神通知替补入替."""
        missing = checkin.close(state)
        if not missing:
            return
        out.post("main", self.spec.text("checkin_missing", names="、".join(missing)))
        if state.data.get("substitutes"):
            substitution.open_period(self.spec, state, missing, at, out, {})
            self.shift_schedule(state, self.spec.timing.substitution_hours)
            return
        for name in missing:
            self.seat_wasted(state, state.player(name), at, out)

    def seat_taken(self, state: GameState, p: Player) -> list[PrivateMessage]:
        """The substitute who took seat `p` gets the seat's role PM (002 更换替补: 接替被换下的游戏者)."""
        return [PrivateMessage(to=p.forum_name, subject=self.spec.text("role_pm_subject", title=self.spec.title),
                               body=self.role_pm(state, p))]

    def role_pm(self, state: GameState, p: Player) -> str | Text:
        """The role PM of seat `p` (sent at the deal and to a substitute): the variant's
        `role_pm` text with the role's name and description and the family's `role_extra`
        (rendered when the PM is read)."""
        extra = self.role_extra(state, p)
        key = _role_pm_key(p, extra)
        kept = self._kept.role_pms
        made = kept.get(key) if key is not None else None
        if made is None:
            spec = self._hot
            made = spec.later("role_pm", forum_name=p.forum_name, name=p.name, alias=self.role_alias(p),
                              title=spec.title, role=spec.role_name(p.role),
                              description=spec.role_description(p.role), extra=extra)
            if key is not None:
                _keep(kept, key, made)
        return made

    def role_extra(self, state: GameState, p: Player) -> str | Text:
        """A hook: what the role PM adds for the seat (partners, a deadline of its own)."""
        return ""

    def seat_wasted(self, state: GameState, p: Player, at: datetime, out: Messages) -> None:
        """DECISIONS §0.5: nobody took the seat: it leaves the game like a death, announced
        as one (`seat_wasted`), and the GM is told."""
        if not p.alive:
            return
        self.remove(state, p, "wasted", at)
        out.notes.append(self.spec.text("note_wasted", name=p.name))
        self.announce_death(state, "seat_wasted", p, at, out)

    def gm_substitute(self, state: GameState, gm: GmIn) -> Outcome:
        """交替期 for the named seats (comma-separated): the phase is extended and every
        substitute is asked by PM (001 §6.3).  `last_seen` (seat -> ISO time, from the forum
        input the shell has stored) orders the seats, longest lurker first."""
        names = [n.strip() for n in str(gm.args.get("players", "")).replace("，", ",").split(",") if n.strip()]
        out = Messages()
        seats = []
        for written in names:
            p = state.find(written)
            if p is None or not p.alive:
                raise GmRefused(f"'{written}' is not a living player")
            seats.append(p.name)
        if not seats:
            raise GmRefused("name the seats to replace (--players)")
        try:
            substitution.open_period(self.spec, state, seats, gm.at, out, dict(gm.args.get("last_seen") or {}))
        except ValueError as exc:
            raise GmRefused(str(exc)) from None
        self.shift_schedule(state, self.spec.timing.substitution_hours)
        outcome = out.outcome(state)
        if notice := self._vote_notice(state, reason=self.spec.text("vote_extended_substitution")):
            outcome.posts.append(notice)
        return outcome

    def gm_cancel_substitution(self, state: GameState, gm: GmIn) -> Outcome:
        """The player is back (or the GM changed his mind) before a substitute answered."""
        out = Messages()
        name = str(gm.args.get("player", ""))
        if not substitution.player_returned(self.spec, state, name, out):
            raise GmRefused(f"{name} is not being replaced")
        return out.outcome(state)


def gm_args(args: dict[str, Any], zone: str | None = None) -> str:
    """A GM command's arguments as `key=value` words, a table (`last_seen`) as `name time`
    pairs — never a Python dict (issue 23 item 13); with `zone`, each time in it with its
    label (issue 32 item 9: not raw UTC)."""
    def when(w: Any) -> str:
        if zone:
            try:
                return clock.show(datetime.fromisoformat(str(w)), zone)
            except ValueError:
                pass
        return str(w)[:16].replace("T", " ")

    def value(v: Any) -> str:
        if isinstance(v, dict):
            return "、".join(f"{k} {when(w)}" for k, w in v.items()) or "—"
        return str(v)

    return " ".join(f"{k}={value(v)}" for k, v in args.items() if v not in (None, ""))


LONGEST_HOURS = 24 * 366  # a longer `hours` is a slip of the keyboard (and past what a datetime holds)


def gm_hours(gm: GmIn, most: float | None = None) -> float:
    """The `hours` a GM command gives (extend, leave): a positive number, at most `most`."""
    try:
        hours = float(gm.args.get("hours"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise GmRefused("give the number of hours (--hours)") from None
    if not hours > 0 or hours == float("inf"):
        raise GmRefused("the number of hours must be positive")
    most = LONGEST_HOURS if most is None else min(most, LONGEST_HOURS)
    if hours > most:
        raise GmRefused(f"at most {most:g} hours (--hours)")
    return hours


def _num(hours: float) -> str:
    return f"{hours:g}"


def _duration(hours: float) -> str:
    return clock.duration(timedelta(hours=hours))


def _whole_minutes(spec: RulesetSpec) -> bool:
    """Whether every phase length of the variant is a whole number of minutes."""
    values = [v for v in spec.timing.model_dump().values() if isinstance(v, int | float)]
    return all(abs(v * 60 - round(v * 60)) < 1e-9 for v in values)
