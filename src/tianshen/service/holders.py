"""Which of the board's games another live process holds (the leases table), told at the
daemon's start: on SQLite, which is for one process, a second `tianshen run` stops; on
PostgreSQL it waits, and takes a game over when its holder's lease lapses."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from tianshen.core.clock import DEFAULT_ZONE, show
from tianshen.service.daemon import Daemon, _dead_here

log = logging.getLogger(__name__)


BOARD = "the board's PMs"  # the board row's lease: who reads the GM account's PMs


@dataclass(frozen=True)
class Held:
    game: str  # the game's name, or BOARD
    owner: str  # host:pid, or [run] owner
    until: datetime

    def label(self) -> str:
        return self.game if self.game == BOARD else f"game {self.game}"


def held_elsewhere(daemon: Daemon, now: datetime | None = None) -> list[Held]:
    """The board's games (and its PM reading) whose lease another running process holds."""
    now = now or daemon.store.lease_now()  # the leases' clock: the database's
    rows = [(r.id, r.name) for r in daemon.games()] + [(daemon.board_row, BOARD)]
    held = []
    for game_id, name in rows:
        lease = daemon.store.lease(game_id)
        if lease is None or lease[0] == daemon.owner or lease[1] <= now or _dead_here(lease[0]):
            continue
        held.append(Held(name, lease[0], lease[1]))
    return held


def refuse_if_held(daemon: Daemon) -> None:
    """Log every game another process holds; on SQLite, ValueError (one line) saying so."""
    held = held_elsewhere(daemon)
    zone = getattr(daemon, "zone", DEFAULT_ZONE)  # the board's display zone (core.clock.show)
    for h in held:
        log.warning("%s is held by %s until %s: not served here while it is", h.label(), h.owner,
                    show(h.until, zone, seconds=True))
    if held and daemon.store.engine.dialect.name == "sqlite":
        owners = {h.owner: [x for x in held if x.owner == h.owner] for h in held}
        who = "; ".join(f"{owner} holds {' and '.join(h.label() for h in hs)} (lease until "
                        f"{show(max(h.until for h in hs), zone, seconds=True)})"
                        for owner, hs in owners.items())
        raise ValueError(f"another `tianshen run` serves this database: {who}; SQLite is for one process: "
                         f"stop the other one first (several processes need PostgreSQL)")
