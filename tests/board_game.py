"""A game on the built-in board with a virtual clock and a store: what the driver-level
tests start from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from classic_helpers import ROLES_10
from migrated import migrated_sqlite
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VirtualClock
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
GM = "神的使者"
KILL_庚 = "杀 庚\n" + "夜色深沉杀手悄然潜入" * 12  # a kill with a valid declaration (120 characters)


@dataclass
class BoardGame:
    clock: VirtualClock
    board: MemoryBoard
    forum: MemoryForum
    store: Store
    driver: GameDriver
    start: datetime

    def at(self, hours: float) -> datetime:
        return self.start + timedelta(hours=hours)

    def run_to(self, hours: float) -> None:
        """Move the clock to `hours` after the start and let the driver catch up."""
        self.clock.set(self.at(hours))
        self.driver.advance(self.clock.now())

    def thread(self, key: str) -> str:
        thread_id = self.store.thread_id(self.driver.game_id, key)
        assert thread_id is not None, key
        return thread_id


def board_game(tmp_path: Path, *, variant: str = "classic_10", name: str = "g", seed: int = 5,
               start: datetime = START, roles: dict[str, str] | None = None, own_accounts: bool = False,
               **setup: Any) -> BoardGame:
    """`own_accounts`: each player's forum account is '<马甲>本人' (else the 马甲 itself)."""
    roles = ROLES_10 if roles is None else roles
    clock = VirtualClock(start)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    store = Store(migrated_sqlite(tmp_path / f'{name}.db'))
    store.upgrade()
    seats = [Seat(name=n, forum_name=f"{n}本人" if own_accounts else n) for n in roles]
    game = GameSetup(seats=seats, seed=seed, start=start, fixed_roles=roles, **setup)
    driver = GameDriver.create(store, forum, name, variant, game)
    return BoardGame(clock, board, forum, store, driver, start)
