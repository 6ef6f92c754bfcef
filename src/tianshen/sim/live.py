"""A whole game in real time on a real forum: simulated players act through their own
accounts (`PlayerSide`), the bot only through its `Forum`, and the deadlines fall by the
forum's clock.  Used by the end-to-end tests and `tianshen rehearse --config`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from tianshen.core.model import GameState
from tianshen.forum.base import PlayerSide
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for


def play_live(driver: GameDriver, players: PlayerSide, now: Callable[[], datetime], *,
              poll_seconds: float = 1.0, max_seconds: float = 900, sleep: Callable[[float], None] = time.sleep,
              monotonic: Callable[[], float] = time.monotonic) -> GameState:
    """Play until the game is over; the sims act once at each new phase or step."""
    state0 = driver.state()
    sims = sims_for(state0.ruleset, players, driver.forum.account, state0.seed)
    give_up = monotonic() + max_seconds
    acted = ""
    while True:
        state = driver.state()
        deadline = driver.ruleset.next_deadline(state)
        if deadline is None:
            return state
        if monotonic() > give_up:
            raise TimeoutError(f"the game was still at {state.phase.label} after {max_seconds} s")
        point = f"{state.phase.label}:{state.phase.step}"
        if point != acted:
            acted = point
            sims.act(state, now(), lambda key: driver.store.thread_id(driver.game_id, key))
        driver.advance(now())  # answers what came in, fires the deadline when it is due
        if driver.state().model_dump_json() == state.model_dump_json():
            sleep(min(poll_seconds, max(0.05, (deadline.at - now()).total_seconds())))
