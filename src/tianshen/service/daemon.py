"""`tianshen run`: the daemon.  APScheduler fires each deadline at its moment and polls the
forum in between; every tick is one `GameDriver.advance`, so a tick that dies half-way can
simply run again.
"""

from __future__ import annotations

import logging
import secrets
import signal
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.date import DateTrigger

from tianshen.config import Config
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.core.spec import load_spec
from tianshen.forum.base import Forum
from tianshen.forum.factory import make_forum
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for
from tianshen.store import Store

log = logging.getLogger(__name__)


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


class ForumClock:
    """A real forum's clock: the server's `Date`, measured as an offset from the local clock
    so APScheduler (which runs on the local clock) fires at the server's deadline."""

    def __init__(self, forum: Forum, local_now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.local_now = local_now
        self.offset = forum.now() - local_now()

    def now(self) -> datetime:
        return self.local_now() + self.offset

    def real_at(self, game_time: datetime) -> datetime:
        return game_time - self.offset


class Daemon:
    def __init__(self, config: Config) -> None:
        if config.game is None:
            raise ValueError("the config has no [game] section: name, ruleset, start, players")
        self.config = config
        self.game = config.game
        self.store = Store(config.database.url)
        self.store.upgrade()
        g = config.game
        self.clock: GameClock | ForumClock
        if config.forum.kind == "memory":
            self.clock = GameClock(g.start, config.run.time_scale)
            self.forum, self.board = make_forum(config.forum, self.clock.now)
            self.forum.login()
        else:
            self.forum, self.board = make_forum(config.forum, lambda: datetime.now(UTC))
            self.forum.login()
            self.clock = ForumClock(self.forum)
        self.driver = self._game()
        self.driver.outage_extension_after = timedelta(minutes=config.run.outage_minutes)
        seed = GameSetup.model_validate(self.store.load_game(self.driver.game_id).config["setup"]).seed
        family = self.driver.ruleset.spec.ruleset
        self.sims = sims_for(family, self.board, self.forum.account, seed) if (
            self.board and config.run.simulate) else None
        self._acted: str | None = None
        self.scheduler = BlockingScheduler(timezone=UTC)
        self._lock = threading.Lock()  # one step at a time per game (deadline and poll jobs)

    def _game(self) -> GameDriver:
        g = self.game
        game_id = self.store.game_id(g.name)
        if game_id is not None:
            log.info("resuming game %s", g.name)
            return GameDriver(self.store, self.forum, game_id)
        spec = load_spec(g.ruleset)
        seats = [Seat(name=p.name, forum_name=p.forum_name or p.name) for p in g.players]
        if not seats and self.config.run.simulate:
            from tianshen.sim.rehearsal import default_seats

            seats = default_seats(spec.players)
        fixed = {}
        for name, written in g.roles.items():
            role = spec.role_by_name(written)
            if role is None:
                raise ValueError(f"unknown role '{written}' for {name}")
            fixed[name] = role
        seed = g.seed if g.seed is not None else secrets.randbits(48)
        setup = GameSetup(seats=seats, seed=seed, start=g.start, fixed_roles=fixed, substitutes=g.substitutes,
                          gm_contact=g.gm_contact)
        return GameDriver(self.store, self.forum, GameDriver.register(self.store, g.name, spec.id, setup))

    def tick(self) -> None:
        with self._lock:
            self._tick()

    def _tick(self) -> None:
        try:
            if not self.driver.is_started():
                if self.clock.now() < self.game.start:
                    return  # signed up; dealt at the start time
                self.driver.start()
            if self.sims:
                self._simulate()
            self.driver.advance(self.clock.now())
        except Exception:  # the daemon keeps going; the next tick retries
            log.exception("tick failed")
        self._schedule_deadline()

    def _simulate(self) -> None:
        assert self.sims is not None
        state = self.driver.state()
        point = f"{state.phase.label}:{state.phase.step}"
        if point != self._acted and state.phase.kind != "over":
            self._acted = point
            self.sims.act(state, self.clock.now(), lambda key: self.store.thread_id(self.driver.game_id, key))

    def _schedule_deadline(self) -> None:
        if not self.driver.is_started():
            self.scheduler.add_job(self.tick, DateTrigger(run_date=self.clock.real_at(self.game.start)),
                                   id="deadline", replace_existing=True, misfire_grace_time=None)
            return
        state = self.driver.state()
        if state.phase.kind == "over":
            if self.config.run.stop_when_over and self.scheduler.running:
                self.scheduler.shutdown(wait=False)
            return
        deadline = self.driver.ruleset.next_deadline(state)
        if deadline is not None:
            self.scheduler.add_job(self.tick, DateTrigger(run_date=self.clock.real_at(deadline.at)),
                                   id="deadline", replace_existing=True, misfire_grace_time=None)

    def run(self) -> None:
        """Until the game is over (or SIGTERM/SIGINT): the first tick handles at once, in
        order, every deadline missed while the daemon was down."""
        self.scheduler.add_job(self.tick, "interval", seconds=self.config.run.poll_seconds, id="poll",
                               next_run_time=datetime.now(UTC), max_instances=1, coalesce=True)
        self._schedule_deadline()
        previous = {}
        if threading.current_thread() is threading.main_thread():  # signals reach the main thread only
            previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        log.info("game=%s daemon started", self.game.name)
        try:
            self.scheduler.start()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        phase = self.driver.state().phase.label if self.driver.is_started() else "not started"
        log.info("game=%s stopped phase=%s", self.game.name, phase)

    def _stop(self, signum: int, _frame: object) -> None:
        """A clean stop: the step under way finishes (every step is one transaction)."""
        log.info("game=%s signal %s: stopping", self.game.name, signal.Signals(signum).name)
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
