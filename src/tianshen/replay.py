"""Replaying a scripted game (format: docs/replay.md).

The script's PMs and posts are written on the built-in board at their times, the virtual
clock jumps to each deadline, and the same driver as `run` moderates.  The result lists,
per phase, what was posted publicly, what was sent privately, what was refused, and every
player's state (secrets included).
"""

from __future__ import annotations

import logging
import re
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from tianshen.core.clock import DEFAULT_ZONE, check_zone, localize
from tianshen.core.model import GmIn, Input, Outcome
from tianshen.core.rng import derived_salt
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import DEFAULT_START, VESTS, VirtualClock
from tianshen.specs import load_spec
from tianshen.store import Store
from tianshen.tomlfile import read_toml

MAX_DEADLINES_PER_PHASE = 20
log = logging.getLogger(__name__)  # warnings reach stderr without any logging set up


class ScriptError(ValueError):
    """The script is malformed or does not fit the game; the message says where."""


class Item(BaseModel):
    sender: str = Field(alias="from")
    text: str
    at: float | None = None  # hours into the phase
    # posts: "vote" (default: today's vote thread), "main", or "vote N" (day N's vote thread,
    # also after it closed)
    thread: str | None = None
    name: str | None = None  # posts: a name for the post, for a later `edit`
    edit: str | None = None  # posts: the name of an earlier post of the same author: edit it to `text`

    @field_validator("thread")
    @classmethod
    def _thread(cls, thread: str | None) -> str | None:
        if thread is None or thread in ("vote", "main") or re.fullmatch(r"vote[ :]?\d+", thread.strip()):
            return thread
        raise ValueError(f"thread '{thread}': accepted: vote, main, or vote N (day N's vote thread)")


class GmItem(BaseModel, extra="allow"):
    """A GM override: `command` (as `tianshen admin`), `reason`, its arguments by name."""

    command: str
    reason: str
    at: float | None = None


class PhaseScript(BaseModel):
    phase: str | None = None
    pm: list[Item] = Field(default_factory=list)
    posts: list[Item] = Field(default_factory=list)
    gm: list[GmItem] = Field(default_factory=list)


class Script(BaseModel):
    ruleset: str
    seed: int = 1
    salt: str | None = None  # the seed commitment's salt; default derived from the seed (not secret)
    start: datetime = DEFAULT_START  # without an offset: in `zone`
    zone: str = DEFAULT_ZONE  # the display zone of the texts' times (core.clock; issue 23 item 1)
    players: dict[str, str] = Field(default_factory=dict)
    substitutes: list[str] = Field(default_factory=list)  # the substitutes' forum accounts (替补)
    setup: dict[str, Any] = Field(default_factory=dict)
    phase: list[PhaseScript] = Field(default_factory=list)

    @field_validator("zone")
    @classmethod
    def _zone(cls, zone: str) -> str:
        return check_zone(zone)

    @model_validator(mode="after")
    def _local_start(self) -> Script:
        self.start = localize(self.start, self.zone)
        return self


def load_script(path: str | Path) -> Script:
    try:
        return Script.model_validate(read_toml(path))
    except ValueError as exc:
        message = str(exc)
        raise ScriptError(message if message.startswith(str(path)) else f"{path}: {message}") from exc




class PhaseRecord:
    def __init__(self, label: str) -> None:
        self.label = label
        self.public: list[str] = []
        self.private: list[dict[str, str]] = []
        self.refusals: list[dict[str, str]] = []
        self.gm: list[dict[str, Any]] = []

    def add(self, event: Input | GameSetup, outcome: Outcome) -> None:
        if isinstance(event, GmIn):
            self.gm.append({"command": event.command, "args": event.args, "reason": event.reason})
        self.public += [p.body for p in outcome.posts]
        self.private += [{"to": m.to, "text": m.body} for m in outcome.pms]
        self.refusals += [{"from": r.sender, "text": r.text, "reason": r.reason} for r in outcome.refusals]


def replay(script: Script, db_url: str | None = None) -> dict[str, Any]:
    try:
        spec = load_spec(script.ruleset)
    except ValueError as exc:
        raise ScriptError(str(exc)) from exc
    named = len(script.players)
    seats, fixed = _seats(script, named if named and spec.allows(named) else spec.players, spec.role_by_name)
    clock = VirtualClock(script.start)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(db_url or f"sqlite:///{tmp}/replay.db")
        store.upgrade()
        records: list[PhaseRecord] = []

        def on_step(label: str, event: Input | GameSetup, outcome: Outcome) -> None:
            label = outcome.state.phase.label if label == "setup" else label
            if not records or records[-1].label != label:
                records.append(PhaseRecord(label))
            records[-1].add(event, outcome)

        salt = script.salt or derived_salt(script.seed)  # a script is no real game: repeatable
        try:
            setup = GameSetup(seats=seats, seed=script.seed, salt=salt, start=script.start, fixed_roles=fixed,
                              setup=script.setup, zone=script.zone, substitutes=script.substitutes)
            driver = GameDriver.create(store, forum, "replay", script.ruleset, setup, on_step=on_step)
        except ValueError as exc:  # a bad salt, or the ruleset refuses the setup (e.g. too many of a role)
            store.close()
            raise ScriptError(f"the game cannot start: {exc}") from exc
        driver.late_window_policy = "none"  # a script's clock jumps between its inputs: no window is late
        states: dict[str, dict[str, Any]] = {}
        watch = PostWatch(spec.id, spec.options)
        named_posts: dict[str, tuple[str, int]] = {}  # a post's name -> (author, board post id)
        for entry in script.phase:
            state = driver.state()
            if state.phase.kind == "over":
                raise ScriptError(f"the script goes on after the game ended (at '{entry.phase}')")
            label = state.phase.label
            if entry.phase and entry.phase.strip() != label:
                raise ScriptError(f"script phase '{entry.phase}' but the game is at '{label}'")
            watch.before(state, entry)
            _play_phase(entry, driver, board, store, clock, state.phase.started_at or script.start, named_posts)
            watch.after(driver.state(), label)
            states[label] = _view(driver)
        final = driver.state()
        store.close()
    result: dict[str, Any] = {
        "ruleset": spec.id,
        "seed": script.seed,
        "phases": [
            {"phase": r.label, "public": r.public, "private": r.private, "refusals": r.refusals, "gm": r.gm,
             "state": states.get(r.label, {})}
            for r in records if r.label in states
        ],
        "winner": final.winner,
    }
    if watch.warnings:  # only then: a script without them keeps its JSON
        result["warnings"] = watch.warnings
    return result


class PostWatch:
    """Warns when a script lacks the posts its ruleset requires (issue 17), since the game then
    removes the players quietly: 签到 (check-in: a reply to the player list, `checkin_hours`;
    000 §5.2, 001 §3.2, 003 §7.2) and 004 补充 二 2's one post a day (`lurk_warnings_out`)."""

    def __init__(self, ruleset: str, options: dict[str, Any]) -> None:
        self.ruleset = ruleset
        self.checkin_hours = float(options.get("checkin_hours", 0) or 0)
        self.daily = int(options.get("lurk_warnings_out", 0) or 0) > 0
        self.warnings: list[str] = []
        self.checking: list[str] | None = None  # living players while the check-in window is open
        self.checked: set[str] = set()
        self.posted: set[str] = set()  # posters since the last vote end (004: a day is vote end to vote end)
        self.day_voters: list[str] = []

    def before(self, state: Any, entry: PhaseScript) -> None:
        posters = {it.sender for it in entry.posts}
        if state.data.get("checkin"):
            if self.checking is None:
                self.checking = [p.name for p in state.players if p.alive]
            self.checked |= {it.sender for it in entry.posts if it.thread == "main"}
        self.posted |= posters
        if state.phase.kind == "day":
            self.day_voters = [p.name for p in state.players if p.alive]

    def after(self, state: Any, label: str) -> None:
        if self.checking is not None and not state.data.get("checkin"):
            missing = [n for n in self.checking if n not in self.checked]
            if missing:
                self._warn(f"{label}: no 签到 (check-in) post for {'、'.join(missing)}: {self.ruleset} removes a "
                           f"player who does not reply to the player list within {self.checkin_hours:g} h "
                           f"(add posts with thread = \"main\")")
            self.checking = None
        if self.daily and label.startswith("day") and self.day_voters:
            silent = [n for n in self.day_voters if n not in self.posted]
            if silent:
                self._warn(f"{label}: no post at all by {'、'.join(silent)}: {self.ruleset} needs one post a day "
                           f"(004 补充 二 2: a warning, and out at the second)")
            self.posted, self.day_voters = set(), []

    def _warn(self, text: str) -> None:
        self.warnings.append(text)
        log.warning("replay: %s", text)


def _seats(script: Script, n: int, role_by_name: Any) -> tuple[list[Seat], dict[str, str]]:
    names = list(script.players)
    if len(names) > n:
        raise ScriptError(f"{script.ruleset} has {n} players, the script names {len(names)}")
    names += [v for v in VESTS if v not in names][: n - len(names)]
    fixed = {}
    for name, written in script.players.items():
        if written.strip() in ("", "随机", "random"):
            continue
        role = role_by_name(written.strip())
        if role is None:
            raise ScriptError(f"unknown role '{written}' for player '{name}'")
        fixed[name] = role
    return [Seat(name=x, forum_name=x) for x in names], fixed


def _play_phase(entry: PhaseScript, driver: GameDriver, board: MemoryBoard, store: Store,
                clock: VirtualClock, start: datetime, named: dict[str, tuple[str, int]]) -> None:
    label = driver.state().phase.label
    vote_hour = driver.ruleset.spec.timing.vote_opens_hour
    items = [("pm", i, it.at if it.at is not None else 1 + 0.01 * i) for i, it in enumerate(entry.pm)]
    post_default = vote_hour + 1 if label.startswith("day") else 1
    items += [("post", i, it.at if it.at is not None else post_default + 0.01 * i) for i, it in enumerate(entry.posts)]
    items += [("gm", i, it.at if it.at is not None else post_default + 1 + 0.01 * i) for i, it in enumerate(entry.gm)]
    for kind, i, at in sorted(items, key=lambda x: x[2]):
        t = start + timedelta(hours=at)
        clock.set(t)
        driver.advance(t)
        if kind == "gm":
            order = entry.gm[i]
            driver.gm(order.command, order.reason, t, **(order.model_extra or {}))
        elif kind == "pm":
            item = entry.pm[i]
            board.pm(item.sender, driver.forum.account, item.text)
        else:
            _post(entry.posts[i], driver, board, store, named)
    for _ in range(MAX_DEADLINES_PER_PHASE):
        state = driver.state()
        if state.phase.label != label or state.phase.kind == "over":
            return
        deadline = driver.ruleset.next_deadline(state)
        if deadline is None:
            return
        clock.set(deadline.at)
        driver.advance(deadline.at)
    raise ScriptError(f"phase '{label}' did not end")


def _post(item: Item, driver: GameDriver, board: MemoryBoard, store: Store, named: dict[str, tuple[str, int]]) -> None:
    """A post (in today's vote thread, the main thread or day N's vote thread), or the edit
    of an earlier one, made at the item's time."""
    if item.edit is not None:
        author, post_id = named.get(item.edit, ("", 0))
        if not post_id:
            raise ScriptError(f"edit by {item.sender}: no earlier post named '{item.edit}'")
        if author != item.sender:
            raise ScriptError(f"edit by {item.sender}: post '{item.edit}' is {author}'s")
        board.edit(post_id, item.sender, item.text)
        return
    state = driver.state()
    key = _thread_key(item.thread, state.phase.number)
    thread_id = store.thread_id(driver.game_id, key)
    if thread_id is None:
        raise ScriptError(f"post by {item.sender}: no {key} thread is open yet ({state.phase.label}); "
                          f"give it an `at` after the vote thread opens")
    post_id = board.post(item.sender, thread_id, item.text)
    if item.name:
        if item.name in named:
            raise ScriptError(f"post by {item.sender}: the name '{item.name}' is taken")
        named[item.name] = (item.sender, post_id)


def _thread_key(thread: str | None, day: int) -> str:
    if thread == "main":
        return "main"
    if thread and (n := re.search(r"\d+", thread)):
        return f"vote:{int(n.group())}"
    return f"vote:{day}"


def _view(driver: GameDriver) -> dict[str, Any]:
    state = driver.state()
    return {"players": {p.name: driver.ruleset.player_view(state, p.name) for p in state.players}}
