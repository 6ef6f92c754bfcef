"""Simulated players driven from outside the daemon: they learn the game's state only by
reading its database (never writing it) and act only through their own forum accounts.

`play_live` runs the sims beside a `GameDriver` in one process.  Here the driver is
someone else's process (`tianshen run`, perhaps killed and restarted many times), so the
sims poll the store: once per new phase point they write what players would write, like
`play_live`.  They act only on a settled point: the game has started and nothing is
pending in the outbox, so every thread and PM the point speaks of is on the forum.  A
daemon that died after committing a point but before sending it keeps them waiting
until it is back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.exc import OperationalError, ProgrammingError

from tianshen.core.model import GameState
from tianshen.forum.base import PlayerSide
from tianshen.sim import Sims, sims_for
from tianshen.store import Store


class ExternalSims:
    """The players of one game, watching the database of a daemon they do not share a process with."""

    def __init__(self, store: Store, game: str, players: PlayerSide, gm_account: str, *, done: bool = False) -> None:
        self.store, self.game, self.players, self.gm_account = store, game, players, gm_account
        self.done = done  # the players also PM /done once they acted (sim.Finishing)
        self.game_id: int | None = None
        self.sims: Sims | None = None
        self.acted = ""  # the last phase point the sims acted at
        self.points: list[str] = []  # every phase point acted at, in order

    def settled_state(self) -> GameState | None:
        """The game's state when the daemon has sent everything it committed; else None."""
        try:
            if self.game_id is None:
                self.game_id = self.store.game_id(self.game)
                if self.game_id is None:
                    return None  # not signed up yet
            record = self.store.load_game(self.game_id)
            if record.status == "new" or self.store.pending_outbox(self.game_id):
                return None
        except (OperationalError, ProgrammingError):  # locked (SQLite), or no tables yet: read again later
            return None
        return GameState.model_validate_json(record.state_json)

    def poll(self, now: datetime) -> GameState | None:
        """Act once if the game stands at a new settled phase point; the settled state or None."""
        state = self.settled_state()
        if state is None or state.phase.kind == "over":
            return state
        point = f"{state.phase.label}:{state.phase.step}"
        if point == self.acted:
            return state
        if self.sims is None:
            self.sims = sims_for(state.ruleset, self.players, self.gm_account, state.seed, done=self.done)
        self.acted = point
        self.points.append(point)
        self.sims.act(state, now, self._thread)
        return state

    def _thread(self, key: str) -> str | None:
        assert self.game_id is not None
        return self.store.thread_id(self.game_id, key)


def play_external(sims: ExternalSims, now: Callable[[], datetime], **kwargs: Any) -> GameState:
    """`play_all` for one game."""
    return play_all([sims], now, **kwargs)[0]


def play_all(games: list[ExternalSims], now: Callable[[], datetime], *, poll_seconds: float = 0.5,
             max_seconds: float = 900, between: Callable[[], None] | None = None,
             sleep: Callable[[float], None] = time.sleep,
             monotonic: Callable[[], float] = time.monotonic) -> list[GameState]:
    """Poll every game until all are over and everything is sent; `between` runs on every
    poll (a test restarts a killed daemon there).  TimeoutError after `max_seconds`."""
    give_up = monotonic() + max_seconds
    final: dict[int, GameState] = {}
    while True:
        if between is not None:
            between()
        for i, sims in enumerate(games):
            if i not in final and (state := sims.poll(now())) is not None and state.phase.kind == "over":
                final[i] = state
        if len(final) == len(games):
            return [final[i] for i in range(len(games))]
        if monotonic() > give_up:
            waiting = ", ".join(f"{s.game} at {s.acted or 'the start'}" for i, s in enumerate(games) if i not in final)
            raise TimeoutError(f"after {max_seconds} s still playing: {waiting}")
        sleep(poll_seconds)
