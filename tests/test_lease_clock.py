"""A jump of the host clock (an NTP step, a VM resumed) never lets two daemons serve one game
nor makes the holder drop it: the leases are written and compared on the database's clock
(`Store.lease_now`: PostgreSQL's own; here a virtual one, as two hosts share it), the holder
counts its lease on its monotonic clock, and a jump is said once and the leases checked again."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import tianshen.service.daemon as daemon_module
from daemon_config import START, HandClock, memory_config
from tianshen.config import load_config
from tianshen.forum.memory import MemoryBoard, MemoryForum
from tianshen.service.daemon import Daemon
from tianshen.sim import DaemonPlayers

BASE = datetime(2026, 3, 1, tzinfo=UTC)  # the real time the test starts at


class Hosts:
    """Two hosts' clocks: real time plus each host's jump; the database's and the monotonic
    clocks run on real time alone."""

    def __init__(self) -> None:
        self.elapsed = 0.0
        self.jump = {"a": timedelta(0), "b": timedelta(0)}
        self.ticking = "a"

    def host(self) -> datetime:
        return BASE + timedelta(seconds=self.elapsed) + self.jump[self.ticking]

    def database(self) -> datetime:
        return BASE + timedelta(seconds=self.elapsed)


def _daemon(tmp_path: Path, owner: str, hosts: Hosts, board: MemoryBoard, clock: HandClock) -> Daemon:
    config = memory_config(tmp_path, "lease", 30)
    config.write_text(config.read_text(encoding="utf-8").replace(
        "[run]\n", f'[run]\nowner = "{owner}"\nlease_seconds = 120\n'), encoding="utf-8")
    daemon = Daemon(load_config(config), forum=MemoryForum(board), clock=clock, players=DaemonPlayers())
    daemon.store.lease_clock = hosts.database
    daemon.monotonic = lambda: 1000.0 + hosts.elapsed  # type: ignore[method-assign]
    return daemon


def test_a_host_clock_jump_forward_and_back_neither_doubles_nor_drops_a_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    hosts = Hosts()

    class HostClock(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[no-untyped-def,override]
            return hosts.host().astimezone(tz) if tz else hosts.host().replace(tzinfo=None)

    monkeypatch.setattr(daemon_module, "datetime", HostClock)
    clock = HandClock(START)
    board = MemoryBoard(clock.now)
    a = _daemon(tmp_path, "a", hosts, board, clock)
    b = _daemon(tmp_path, "b", hosts, board, clock)
    game = a.store.game_id("lease")

    def tick(name: str) -> None:
        hosts.ticking = name
        (a if name == "a" else b).tick()

    def held() -> tuple[set[int], set[int]]:
        return set(a.served), set(b.served)

    tick("a")
    tick("b")
    assert held() == ({game}, set())

    with caplog.at_level(logging.WARNING):
        hosts.jump["b"] = timedelta(days=1)  # b's host clock steps a day ahead
        for _ in range(3):
            hosts.elapsed += 30
            tick("b")
            tick("a")
            assert held() == ({game}, set()), "b took a's game: its host clock ran ahead of the lease"

        hosts.jump["a"] = -timedelta(days=1)  # a's host clock steps a day back
        for _ in range(12):  # six minutes: three leases' worth
            hosts.elapsed += 30
            tick("a")
            tick("b")
            assert held() == ({game}, set()), "a's lease lapsed while its host clock stood a day back"
    owner, until = a.store.lease(game)
    assert owner == "a" and until > hosts.database()
    jumped = [r.getMessage() for r in caplog.records if "host clock jumped" in r.getMessage()]
    assert len(jumped) == 2, jumped  # said once a jump, not once a tick
    a.store.close()
    b.store.close()


def test_on_postgresql_the_leases_are_on_the_databases_clock(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two hosts, one a day ahead: PostgreSQL's clock decides, so neither sees the other's
    lease lapsed (SQLite, one process on one host, has only the host's clock)."""
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's own clock")
    import tianshen.store.store as store_module
    from tianshen.core.ruleset import GameSetup, Seat
    from tianshen.service.driver import GameDriver
    from tianshen.store import Store

    store = Store(db_url)
    store.upgrade()
    setup = GameSetup(seats=[Seat(name=n) for n in "甲乙丙丁戊己庚辛"], seed=1, start=START)
    game_id = GameDriver.register(store, "pg", "classic_8", setup)
    assert store.acquire_lease(game_id, "a", None, 120)

    class AheadClock(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[no-untyped-def,override]
            return datetime.now(tz) + timedelta(days=1)

    monkeypatch.setattr(store_module, "datetime", AheadClock)
    assert not store.acquire_lease(game_id, "b", None, 120)
    assert store.renew_leases([game_id], "a", 120) == {game_id}
    assert abs(store.lease(game_id)[1] - (datetime.now(UTC) + timedelta(seconds=120))) < timedelta(seconds=60)
    store.close()
