"""Issue 14: two `tianshen run` processes on one PostgreSQL database and one Spirit forum
serve two games; one is killed with SIGKILL mid-game.  Every game must end with the same
posts and PMs as an uncrashed run (one process), nothing sent twice, and the survivor must
take the dead process's games over soon after the lease expires (the aim: the lease period + one
poll; the bound allows a loaded machine two more lease periods).

Runs when TIANSHEN_TEST_DATABASE_URL names a PostgreSQL server (CI starts one: .ci/run).
Uses the multi-game config (`[[game]]` tables, `[run] lease_seconds`, `[run] owner`); where
`RunConfig` has no `lease_seconds` yet it is an expected failure.
"""

from __future__ import annotations

import os
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, ProgrammingError

from forums.spirit_server import DEFAULT_PLAYERS, SpiritServer
from tianshen.config import RunConfig
from tianshen.core.model import GameState
from tianshen.forum.spirit import SpiritForum, SpiritPlayers
from tianshen.sim.external import ExternalSims, play_all
from tianshen.store import Store

from .harness import (
    MAX_PHASES,
    TIMINGS_S,
    Daemon,
    DaemonDied,
    GameConfig,
    RetryingPlayers,
    StepAdvancer,
    Transcript,
    game_start,
    pending_rows,
    read_transcript,
    write_config,
    write_fast_ruleset,
)

PG_ADMIN_URL = os.environ.get("TIANSHEN_TEST_DATABASE_URL")
LEASE_SECONDS = 6.0
POLL_SECONDS = 0.5  # the games move by events, each a poll away
OBSERVE_SECONDS = 0.3  # how often this test looks at the leases (its measuring error)
GAMES = [("pg-a", 21, list(DEFAULT_PLAYERS[:8])), ("pg-b", 22, list(DEFAULT_PLAYERS[8:16]))]
MULTI_GAME = "lease_seconds" in RunConfig.model_fields
MAX_GAME_SECONDS = min(MAX_PHASES * max(TIMINGS_S.values()), 900)  # a bound: the phases end early

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not PG_ADMIN_URL, reason="needs PostgreSQL: set TIANSHEN_TEST_DATABASE_URL (.ci/run does)"),
    pytest.mark.xfail(not MULTI_GAME, strict=False,
                      reason="issue 14: multi-game `tianshen run` with leases ([[game]], [run] lease_seconds, "
                             "[run] owner) has not landed"),
]


@pytest.fixture
def pg_url() -> Iterator[Callable[[], str]]:
    """Fresh PostgreSQL databases (one per call), dropped afterwards."""
    assert PG_ADMIN_URL is not None
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    names: list[str] = []

    def make() -> str:
        name = f"tianshen_t_{uuid.uuid4().hex[:16]}"
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        names.append(name)
        return make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)

    yield make
    with admin.connect() as conn:
        for name in names:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def lease_owners(store: Store, game_ids: list[int]) -> dict[int, str]:
    """game id -> the owner of its lease (expired or not), for the games that have one."""
    return {g: lease[0] for g in game_ids if (lease := store.lease(g)) is not None}


@dataclass
class Takeover:
    """Kills `victim` (SIGKILL) once a game it leases is in its first day, then times how
    long each of its games waits for another owner's lease (taken in the tick that first
    steps the game there)."""

    store: Store
    sims: list[ExternalSims]
    victim: Daemon
    victim_owner: str = "a"
    killed_at: float | None = None
    orphans: set[int] = field(default_factory=set)
    taken: dict[int, float] = field(default_factory=dict)  # game id -> seconds from the kill

    def watch(self) -> None:
        owners = lease_owners(self.store, [x.game_id for x in self.sims if x.game_id is not None])
        if self.killed_at is None:
            held = {g for g, o in owners.items() if o == self.victim_owner}
            if any(self.store.load_game(g).phase_label.startswith("day") for g in held):
                assert self.victim.proc is not None
                self.victim.proc.kill()
                self.killed_at, self.orphans = time.monotonic(), held
            return
        for g in self.orphans - set(self.taken):
            if owners.get(g, self.victim_owner) != self.victim_owner:
                self.taken[g] = time.monotonic() - self.killed_at


def wait_for_leases(store: Store, daemon: Daemon, timeout: float = 180) -> None:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if daemon.exited() is not None:
            raise DaemonDied(f"tianshen run exited with {daemon.exited()}:\n{daemon.tail()}")
        try:
            ids = [store.game_id(name) for name, _, _ in GAMES]
            if all(ids) and len(lease_owners(store, ids)) == len(ids):  # type: ignore[arg-type]
                return
        except (OperationalError, ProgrammingError):  # no tables yet
            pass
        time.sleep(OBSERVE_SECONDS)
    raise TimeoutError(f"the games had no leases after {timeout} s:\n{daemon.tail()}")


def forum_now(server: SpiritServer) -> Callable[[], datetime]:
    forum = SpiritForum(server.base_url, server.gm_username, server.gm_password, min_write_interval_s=0)
    try:
        offset = forum.now() - datetime.now(UTC)
    finally:
        forum.close()
    return lambda: datetime.now(UTC) + offset


def games_config(server: SpiritServer, ruleset: str) -> list[GameConfig]:
    start = game_start(server, lead_seconds=5)
    return [GameConfig(name, ruleset, seed, start, players) for name, seed, players in GAMES]


def sims_of(store: Store, server: SpiritServer) -> tuple[list[ExternalSims], list[RetryingPlayers]]:
    sides = [RetryingPlayers(SpiritPlayers(server.base_url, {p: server.players[p] for p in players},
                                           server.gm_username)) for _, _, players in GAMES]
    return [ExternalSims(store, name, side, server.gm_username, done=True) for (name, _, _), side in zip(GAMES, sides,
                                                                                              strict=True)], sides


def everything(server: SpiritServer) -> Transcript:
    """The forum's transcript, threads in a fixed order (two games' threads interleave)."""
    t = read_transcript(server, [p for _, _, players in GAMES for p in players])
    t.threads.sort(key=repr)
    return t


@dataclass
class Solo:
    """The uncrashed run: one `tianshen run` ("solo") serving both games on a forum and a
    database of its own.  It is played in the same loop as the two processes' run."""

    server: SpiritServer
    db_url: str
    daemon: Daemon
    store: Store
    sims: list[ExternalSims]
    sides: list[RetryingPlayers]
    advance: list[StepAdvancer]

    @classmethod
    def start(cls, server: SpiritServer, workdir: Path, db_url: str, ruleset: str, rulesets: Path) -> Solo:
        workdir.mkdir()
        config = write_config(workdir / "config.toml", server, db_url, games_config(server, ruleset),
                              poll_seconds=POLL_SECONDS,
                              run_extra=f"lease_seconds = {LEASE_SECONDS}\nowner = \"solo\"\n")
        daemon = Daemon(config, workdir, server, rulesets)
        store = Store(db_url)
        sims, sides = sims_of(store, server)
        advance = [StepAdvancer(store, s, side, db_url, rulesets) for s, side in zip(sims, sides, strict=True)]
        daemon.start()
        return cls(server, db_url, daemon, store, sims, sides, advance)

    def alive(self) -> None:
        for step in self.advance:
            step()
        if self.daemon.exited() not in (None, 0):  # 0: all games over (stop_when_over)
            raise DaemonDied(f"tianshen run (solo) exited with {self.daemon.exited()}:\n{self.daemon.tail()}")

    def finish(self) -> tuple[list[GameState], Transcript, list[str]]:
        """The final states, the forum's transcript, what is left pending; the daemon stopped."""
        try:
            final = [GameState.model_validate_json(self.store.load_game(s.game_id).state_json) for s in self.sims
                     if s.game_id is not None]
            pending = pending_rows(self.store, self.daemon.config, [s.game_id for s in self.sims
                                                                     if s.game_id is not None])
        finally:
            self.close()
        return final, everything(self.server), pending

    def close(self) -> None:
        self.daemon.stop()
        for side in self.sides:
            side.close()
        self.store.close()


def test_two_processes_one_killed_the_survivor_takes_over(spirit_server_factory, pg_url, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    rulesets = tmp_path / "rulesets"
    rulesets.mkdir()
    monkeypatch.setenv("TIANSHEN_RULESETS", str(rulesets))  # the simulated players read the variant too
    ruleset = write_fast_ruleset(rulesets, base="classic_8", name="pg_fast_8")
    solo = Solo.start(spirit_server_factory(), tmp_path / "uncrashed", pg_url(), ruleset, rulesets)

    server = spirit_server_factory()
    db_url = pg_url()
    workdir = tmp_path / "two"
    workdir.mkdir()
    games = games_config(server, ruleset)
    daemons = {}
    for owner in ("a", "b"):
        (workdir / owner).mkdir()
        config = write_config(workdir / owner / "config.toml", server, db_url, games, poll_seconds=POLL_SECONDS,
                              run_extra=f"lease_seconds = {LEASE_SECONDS}\nowner = \"{owner}\"\n")
        daemons[owner] = Daemon(config, workdir / owner, server, rulesets)
    store = Store(db_url)
    sims, sides = sims_of(store, server)
    victim, survivor = daemons["a"], daemons["b"]
    takeover = Takeover(store, sims, victim)

    advance = [StepAdvancer(store, s, side, db_url, rulesets) for s, side in zip(sims, sides, strict=True)]

    def watch() -> None:
        solo.alive()
        for step in advance:
            step()
        for owner, d in daemons.items():
            rc = d.exited()
            if rc not in (None, 0) and not (d is victim and takeover.killed_at is not None):
                raise DaemonDied(f"tianshen run ({owner}) exited with {rc}:\n{d.tail()}")
        takeover.watch()

    given_up = ""
    try:
        victim.start()
        wait_for_leases(store, victim)  # `a` leases the games first, then `b` starts
        survivor.start()
        try:  # both runs at once: the uncrashed one's games and the two processes'
            play_all(solo.sims + sims, forum_now(server), poll_seconds=OBSERVE_SECONDS, max_seconds=MAX_GAME_SECONDS,
                     between=watch)
        except TimeoutError as exc:  # compare what reached the forum all the same
            given_up = f"{exc}\nb's log ends:\n{survivor.tail(2500)}"
        final = [GameState.model_validate_json(store.load_game(s.game_id).state_json) for s in sims
                 if s.game_id is not None]
        pending = pending_rows(store, survivor.config, [s.game_id for s in sims if s.game_id is not None])
    finally:
        for d in daemons.values():
            d.stop()
        for side in sides:
            side.close()
        store.close()
        clean_final, clean, clean_pending = solo.finish()
    crashed = everything(server)

    taken = takeover.taken
    print(f"\ntwo processes: a killed holding {len(takeover.orphans)} games; survivor's leases after "
          f"{', '.join(f'{t:.1f} s' for t in taken.values())} (lease {LEASE_SECONDS} s, poll {POLL_SECONDS} s)")
    assert takeover.killed_at is not None, "`a` never held a game in its first day: nothing was killed mid-game"
    assert takeover.orphans, "the killed process held no game"
    # the aim is the lease period and one poll (6.8 s); the bound gives a loaded machine two more
    # lease periods for the survivor's slow ticks (9.3 s was measured at load 11-13): a game left
    # orphaned for several lease periods still fails, whatever the load
    limit = 3 * LEASE_SECONDS + POLL_SECONDS + OBSERVE_SECONDS
    problems = [f"game {g} never taken over" for g in takeover.orphans - set(taken)]
    problems += [f"game {g} taken over after {t:.1f} s > {limit} s" for g, t in taken.items() if t > limit]
    problems += [f"doubled ×{n}: {w[:160]!r}" for w, n in
                 (Counter(crashed.gm_writes()) - Counter(clean.gm_writes())).items()]
    problems += [f"lost ×{n}: {w[:160]!r}" for w, n in
                 (Counter(clean.gm_writes()) - Counter(crashed.gm_writes())).items()]
    problems += [f"left pending in the outbox (uncrashed): {clean_pending}"] if clean_pending else []
    problems += [f"left pending in the outbox: {pending}"] if pending else []
    if [s.winner for s in final] != [s.winner for s in clean_final]:
        problems.append(f"winners {[s.winner for s in final]}, uncrashed {[s.winner for s in clean_final]}")
    problems += [f"given up: {given_up}"] if given_up else []
    assert not problems, "\n".join(problems[:60])
    assert crashed == clean
