"""Phases as step tables (issue 35): a family declares its steps, core runs the clock.

A `Step` says when it applies (the phase's kind, its `step`, optionally one phase number),
the deadline kind at its end, where that end is kept (`phase.ends_at` or a dotted path in
`data`), the method `(state, at, out)` that runs there, which `data` times an extension
moves with the phase's end, whether everyone's /done ends it early (DECISIONS §0.5: the
family notes `data["early_at"]`), from when its reminder may be sent, whether the vote
thread is open in it, and its words (the step's and its deadline's, which the pages show).  The one
`schedule`, `on_deadline`, `shift_schedule`, reminder and early end of core.ruleset read it;
pause/resume, leave and downtime extensions all go through `shift_schedule`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from tianshen.core.clock import parse
from tianshen.core.model import GameState, peek

ANY = "*"  # a step that applies whatever `phase.step` says
PHASE_END = "phase.ends_at"
PHASE_START = "phase.started_at"
REMINDER = "reminder"  # a deadline kind that only sends reminders


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a phase, as its family declares it."""

    phase: str  # the phase's kind: "night", "day"
    step: str  # its `phase.step` (ANY: whatever it is)
    kind: str  # the deadline kind at its end
    ends: str  # the method (state, at, out) that runs at its end
    deadline: str = PHASE_END  # where its end is kept: PHASE_END or a dotted path in `data`
    shift: tuple[str, ...] = ()  # the `data` times an extension moves besides the phase's end
    early_done: bool = False  # everyone's /done ends it early (`data["early_at"]`)
    reminder_from: str = ""  # a reminder may come after this time ("" none): PHASE_START or a `data` path
    words: str = ""  # the step's name on the pages ("" for ANY: the phase has no step then)
    deadline_words: str = ""  # its deadline's name on the pages (GM page, admin status)
    votes: bool = False  # the phase's vote thread is open in it, until its end
    number: int | None = None  # only in this phase number (n_lives: night 1's reorder window)
    next: tuple[str, ...] = ()  # where its end may lead (`where`: "day:vote", "night"…; "over" always)


def current(steps: Iterable[Step], state: GameState) -> Step | None:
    """The first step of the table that applies to the state's phase."""
    ph = state.phase
    for s in steps:
        if s.phase == ph.kind and s.step in (ph.step, ANY) and s.number in (None, ph.number):
            return s
    return None


def where(state: GameState) -> str:
    """The phase and step as a step table's `next` names them: "day:vote", "night"."""
    return f"{state.phase.kind}:{state.phase.step}" if state.phase.step else state.phase.kind


def time_at(state: GameState, path: str) -> datetime | None:
    """A time the step names: the phase's end or start, or an ISO time in `data`."""
    if path == PHASE_END:
        return state.phase.ends_at
    if path == PHASE_START:
        return state.phase.started_at
    names = _PATHS.get(path)
    if names is None:
        names = _PATHS[path] = tuple(path.split("."))
    holder: object = state.data
    if len(names) == 2:  # (every step table's paths: "day.vote_ends_at")
        holder = peek(holder, names[0])  # read only: not copied
        holder = peek(holder, names[1]) if isinstance(holder, dict) else None
    else:
        for name in names:
            holder = peek(holder, name) if isinstance(holder, dict) else None
    return parse(holder) if isinstance(holder, str) else None


_PATHS: dict[str, tuple[str, ...]] = {}  # a step's dotted path, split once (the tables are few)


def end_of(step: Step, state: GameState) -> datetime | None:
    """When the step ends: its deadline, or earlier once everyone is done (early_done)."""
    at = time_at(state, step.deadline)
    early = peek(state.data, "early_at") if step.early_done else None  # (a string: no copy to skip)
    if at is not None and early:
        return min(at, parse(early))
    return at


def reminder_at(step: Step, state: GameState, end: datetime) -> datetime | None:
    """Issue 5: players who have not acted are reminded `reminder_hours` before the end,
    once per phase and step, only when that moment is after the step's start."""
    if not step.reminder_from:
        return None
    options = peek(state.data, "options")
    hours = float(options.get("reminder_hours", 0)) if options else 0.0
    if hours <= 0 or state.data.get("reminded") == reminded_mark(state):
        return None
    at = end - timedelta(hours=hours)
    start = time_at(state, step.reminder_from)
    return at if start is not None and at > start else None


def due(steps: tuple[Step, ...], state: GameState) -> tuple[datetime, str] | None:
    """The schedule in one call (issue 37: asked after every input): (when, kind) of the
    first step that applies — its end (`end_of`), or its reminder's moment first
    (`reminder_at`, kind REMINDER); None when no step applies or its end is not set."""
    ph = state.phase
    kind, sub, number = ph.kind, ph.step, ph.number
    for s in steps:
        if s.phase == kind and (s.step == sub or s.step == ANY) and (s.number is None or s.number == number):
            break
    else:
        return None
    data = state.data
    at = ph.ends_at if s.deadline == PHASE_END else time_at(state, s.deadline)
    if at is None:
        return None
    if s.early_done and (early := peek(data, "early_at")):
        at = min(at, parse(early))
    if s.reminder_from:
        options = peek(data, "options")  # read only: not `apply`'s copy (every schedule asks)
        hours = options.get("reminder_hours") if options else None  # (0 or none in most variants)
        if hours and (before := _before(hours)) is not None:
            remind = at - before
            start = ph.started_at if s.reminder_from == PHASE_START else time_at(state, s.reminder_from)
            if start is not None and remind > start:
                # (`reminded_mark` without the label's property call)
                mark = f"{kind} {number}:{sub}" if kind in ("night", "day") else f"{kind}:{sub}"
                if data.get("reminded") != mark:
                    return remind, REMINDER
    return at, s.kind


def _before(hours: float | str) -> timedelta | None:
    """How long before a step's end its reminder comes (None: no reminder, `reminder_hours`
    0 or less): each of a variant's few values worked out once."""
    try:
        return _BEFORE[hours]
    except KeyError:
        made = _BEFORE[hours] = timedelta(hours=float(hours)) if float(hours) > 0 else None
        return made


_BEFORE: dict[float | str, timedelta | None] = {}


def reminded_mark(state: GameState) -> str:
    return f"{state.phase.label}:{state.phase.step}"


def shift(step: Step | None, state: GameState, hours: float) -> None:
    """Every remaining deadline of the step moves by `hours`: the phase's end and the step's
    `shift` times; an early end (/done) is dropped."""
    state.changed()  # (the deadline a PM's or a post's fold began with is not kept)
    if state.phase.ends_at:
        state.phase.ends_at += timedelta(hours=hours)
    state.data.pop("early_at", None)
    for path in step.shift if step else ():
        *parents, key = path.split(".")
        holder = state.data
        for name in parents:
            holder = holder[name]
        if key in holder:
            holder[key] = (datetime.fromisoformat(holder[key]) + timedelta(hours=hours)).isoformat()


def ends(steps: tuple[Step, ...]) -> dict[str, str]:
    """Deadline kind → the method that runs at it (REMINDER when a step reminds)."""
    table = {s.kind: s.ends for s in steps}
    if any(s.reminder_from for s in steps):
        table[REMINDER] = "remind"
    return table
