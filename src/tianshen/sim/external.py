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

from sqlalchemy.exc import OperationalError

from tianshen.core.model import GameState
from tianshen.forum.base import PlayerSide
from tianshen.sim import Sims, sims_for
from tianshen.store import Store


class ExternalSims:
    """The players of one game, watching the database of a daemon they do not share a process with."""

    def __init__(self, store: Store, game: str, players: PlayerSide, gm_account: str) -> None:
        self.store, self.game, self.players, self.gm_account = store, game, players, gm_account
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
        except OperationalError:  # SQLite: the daemon holds the write lock; read again later
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
            self.sims = sims_for(state.ruleset, self.players, self.gm_account, state.seed)
        self.acted = point
        self.points.append(point)
        self.sims.act(state, now, self._thread)
        return state

    def _thread(self, key: str) -> str | None:
        assert self.game_id is not None
        return self.store.thread_id(self.game_id, key)


def play_external(sims: ExternalSims, now: Callable[[], datetime], *, poll_seconds: float = 0.5,
                  max_seconds: float = 900, between: Callable[[], None] | None = None,
                  sleep: Callable[[float], None] = time.sleep,
                  monotonic: Callable[[], float] = time.monotonic) -> GameState:
    """Poll until the game is over and everything is sent; `between` runs on every poll (a
    test restarts a killed daemon there).  TimeoutError after `max_seconds`."""
    give_up = monotonic() + max_seconds
    while True:
        if between is not None:
            between()
        state = sims.poll(now())
        if state is not None and state.phase.kind == "over":
            return state
        if monotonic() > give_up:
            where = state.phase.label if state is not None else "an unsettled point"
            raise TimeoutError(f"game {sims.game} was still at {where} after {max_seconds} s")
        sleep(poll_seconds)
