"""`tianshen run`: one service for a whole board.

Every game in the database that belongs to the configured board is served: signed up with
`tianshen admin new-game` or listed in the config (`[game]` or `[[game]]`), dealt at its
start time, resumed after a restart.  One forum session per board: each tick reads the GM
account's PMs once and routes each PM by its sender to that sender's game; each game reads
its own vote thread; then one write queue, shared by all games and spaced by the board's
flood control, sends what the ticks put in the outboxes (the replies to players' PMs last;
a burst of replies to one player as one PM).

Several processes may serve one board on one PostgreSQL database: each game is owned by one
process at a time through a lease (renewed on every tick; a dead process's games are taken
over when its leases lapse), every step commits only on the newest state, and every outbox
row is claimed before it is sent.  APScheduler fires a tick at each game's deadline and
polls in between; a tick that dies half-way can simply run again.
"""

from __future__ import annotations

import json
import logging
import re
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from threading import TIMEOUT_MAX
from typing import Protocol

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.base import STATE_STOPPED
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.date import DateTrigger

from tianshen.config import Config, GameConfig
from tianshen.core.clock import show
from tianshen.core.model import GameState
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.base import Forum, ForumError, ForumPm, LoginRefused, PlayerSide, PmGap
from tianshen.forum.factory import make_forum
from tianshen.forum.render import render_parts
from tianshen.gmwords import span
from tianshen.service import crash, heap, identity
from tianshen.service.downtime import OutageNote
from tianshen.service.driver import GameDriver, default_owner, signed_up, takes_pm
from tianshen.service.sender import OutboxSender, in_queue_order, is_reply
from tianshen.specs import load_spec
from tianshen.store import GameRecord, InboundRecord, OutboxItem, OutboxRecord, Store, unusable

log = logging.getLogger(__name__)
CLOCK_JUMP = timedelta(seconds=10)  # host clock against the monotonic one between two ticks: a jump

# what the GM is told when the database cannot be used (issue 32 item 5), by its kind (`unusable`)
STORE_DOWN = {"write": ("the database cannot be written (disk full? a read-only file?)",
                        "数据库写不进去（磁盘已满？）：游戏暂停，恢复后继续"),
              "connection": ("the database cannot be reached", "数据库连不上：游戏暂停，恢复后继续")}


class GameClock:
    """Game time.  On a real forum it is the forum's clock; on the memory board it may run
    faster than real time (`time_scale`) so a whole game can be watched in minutes."""

    def __init__(self, game_start: datetime, scale: float, real_now: Callable[[], float] = time.time) -> None:
        self.scale, self.real_now = scale, real_now
        self.real_start = real_now()
        self.game_start = game_start

    def now(self) -> datetime:
        return self.game_start + timedelta(hours=(self.real_now() - self.real_start) * self.scale / 3600)

    def real_at(self, game_time: datetime) -> datetime:
        hours = (game_time - self.game_start).total_seconds() / 3600
        return datetime.fromtimestamp(self.real_start + hours * 3600 / self.scale, UTC)


def clock_mark(clock: GameClock | ForumClock) -> str:
    """A rehearsal clock as the web pages read it (issue 25 item 3): the game time at a real
    time, and how fast it runs; "" for a forum's clock (real time)."""
    if not isinstance(clock, GameClock):
        return ""
    real = datetime.fromtimestamp(clock.real_start, UTC)
    return json.dumps({"game": clock.game_start.isoformat(), "real": real.isoformat(), "scale": clock.scale})


class ForumClock:
    """A real forum's clock (issue 32 item 1).  Deadlines are judged by the board's clock, not
    the host's: the board's time is read again on every poll (`measure`; the adapters take it
    from every page's `Date`), and runs on between readings by the monotonic clock, which a
    step of the host's clock (NTP after a VM resume, a manual `date`) does not move.  The
    offset to the host's clock is only for APScheduler, which fires jobs on the host's clock
    (`real_at`); a jump of it is logged once."""

    JUMP = timedelta(seconds=30)  # a change of the offset larger than this is a jump of a clock

    def __init__(self, forum: Forum, local_now: Callable[[], datetime] = lambda: datetime.now(UTC),
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.forum, self.local_now, self.monotonic = forum, local_now, monotonic
        self._board = forum.now()
        self._at = monotonic()
        self.offset = self._board - local_now()

    def measure(self) -> None:
        """The board's time read again (once a poll); a board that cannot be read keeps the
        last reading, run on by the monotonic clock."""
        try:
            board = self.forum.now()
        except ForumError:
            return
        at, offset, expected = self.monotonic(), board - self.local_now(), self.now()
        if abs(board - expected) > self.JUMP:
            log.warning("the board's clock moved %s against the time passed here (now %s): deadlines follow the "
                        "board's clock", _signed(board - expected), board.isoformat(timespec="seconds"))
        elif abs(offset - self.offset) > self.JUMP:
            log.warning("the host's clock moved %s against the board's (now %s by the board's clock): deadlines "
                        "follow the board's clock", _signed(self.offset - offset), board.isoformat(timespec="seconds"))
        self._board, self._at, self.offset = board, at, offset

    def now(self) -> datetime:
        return self._board + timedelta(seconds=self.monotonic() - self._at)

    def real_at(self, game_time: datetime) -> datetime:
        return game_time - (self.now() - self.local_now())


def _signed(delta: timedelta) -> str:
    seconds = round(delta.total_seconds())
    return f"{'+' if seconds >= 0 else '-'}{timedelta(seconds=abs(seconds))}"


class StepFollowingScheduler(BlockingScheduler):
    """APScheduler fires its jobs on the host's clock: after a step back of 10 minutes the
    polls would stop for 10 minutes, after a step forward every job would fire at once.  At
    each wake-up (at least every `longest` seconds) a step of the host's clock against the
    monotonic clock is measured and every job moved by it (issue 32 item 1)."""

    STEP = 2.0  # seconds; the host's clock slewed by NTP drifts far less between two wake-ups

    def __init__(self, longest: float, drift: Callable[[], float] | None = None,
                 on_step: Callable[[], None] = lambda: None, **options: object) -> None:
        super().__init__(**options)
        self.longest, self.on_step = longest, on_step
        self.drift = drift or (lambda: time.time() - time.monotonic())
        self._drift = self.drift()

    def _main_loop(self) -> None:  # BlockingScheduler's, with a bounded wait and the step check
        wait: float | None = TIMEOUT_MAX
        while self.state != STATE_STOPPED:
            self._event.wait(min(wait if wait is not None else TIMEOUT_MAX, self.longest))
            self._event.clear()
            self.follow_step()
            wait = self._process_jobs()

    def follow_step(self) -> float:
        """Move every job by the step of the host's clock since the last look; the step (s)."""
        drift = self.drift()
        step, self._drift = drift - self._drift, drift
        if abs(step) <= self.STEP:
            return 0.0
        for job in self.get_jobs():
            if getattr(job, "next_run_time", None) is not None:  # (a job of a scheduler not started has none)
                job.modify(next_run_time=job.next_run_time + timedelta(seconds=step))
        self.on_step()
        return step


class Acting(Protocol):
    def act(self, state: GameState, at: datetime, thread: Callable[[str], str | None]) -> None: ...


class SimulatedPlayers(Protocol):
    """The players who act on the memory board when `[run] simulate` is set.  The caller
    gives them (`tianshen run` passes tianshen.sim's): the service never imports the test
    players (issue 24)."""

    def seats(self, n: int) -> list[Seat]: ...

    def for_game(self, family: str, board: PlayerSide, gm_account: str, seed: int) -> Acting: ...


@dataclass
class Served:
    """A game this process owns now."""

    driver: GameDriver
    sims: Acting | None = None
    acted: str = ""
    pm_mark: int | None = None
    failures: set[str] = field(default_factory=set)  # errors the GM was told of already
    overrides: int | None = None  # GM overrides logged (those before this process are not)
    caught_up: str = ""  # the last deadline logged as folded late (issue 32 item 12)


class Daemon:
    def __init__(self, config: Config, forum: Forum | None = None, clock: GameClock | ForumClock | None = None,
                 players: SimulatedPlayers | None = None) -> None:
        if config.run.simulate and players is None:
            raise ValueError("[run] simulate = true needs simulated players: start the daemon with `tianshen run`")
        self.config = config
        self.players = players
        self._stop_asked = False  # (`_stop`: a signal asked the scheduler to stop)
        self.board_key = config.board_key()
        self.owner = config.run.owner or default_owner()
        self.store = Store(config.database.url)
        self.store.upgrade()
        self.board = None
        if forum is not None:
            self.forum = forum
            self.clock = clock or ForumClock(forum)
        elif config.forum.kind == "memory":
            zone = config.forum.display_zone()
            starts = [g.start_in(zone) for g in config.games()] or [datetime.now(UTC)]
            self.clock = GameClock(min(starts), config.run.time_scale)
            self.forum, self.board = make_forum(config.forum, self.clock.now)
        else:
            self.forum, self.board = make_forum(config.forum, lambda: datetime.now(UTC))
        self.forum.login()
        if clock is None and forum is None and config.forum.kind != "memory":
            self.clock = ForumClock(self.forum)
        # issue 23 item 1: the zone the games' texts show their times in (a Discuz board's own
        # offset, read at login, when the config sets none)
        self.zone = config.forum.display_zone(_board_zone(self.forum))
        self.players_side = self._players_side()
        self.sender = OutboxSender(self.store, self.forum, self.owner,
                                   claim_seconds=config.run.lease_seconds)
        self._resume_pacing()
        for game in config.games():
            self._sign_up(game)
        self.board_row = self.store.board_game(self.board_key)
        if not self.store.mark(self.board_row, "since"):  # PMs older than the service are not refused
            self.store.set_mark(self.board_row, "since", self.clock.now().isoformat())
        self.store.set_mark(self.board_row, "game_clock", clock_mark(self.clock))  # the web pages' countdown
        self.board_owned = False
        self.login_refused: LoginRefused | None = None
        self._leases: dict[int, float] = {}  # the games held: until when, on this process's monotonic clock
        self.host_now: Callable[[], datetime] = lambda: datetime.now(UTC)  # the host's clock (tests: virtual)
        self.monotonic: Callable[[], float] = time.monotonic
        self._clock_seen: tuple[datetime, float] | None = None  # (host time, monotonic) at the last tick
        self._replies: dict[str, list[datetime]] = {}  # "replied:game:player" -> replies sent in the last hour
        self.served: dict[int, Served] = {}
        self._heads: dict[int, GameRecord] = {}  # the games as read at the start of the tick (no states)
        self._scheduled: dict[str, datetime] = {}  # deadline job id -> the moment it was added for
        self._seats: dict[int, set[str]] = {}  # game id -> the names its players write from (config: fixed)
        self._pm_topics: str | None = None  # the adapter's PM read positions as last kept (None: not resumed yet)
        self._pm_settled = False  # every PM the last read handed out was folded, refused or is below the mark
        self.scheduler = StepFollowingScheduler(longest=max(config.run.poll_seconds, 0.05), timezone=UTC,
                                                on_step=self._scheduled.clear)  # the jobs moved: set them again
        self._lock = threading.Lock()  # one tick at a time (deadline and poll jobs)
        # the database down: since (board time), kind, what it said; noted in a file for a restart
        self._note = OutageNote(config.forum._file, self.board_key, config.database.url)
        self._store_down: tuple[datetime, str, str] | None = self._noted_outage()
        self._returned: tuple[datetime, datetime] | None = None  # the outage over: since, back (to give back)

    def _noted_outage(self) -> tuple[datetime, str, str] | None:
        """An outage a process before this one saw and did not give back (a restart)."""
        noted = self._note.read()
        if noted is not None:
            since, kind, said = noted
            log.warning("the database could not be used since %s (noted before a restart): that time is given back "
                        "to the games once it is written again", show(since, self.zone))
            return since, kind if kind in STORE_DOWN else "connection", said
        return None

    def _players_side(self) -> object | None:
        """`[run] simulate`: who the simulated players act through.  On the memory board, the
        board itself; on Spirit, each player's own login, with the passwords of the JSON file
        `[run] simulate_accounts` ({account: password}, as `tianshen forum spirit-local`
        writes it): a trial game on a forum of throwaway accounts."""
        run = self.config.run
        if not run.simulate:
            return None
        if self.board is not None:
            return self.board
        if self.config.forum.kind == "memory":  # the caller's own forum (tests): no board to act on
            return None
        if self.config.forum.kind != "spirit" or not run.simulate_accounts:  # load_config refuses it
            raise ValueError(f"{self.config.forum._file}: [run] simulate needs the memory board, or spirit and "
                             f"[run] simulate_accounts")
        from tianshen.forum.spirit import SpiritPlayers

        try:
            passwords = json.loads(Path(run.simulate_accounts).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{self.config.forum._file}: [run] simulate_accounts: cannot read "
                             f"{run.simulate_accounts}: {exc}") from None
        if not isinstance(passwords, dict):
            raise ValueError(f"{self.config.forum._file}: [run] simulate_accounts: {run.simulate_accounts} is "
                             f"not a JSON object {{account: password}}")
        log.info("simulated players act through their own accounts (%d passwords from %s)", len(passwords),
                 run.simulate_accounts)
        passwords.pop(self.config.forum.username, None)  # the sims never act as the GM
        return SpiritPlayers(self.config.forum.base_url, passwords, self.forum.account)

    # ---- the games of the board -----------------------------------------------------

    def _sign_up(self, g: GameConfig) -> None:
        """A config game not yet in the database is signed up (as `admin new-game` does)."""
        game_id = self.store.game_id(g.name)
        if game_id is not None:
            record = self.store.load_game(game_id)
            if not record.board:
                self.store.set_board(game_id, self.board_key)
            return
        from tianshen.service.accounts import game_problems

        if problems := game_problems(f"{self.config.forum._file}: game '{g.name}'", g, self.config.forum.username):
            raise ValueError("\n".join(problems))  # issue 23 item 3: shared accounts, the GM's own
        spec = load_spec(g.ruleset)
        seats = [Seat(name=p.name, forum_name=p.forum_name or p.name) for p in g.players]
        if not seats and self.players is not None and self.config.run.simulate:
            seats = self.players.seats(spec.players)
        fixed = {}
        for name, written in g.roles.items():
            role = spec.role_by_name(written)
            if role is None:
                raise ValueError(f"unknown role '{written}' for {name}")
            fixed[name] = role
        seed = g.seed if g.seed is not None else _random_seed()
        start = g.start_in(self.zone)
        setup = GameSetup(seats=seats, seed=seed, start=start, fixed_roles=fixed, substitutes=g.substitutes,
                          gm_contact=g.gm_contact, zone=self.zone,
                          gm_account=getattr(self.forum, "account", "") or self.config.forum.username)
        GameDriver.register(self.store, g.name, g.ruleset, setup, board=self.board_key,
                            signed_up_at=self.clock.now())
        if self.board is None and start < self.clock.now() - timedelta(seconds=self.config.run.poll_seconds):
            log.warning("game=%s start time %s is in the past: it is dealt now, and its clock starts then",
                        g.name, show(start, self.zone))
        log.info("game=%s signed up (%s, %d players), starts %s", g.name, spec.id, len(seats), show(start, self.zone))

    def games(self, include_over: bool = False, records: list[GameRecord] | None = None) -> list[GameRecord]:
        """The board's games that are not over (a game signed up without a board is adopted),
        without their states (`Store.heads`); `records`: as read already this tick."""
        records = self._records() if records is None else records
        if include_over:
            return records
        over = [r.id for r in records if r.status == "over"]
        unsent = {row.game_id for row in self.store.pending_for_games(over)}  # its last posts still to send
        return [r for r in records if r.status != "over" or r.id in unsent]

    def _records(self) -> list[GameRecord]:
        """Every game of the board, over or not, in one light query."""
        records = self.store.heads(("", self.board_key))
        for r in records:
            if not r.board:
                self.store.set_board(r.id, self.board_key)
        return records

    def _own(self, records: list[GameRecord], now: datetime) -> None:
        """Take or renew the lease of every game; let go of those another process holds."""
        self._check_host_clock()
        self._renew([r.id for r in records] + [self.board_row])
        for r in records:
            if not self._lease(r.id):
                if self.served.pop(r.id, None) is not None:
                    log.warning("game=%s is now served by another process", r.name)
                continue
            if r.id not in self.served:
                self.store.release_claims(r.id, self.owner)  # a dead owner's claims lapse with its lease
                self.sender.forget(r.id)  # it may have opened threads meanwhile
                self.served[r.id] = self._serve(r)
                log.info("game=%s served by %s (%s)", r.name, self.owner, r.status)
        listed = {r.id for r in records}
        for game_id in [g for g in self.served if g not in listed]:
            self.served.pop(game_id)  # over, or no longer the board's
        self.board_owned = self._lease(self.board_row)

    # The leases are written and compared on the database's clock (`Store.lease_now`); this
    # process counts how long it holds one on its monotonic clock (`_leases`: until when, in
    # `monotonic()` seconds, from before the write: never longer than the database counts).

    def _check_host_clock(self) -> None:
        """A jump of the host clock (its time against the monotonic clock since the last
        tick) is said in one line, and every lease is taken again from the database before
        anything is written (SQLite's leases are on the host's clock: written again at once)."""
        wall, mono = self.host_now(), self.monotonic()
        if self._clock_seen is not None:
            jump = (wall - self._clock_seen[0]) - timedelta(seconds=mono - self._clock_seen[1])
            if abs(jump) > CLOCK_JUMP:
                log.warning("the host clock jumped %s: the games' leases are checked again with the database",
                            _signed(jump))
                self._leases.clear()
        self._clock_seen = (wall, mono)

    def _renew(self, game_ids: list[int]) -> None:
        """The leases held here that are half run, renewed in one statement (not one a game);
        one that is not renewed is taken again (or let go) by `_lease`."""
        period, mono = self.config.run.lease_seconds, self.monotonic()
        due = [g for g in game_ids if (until := self._leases.get(g)) is not None and mono >= until - period / 2]
        if due:
            for game_id in self.store.renew_leases(due, self.owner, period):
                self._leases[game_id] = mono + period

    def _lease(self, game_id: int) -> bool:
        """Hold the game's lease; renewed when half of it has run (one write, not one a tick)."""
        period, mono = self.config.run.lease_seconds, self.monotonic()
        until = self._leases.get(game_id)
        if until is not None and mono < until - period / 2:
            return True
        if self.store.acquire_lease(game_id, self.owner, None, period) or self._take_from_dead(game_id):
            self._leases[game_id] = mono + period
            return True
        self._leases.pop(game_id, None)
        return False

    def _take_from_dead(self, game_id: int) -> bool:
        """A lease of a process on this host that is gone (a restart): taken over at once."""
        held = self.store.lease(game_id)
        if held is None or not _dead_here(held[0]):
            return False
        log.info("game_id=%s lease of %s (no longer running) taken over", game_id, held[0])
        return self.store.acquire_lease(game_id, self.owner, None, self.config.run.lease_seconds, dead_owner=held[0])

    def _serve(self, r: GameRecord) -> Served:
        driver = GameDriver(self.store, self.forum, r.id, owner=self.owner, sender=self.sender)
        driver.reads_pms = False  # the board reads them for every game
        driver.outage_extension_after = timedelta(minutes=self.config.run.outage_minutes)
        driver.late_window_policy = self.config.run.late_window
        driver.late_window_grace = timedelta(minutes=self.config.run.late_window_minutes)
        driver.deadline_grace = timedelta(seconds=self.config.run.deadline_grace_seconds)
        sims = None
        if self.players_side is not None and self.players is not None:
            seed = GameSetup.model_validate(r.config["setup"]).seed
            sims = self.players.for_game(driver.ruleset.spec.ruleset, self.players_side, self.forum.account, seed)
        return Served(driver, sims)

    # ---- one tick ---------------------------------------------------------------------

    def tick(self) -> None:
        with self._lock:
            if self.login_refused is not None:  # stopping: nothing more is read or written
                if self.scheduler.running:
                    self.scheduler.shutdown(wait=False)
                return
            try:
                self._tick()
            except LoginRefused as exc:  # trying again would count towards the board's lockout
                self._stop_refused(exc)
                return
            except Exception as exc:  # the daemon keeps going; the next tick retries
                if (trouble := unusable(exc)) is not None:
                    self._store_failed(*trouble)
                else:
                    log.exception("tick failed")
            try:
                self._schedule_deadlines()
            except Exception as exc:  # issue 32 item 6: set again by the next tick
                self._schedule_failed(exc)
            finally:
                for served in self.served.values():  # between ticks a state is read again
                    served.driver.trust_cache = False

    def _tick(self) -> None:
        if isinstance(self.clock, ForumClock):
            self.clock.measure()  # the board's time read again: deadlines follow it (issue 32 item 1)
        now = self.clock.now()
        if self._store_down is not None:
            self._store_back(now)  # before anything folds: the time lost is given back first
        records = self._records()
        self._own(self.games(records=records), now)
        if self._returned is not None:
            self._give_back(*self._returned)
        self._heads = {r.id: r for r in records}
        for game_id, served in self.served.items():  # one query for every game: whose step moved
            served.driver.note_head(self._heads[game_id].step_seq, self._heads[game_id].status)
        for game_id, served in self.served.items():
            self._guard(served, lambda s=served, g=game_id: self._start_if_due(s, now, self._heads[g]))
        routed, reachable, mark = self._read_pms(now, records)
        advanced = set()
        for game_id, served in self.served.items():
            if served.driver.is_started():
                if self._guard(served, lambda s=served, g=game_id: self._advance(s, now, routed.get(g, []), reachable,
                                                                                 mark)):
                    advanced.add(game_id)
        if self._pm_settled and routed.keys() <= advanced:
            self._keep_pm_topics(routed)
        crash.point("before-send")
        self.flush()
        for served in self.served.values():  # issue 22 item 7: a window that opened late is extended
            if served.driver.is_started():
                self._guard(served, lambda s=served: s.driver.check_window(self.clock.now()))
        for served in self.served.values():  # rehearsal: the simulated players read what was sent
            if served.sims is not None and served.driver.is_started():
                self._guard(served, lambda s=served: self._simulate(s, now))

    def _stop_refused(self, exc: LoginRefused) -> None:
        """Issue 22 item 6: the forum refused the GM's login (at a read or a write).  Every
        started game served here holds its clock from now (the `forum_down_since` mark: on
        return, 003 §12.4 extends the phase by the time lost), and the daemon stops; `run()`
        raises, and `tianshen run` exits 3 so systemd does not restart it into a lockout."""
        try:
            now = self.clock.now()
        except ForumError:
            now = datetime.now(UTC)
        for served in self.served.values():
            if served.driver.is_started() and not served.driver.mark("forum_down_since"):
                served.driver.set_mark("forum_down_since", now.isoformat())
        log.error("the forum refused the login of the GM account %s: the games' clocks are held and tianshen "
                  "stops (exit 3); fix the password in the config, then start it again: %s", self.forum.account, exc)
        self.login_refused = exc
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    # ---- the database down (issue 32 items 5 and 6) ----------------------------------------

    def _store_failed(self, kind: str, said: str) -> None:
        """The database cannot be used: said once (a log line, and a PM to each GM straight
        through the forum, as the outbox is in the database); the games are held meanwhile
        (no step can be committed), and `_store_back` gives the time back."""
        if self._store_down is not None:
            log.debug("the database is still down: %s", said)
            return
        since = self.clock.now()
        self._store_down = (since, kind, said)
        self._note.write(since, kind, said)
        english, chinese = STORE_DOWN[kind]
        log.error("%s: the games are held and go on once it can be used again (%s)", english, said)
        body = render_parts(f"{chinese}（{said}）", self.forum.markup, self.forum.max_post_chars)[0]
        for contact in sorted({s.driver.gm_contact for s in self.served.values() if s.driver.gm_contact}):
            try:
                self.forum.send_pm(contact, "天神通报", body, f"store-down:{self.board_key}:{since.isoformat()}:{contact}")
            except ForumError as exc:
                log.warning("the GM %s could not be told by PM: %s", contact, exc)

    def _store_back(self, now: datetime) -> None:
        """A write to try the database; when it goes through, the time lost is given back
        once the games are owned again (`_give_back`)."""
        since, kind, _ = self._store_down  # type: ignore[misc]
        self.store.set_mark(self.board_row, "store_ok", now.isoformat())  # raises while still down
        self._store_down = None
        self._returned = (since, now)
        log.warning("the database can be used again after %s: the games go on", _signed(now - since)[1:])

    def _give_back(self, since: datetime, back: datetime) -> None:
        """Each started game served here gets the time it was held given back (as a forum
        outage: `GameDriver.give_back`; a game given it already, by a process before a
        restart, is not given it twice) and its GM is told; then the note goes."""
        told: set[str] = set()
        for served in self.served.values():
            driver = served.driver
            if not driver.is_started() or driver.mark("store_down_given") == since.isoformat():
                continue
            hours = driver.give_back(since, back)
            if driver.gm_contact and driver.gm_contact not in told:
                told.add(driver.gm_contact)
                minutes = max(1, round((back - since).total_seconds() / 60))
                extended = f"，{driver.name}本时段顺延{hours:g}小时" if hours else ""
                self._tell_gm(driver, f"数据库恢复，游戏继续（暂停了约{minutes}分钟{extended}）。")
        self._returned = None
        self._note.remove()

    def _schedule_failed(self, exc: Exception) -> None:
        """Issue 32 item 6: setting the deadlines' jobs failed (the database restarted during
        the tick): one line, not a traceback; the next tick sets them again."""
        trouble = unusable(exc)
        if trouble is None:
            log.exception("setting the deadlines' jobs failed; they are set again at the next tick")
        elif self._store_down is None:
            log.warning("setting the deadlines' jobs failed, the database: %s; they are set again at the next tick",
                        trouble[1])

    def _guard(self, served: Served, work: Callable[[], object]) -> bool:
        """One game's failure never stops the others; the GM is told once per error.  The
        database down stops the tick (every game is held alike).  False when it failed."""
        try:
            work()
            return True
        except LoginRefused:
            raise
        except Exception as exc:
            if unusable(exc) is not None:
                raise
            log.exception("game=%s failed", served.driver.name)
            text = f"{type(exc).__name__}: {exc}"
            if text not in served.failures:
                served.failures.add(text)
                self._tell_gm(served.driver, f"天神处理{served.driver.name}时出错，将自动重试：{text}")
            return False

    def _tell_gm(self, driver: GameDriver, text: str) -> None:
        if driver.gm_contact:
            self.store.add_outbox(driver.game_id, [OutboxItem(kind="pm", target=driver.gm_contact,
                                                              subject="天神通报", body=text)])

    def _start_if_due(self, served: Served, now: datetime, record: GameRecord) -> None:
        driver = served.driver
        if record.status != "new" or driver.is_started():
            return
        setup = GameSetup.model_validate(record.config["setup"])
        start = setup.start
        if now >= start:
            # Issue 23 item 2: the clock starts at the deal.  A deal later than the grace
            # ([run] late_window_minutes: a daemon down at the start, a start signed up in the
            # past) starts night 1 now; dealt at the old start, every deadline since then
            # would be folded at once (players removed for not voting, the game over).
            # on a rehearsal clock (time_scale) a tick a few real seconds late is no late start
            scale = float(getattr(self.clock, "scale", 1.0))
            late = now - start > max(driver.late_window_grace, timedelta(seconds=5 * scale))
            if late:
                log.warning("game=%s dealt %s after its start %s: its clock starts now", driver.name,
                            span(now - start), show(start, setup.zone))
            driver.start(at=now if late else None, send=False)
            board_mark = self.store.mark(self.board_row, "pm")
            if board_mark:  # the board has read the PMs before the game: they are not the game's
                driver.set_mark("pm", board_mark)

    def _simulate(self, served: Served, now: datetime) -> None:
        driver = served.driver
        state = driver.state()
        point = f"{state.phase.label}:{state.phase.step}"
        if point != served.acted and state.phase.kind != "over":
            served.acted = point
            served.sims.act(state, now, lambda key: driver.sender.thread_id(driver.game_id, key))

    def _advance(self, served: Served, now: datetime, pms: list[ForumPm], reachable: bool, mark: int | None) -> None:
        driver = served.driver
        _log_overrides(served)
        if reachable:
            self._log_catch_up(served, now)
        driver.advance(now, pms=pms, send=False, reachable=reachable)
        if reachable and mark is not None and served.pm_mark != mark:
            driver.set_mark("pm", str(mark))
            served.pm_mark = mark

    def _log_catch_up(self, served: Served, now: datetime) -> None:
        """Issue 32 item 12: a deadline more than two polls past (the daemon was stopped, or
        could not keep up) is folded now; said once, with what it costs the phase it opens:
        the window check gives the time back when it is over `late_window_minutes`."""
        driver = served.driver
        due = driver.ruleset.next_deadline(driver.state())
        if due is None:
            return
        scale = float(getattr(self.clock, "scale", 1.0))
        late = now - due.at - driver.deadline_grace
        key = f"{due.kind}@{due.at.isoformat()}"
        if late <= timedelta(seconds=max(2 * self.config.run.poll_seconds, 30) * scale) or served.caught_up == key:
            return
        served.caught_up = key
        grace = driver.late_window_grace
        if driver.late_window_policy == "extend" and late > grace:
            cost = "the phase it opens is extended by the time its opening post is late"
        else:
            cost = (f"the phase it opens is shorter by that (given back only when over [run] late_window_minutes, "
                    f"{grace})")
        log.warning("game=%s catching up: %s was due at %s, %s ago (the daemon was stopped or behind); folded now, "
                    "%s", driver.name, due.kind, show(due.at, self.zone), _signed(late)[1:], cost)

    # ---- the GM account's PMs, read once for the board ----------------------------------

    def _read_pms(self, now: datetime, records: list[GameRecord]) -> tuple[dict[int, list[ForumPm]], bool, int | None]:
        """New PMs, routed by sender to the games served here; the new PM mark."""
        self._pm_settled = False
        ids = [g for g, s in self.served.items() if s.driver.is_started()]
        if not ids and not self.board_owned:
            return {}, True, None
        marks = [self.served[g].driver.mark("pm") for g in ids]  # held in memory by each game's driver
        if self.board_owned:
            marks.append(self.store.mark(self.board_row, "pm"))
        after = min((int(m) for m in marks if m), default=None) if all(marks) else None
        self._resume_pm_topics()
        try:
            pms = self.forum.fetch_pms(after)
        except LoginRefused:
            raise
        except ForumError as exc:
            log.warning("reading the GM's PMs failed, will retry: %s", exc)
            return {}, False, None
        dealt_with = True  # every PM handed out is stored, refused or not a game's, when this stays True
        self._tell_pm_gaps(records)
        settled = now - timedelta(minutes=10)
        mark = max((pm.id for pm in pms if pm.sent_at <= settled), default=after)
        routes = self._routes(records) if pms else {}
        since = datetime.fromisoformat(self.store.mark(self.board_row, "since") or now.isoformat()) - timedelta(
            minutes=2)
        routed: dict[int, list[ForumPm]] = {}
        for pm in pms:
            played = routes.get(pm.sender, [])
            waiting = [g for g in played if g.status != "over" and not self._dealt(g)]
            games = [g for g in played if g.status != "over" and self._dealt(g) and self._takes(g, pm)]
            chosen = (_chosen(pm.text, games) or self._answered_in(pm, games)) if len(games) > 1 else games
            if len(chosen) == 1:
                if chosen[0].id in self.served:
                    routed.setdefault(chosen[0].id, []).append(_without_game_word(pm, chosen[0]))
                else:
                    dealt_with = False  # another process's game
            elif not games and waiting:
                dealt_with = False
                continue  # his game is not dealt yet: read again after the deal (the mark trails)
            elif self.board_owned and pm.sent_at >= since:
                ended = [g for g in played if g.status == "over"]
                if not games and any(self.store.has_inbound(g.id, "pm", str(pm.id)) for g in ended):
                    continue  # read again (the mark trails): its game answered it before it ended
                self._refuse_isolated(pm, games, ended)
        if self.board_owned and mark is not None and str(mark) != marks[-1]:
            self.store.set_mark(self.board_row, "pm", str(mark))
        self._pm_settled = dealt_with
        return routed, True, mark

    def _resume_pm_topics(self) -> None:
        """Before the first read: the adapter is told how far the last process read the GM's
        private topics (Spirit: `pm_positions`), so a restart reads only those with news."""
        if self._pm_topics is not None or not self.board_owned:
            return
        self._pm_topics = self.store.mark(self.board_row, "pm_topics") or ""
        resume = getattr(self.forum, "resume_pms", None)
        if self._pm_topics and callable(resume):
            resume(self._pm_topics)

    def _keep_pm_topics(self, routed: dict[int, list[ForumPm]]) -> None:
        """The adapter's read positions kept with the board once every PM it handed out was
        dealt with (stored by its game or refused; not a game's; below the mark): what the
        next process is not handed again.  A PM a game left for later (the deadline's grace,
        the board unreadable) keeps the positions where they were."""
        positions = getattr(self.forum, "pm_positions", None)
        if not self.board_owned or self._pm_topics is None or not callable(positions):
            return
        value = positions()
        if value == self._pm_topics:
            return
        for game_id, pms in routed.items():
            stored, driver = self.store.inbound_keys(game_id), self.served[game_id].driver
            if any(("pm", str(pm.id)) not in stored and driver.is_game_pm(pm) for pm in pms):
                return
        try:
            self.store.set_mark(self.board_row, "pm_topics", value)
        except Exception as exc:
            if unusable(exc) is not None:
                raise  # the database down: the tick stops as for any other write
            # only a saving: a restart then reads every topic, as without it; the games go on
            log.warning("the private topics' read positions could not be kept: %s", str(exc).splitlines()[0])
            return
        self._pm_topics = value

    def _tell_pm_gaps(self, records: list[GameRecord]) -> None:
        """Issue 31 item 1: a PM conversation whose count the board never made agree with what
        its pages show (the adapter hands each out once): the GM of each of the player's
        games is told, once.  What was told is kept in the board's marks (how many messages
        were missing), so a restart, whose adapter hands the same gap out again, is silent."""
        take = getattr(self.forum, "pm_gaps", None)
        gaps: list[PmGap] = take() if callable(take) else []
        for gap in gaps:
            mark, missing = f"pm_gap:{gap.player}", str(gap.count - gap.read)
            if self.store.mark(self.board_row, mark) == missing:
                log.info("the PM conversation with %s is still %s short; the GM was told before", gap.player, missing)
                continue
            games = [g for g in self._routes(records).get(gap.player, []) if g.status != "over"]
            log.warning("the board counts %d messages in its PM conversation with %s, only %d could be read since %s; "
                        "told the GM of: %s", gap.count, gap.player, gap.read, show(gap.since, self.zone),
                        ", ".join(g.name for g in games) or "no game")
            text = (f"论坛上{gap.player}与天神的短消息会话，论坛说有{gap.count}条，天神只读到{gap.read}条，"
                    f"从{show(gap.since, self.zone)}起一直对不上：他寄来的短消息可能有一条没有被读到。"
                    "请到论坛上看一下这段会话，应计入的请用 tianshen admin enter-action 补录。")
            for g in games:
                if g.id in self.served:
                    self._tell_gm(self.served[g.id].driver, text)
            self.store.set_mark(self.board_row, mark, missing)

    def _dealt(self, g: GameRecord) -> bool:
        """Issue 32 item 4: only a dealt game takes PMs (one dealt this tick is read as "new")."""
        served = self.served.get(g.id)
        return g.status != "new" or (served is not None and served.driver.is_started())

    def _takes(self, g: GameRecord, pm: ForumPm) -> bool:
        """Issue 31 item 6: a PM older than the game (its sign-up, or its start less the
        grace) is not its input; a stranger's PM to the board instead."""
        served = self.served.get(g.id)
        if served is not None:
            return served.driver.is_game_pm(pm)
        return takes_pm(datetime.fromisoformat(g.config["setup"]["start"]), signed_up(g.config), pm)

    def _answered_in(self, pm: ForumPm, games: list[GameRecord]) -> list[GameRecord]:
        """The game that took this PM already (read again: the mark trails), when another of
        the sender's games was dealt since."""
        return [g for g in games if self.store.has_inbound(g.id, "pm", str(pm.id))][:1]

    def _routes(self, records: list[GameRecord]) -> dict[str, list[GameRecord]]:
        """Sender -> the games he plays in (vest, forum name, substitute)."""
        routes: dict[str, list[GameRecord]] = {}
        for r in records:
            if r.id not in self._seats:
                self._seats[r.id] = identity.seat_names(r.config)
            for name in self._seats[r.id]:
                routes.setdefault(name, []).append(r)
        return routes

    def _refuse_isolated(self, pm: ForumPm, games: list[GameRecord], ended: list[GameRecord]) -> None:
        """Issue 22 item 3: a PM that cannot be stored as it is stops no tick: it is stored
        (and refused once) without its text."""
        try:
            self._refuse(pm, games, ended)
        except Exception as exc:
            if unusable(exc) is not None:
                raise  # the database down: the PM is read again when it is back
            log.exception("board: PM %s from %s could not be stored; refused without its text", pm.id, pm.sender)
            self._refuse(replace(pm, text=""), games, ended)

    def _refuse(self, pm: ForumPm, games: list[GameRecord], ended: list[GameRecord]) -> None:
        """A PM from no game's player, or from one in several games who did not say which."""
        if not games and ended:
            body = f"你所在的游戏（{'、'.join(g.name for g in ended)}）已经结束，这条短消息没有被接受。"
        elif games:
            listed = "、".join(f"{g.name}（{g.id}号）" for g in games)
            body = (f"你同时在几局游戏中：{listed}。请在短消息第一行先写游戏名或编号，"
                    f"例如“{games[0].name} {_first_line(pm.text)}”。这条短消息没有被接受。")
        else:
            body = "你不在本版正在进行的任何一局游戏中，这条短消息没有被接受。如要报名或替补，请联系主持人。"
        inbound = InboundRecord(source="pm", forum_id=str(pm.id), sender=pm.sender, sent_at=pm.sent_at,
                                text=pm.text)
        self.store.commit_step(self.board_row, inbound=inbound, event_kind="board_pm", event_payload="{}",
                               phase_label="board", state_json="{}", status="board", deadline_at=None,
                               winner=None, players=None, outbox=[OutboxItem(kind="pm", target=pm.sender,
                                                                           subject="天神回复：未能接受", body=body)])

    # ---- the board's write queue --------------------------------------------------------

    def flush(self) -> int:
        """Send the served games' pending messages in queue order (`in_queue_order`: the
        posts before the first reply to a player's PM), a burst of replies to one player as
        one PM; spaced by the adapter, stopped after one poll's time (issue 32 item 2)."""
        ids = [g for g in self.served] + ([self.board_row] if self.board_owned else [])
        now = self.clock.now()
        rows = in_queue_order(self._fold_bursts(self._reply_cap(self.store.pending_for_games(ids), now)))
        self.sender.clock_hint = now
        try:
            return self.sender.send(rows, budget_s=self.config.run.poll_seconds)
        finally:  # a write that failed half-way: what went out before it still counts
            self._note_replies([r for r in rows if is_reply(r)], now)

    def _fold_bursts(self, rows: list[OutboxRecord]) -> list[OutboxRecord]:
        """Issue 32 item 2: BURST or more replies of one game to one player waiting at once
        are sent as one PM that answers each of them (`burst_body`)."""
        for (game_id, target), burst in _waiting_replies(rows).items():
            if len(burst) >= BURST:
                rows = self._merge(rows, game_id, target, burst)
        return rows

    def _merge(self, rows: list[OutboxRecord], game_id: int, target: str,
               burst: list[OutboxRecord]) -> list[OutboxRecord]:
        """The rows swapped for one PM that answers each of them, in one transaction, so a
        crash neither loses nor doubles an answer."""
        subjects = {r.subject for r in burst}
        subject = subjects.pop() if len(subjects) == 1 else "天神回复"
        item = OutboxItem(kind="pm", target=target, subject=subject, body=burst_body([r.body for r in burst]))
        merged = self.store.merge_outbox(game_id, [r.id for r in burst], item,
                                         key=f"{game_id}:burst:{burst[0].id}-{burst[-1].id}")
        if merged is None:
            return rows  # one of them was taken meanwhile: each is sent as it is
        log.info("game_id=%s %d replies to %s sent as one PM", game_id, len(burst), target)
        gone = {r.id for r in burst}
        return [r for r in rows if r.id not in gone] + [merged]

    # ---- replies to one player: at most [run] replies_per_hour -------------------------

    def _reply_cap(self, rows: list[OutboxRecord], now: datetime) -> list[OutboxRecord]:
        """A player who floods the GM's inbox over many polls gets at most `replies_per_hour`
        replies in any hour: the replies past that wait (his PMs are stored and folded all
        the same), and the last free one answers every one waiting (`burst_body`)."""
        cap = self.config.run.replies_per_hour
        waiting = _waiting_replies(rows, bursts_too=True)
        for (game_id, target), group in waiting.items():
            free = cap - len(self._replied(game_id, target, now))
            singles = [r for r in group if ":burst:" not in r.key]
            folded = len(group) - len(singles) + (1 if len(singles) >= BURST else len(singles))
            if folded <= free:
                continue  # within the cap (`_fold_bursts` makes BURST or more one PM)
            if free > 0 and len(singles) > 1:
                rows = self._merge(rows, game_id, target, singles)
            waiting_now = [r for r in rows if is_reply(r) and (r.game_id, r.target) == (game_id, target)
                           and r.parts_done == 0 and r.attempt_part is None]
            held = {r.id for r in waiting_now[max(free, 0):]}
            if held:
                log.info("game_id=%s %d replies to %s wait: %d replies in the last hour ([run] replies_per_hour)",
                         game_id, len(held), target, cap - free)
            rows = [r for r in rows if r.id not in held]
        return rows

    def _replied(self, game_id: int, target: str, now: datetime) -> list[datetime]:
        """When this game's replies to `target` went out in the last hour (board time); kept
        in the board's marks, so a restart counts them too."""
        key = f"replied:{game_id}:{target}"
        if key not in self._replies:
            stored = self.store.mark(self.board_row, key)
            self._replies[key] = [datetime.fromisoformat(t) for t in json.loads(stored)] if stored else []
        self._replies[key] = [t for t in self._replies[key] if now - t < timedelta(hours=1)]
        return self._replies[key]

    def _note_replies(self, replies: list[OutboxRecord], now: datetime) -> None:
        """The replies that went out this flush, counted against their player's hour."""
        sent: dict[tuple[int, str], int] = {}
        for game_id in {r.game_id for r in replies}:
            ids = [r.id for r in replies if r.game_id == game_id]
            for row in self.store.outbox_rows(game_id, ids):
                if row.status == "sent":
                    sent[(game_id, row.target)] = sent.get((game_id, row.target), 0) + 1
        marks = {}
        for (game_id, target), n in sent.items():
            times = self._replied(game_id, target, now) + [now] * n
            self._replies[f"replied:{game_id}:{target}"] = times
            marks[f"replied:{game_id}:{target}"] = json.dumps([t.isoformat() for t in times])
        if marks:
            self.store.set_marks(self.board_row, marks)

    def _resume_pacing(self) -> None:
        """Flood pacing survives a restart: the adapter learns when the last write went out."""
        ids = [r.id for r in self.store.heads((self.board_key,))]
        last = self.store.last_sent_at(ids)
        if last is not None:
            self.forum.note_last_write(last)

    # ---- scheduling -------------------------------------------------------------------

    def _schedule_deadlines(self) -> None:
        """One job per served game at its next deadline (or start); each fires a tick."""
        wanted: dict[str, datetime] = {}
        for game_id, served in self.served.items():
            at = self._next_moment(served)
            if at is not None:
                wanted[f"deadline:{game_id}"] = at
        jobs = {job.id: job for job in self.scheduler.get_jobs() if job.id.startswith("deadline:")}
        for job_id, job in jobs.items():
            if job_id not in wanted:
                job.remove()
        for job_id, at in wanted.items():
            run_date = self.clock.real_at(at)
            if job_id in jobs and self._scheduled.get(job_id) == run_date:
                continue  # the job is there for this moment already (not a new job a game a tick)
            self.scheduler.add_job(self.tick, DateTrigger(run_date=run_date), id=job_id,
                                   replace_existing=True, misfire_grace_time=None)
            self._scheduled[job_id] = run_date
        if self.config.run.stop_when_over and self.scheduler.running and self.all_over():
            self.scheduler.shutdown(wait=False)

    def _next_moment(self, served: Served) -> datetime | None:
        driver = served.driver
        if not driver.is_started():
            record = self._heads.get(driver.game_id) or self.store.load_game(driver.game_id)
            return GameSetup.model_validate(record.config["setup"]).start
        deadline = driver.next_deadline(driver.state())
        return deadline.at + driver.deadline_grace if deadline else None

    def driver(self, name: str) -> GameDriver:
        """A driver for one of the board's games (for tests and the CLI)."""
        game_id = self.store.game_id(name)
        if game_id is None:
            raise KeyError(name)
        served = self.served.get(game_id)
        return served.driver if served else GameDriver(self.store, self.forum, game_id, owner=self.owner)

    def all_over(self) -> bool:
        """Every game of the board has ended and nothing waits to be sent."""
        records = self.store.heads((self.board_key,))
        return bool(records) and all(r.status == "over" for r in records) and not self.store.pending_for_games(
            [r.id for r in records] + [self.board_row])

    def run(self) -> None:
        """Until every game is over (or SIGTERM/SIGINT): the first tick handles at once, in
        order, every deadline missed while the daemon was down."""
        self.scheduler.add_job(self.tick, "interval", seconds=self.config.run.poll_seconds, id="poll",
                               next_run_time=datetime.now(UTC), max_instances=1, coalesce=True)
        previous = {}
        if threading.current_thread() is threading.main_thread():  # signals reach the main thread only
            previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        log.info("board=%s owner=%s daemon started, %d games", self.board_key, self.owner, len(self.games()))
        heap.freeze_startup()  # (once a process) what start-up made is not walked by each collection
        try:
            self.scheduler.start()
        except JobLookupError:
            # a signal's shutdown inside the scheduler's pass emptied its job store under it
            # (the pass then updates a job no longer there): the stop asked for, not a fault
            if not self._stop_asked:
                raise
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            for game_id, served in list(self.served.items()):
                phase = self.store.load_game(game_id).phase_label
                log.info("game=%s stopped phase=%s", served.driver.name, phase)
                self.store.release_lease(game_id, self.owner)
            self.store.release_lease(self.board_row, self.owner)
        log.info("board=%s daemon stopped", self.board_key)
        if self.login_refused is not None:
            raise self.login_refused

    def _stop(self, signum: int, _frame: object) -> None:
        """A clean stop: the step under way finishes (every step is one transaction)."""
        log.info("signal %s: stopping", signal.Signals(signum).name)
        self._stop_asked = True
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)


def _dead_here(owner: str) -> bool:
    """Is `owner` (host:pid) a process of this host that no longer runs?"""
    import os
    import socket

    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _log_overrides(served: Served) -> None:
    """A line for each GM override `tianshen admin` committed since the last tick."""
    entries = served.driver.state().data.get("gm_log", [])
    if served.overrides is not None:
        for e in entries[served.overrides:]:
            args = " ".join(f"{k}={v}" for k, v in (e.get("args") or {}).items())
            log.info("game=%s GM override %s%s: %s", served.driver.name, e["command"], f" {args}" if args else "",
                     e["reason"])
    served.overrides = len(entries)


BURST = 3  # replies to one player waiting at once that are sent as one PM


def _waiting_replies(rows: list[OutboxRecord], bursts_too: bool = False) -> dict[tuple[int, str], list[OutboxRecord]]:
    """The replies not yet tried, by (game, player); a burst reply (not folded again) only
    with `bursts_too`."""
    waiting: dict[tuple[int, str], list[OutboxRecord]] = {}
    for row in rows:
        if is_reply(row) and row.parts_done == 0 and row.attempt_part is None \
                and (bursts_too or ":burst:" not in row.key):
            waiting.setdefault((row.game_id, row.target), []).append(row)
    return waiting


def burst_body(bodies: list[str]) -> str:
    """One PM answering several: 「收到你的N条短消息：」, then each distinct answer once with
    the numbers of the PMs it answers (in the order they came).  A first line naming the
    game that every answer has (service.identity) is said once, on top."""
    head = ""
    first = bodies[0].split("\n\n", 1)[0]
    if first.startswith("【") and all(b.startswith(first + "\n\n") for b in bodies):
        head = first + "\n\n"
        bodies = [b[len(head):] for b in bodies]
    numbers: dict[str, list[int]] = {}
    for i, body in enumerate(bodies, 1):
        numbers.setdefault(body, []).append(i)
    answers = [f"第{_ranges(ns)}条：{body}" for body, ns in numbers.items()]
    return head + f"收到你的{len(bodies)}条短消息：\n\n" + "\n\n".join(answers)


def _ranges(numbers: list[int]) -> str:
    """1, 2, 3, 5 -> 1～3、5"""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return "、".join(str(r[0]) if len(r) == 1 else f"{r[0]}～{r[-1]}" for r in runs)


def _chosen(text: str, games: list[GameRecord]) -> list[GameRecord]:
    """The game a player in several games names first in his PM (its name or number)."""
    word = _first_word(text)
    return [g for g in games if word in (g.name, str(g.id), f"{g.id}号", f"#{g.id}")]


def _first_word(text: str) -> str:
    return (re.split(r"[\s，,：:]+", text.strip(), maxsplit=1) or [""])[0]


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:30] if text.strip() else ""


def _without_game_word(pm: ForumPm, game: GameRecord) -> ForumPm:
    """The PM as the game reads it: without the game's name in front, when it has one."""
    word = _first_word(pm.text)
    if word not in (game.name, str(game.id), f"{game.id}号", f"#{game.id}"):
        return pm
    from dataclasses import replace

    rest = pm.text.strip()[len(word):].lstrip(" \t，,：:")
    return replace(pm, text=rest)


def _board_zone(forum: Forum) -> str | None:
    """The board's own zone when its adapter read it (Discuz: the footer's offset)."""
    zone = getattr(forum, "board_zone", None)
    return zone() if callable(zone) else None


def _random_seed() -> int:
    import secrets

    return secrets.randbits(48)
