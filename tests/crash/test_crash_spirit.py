"""Issue 13: exactly once after every crash.  A whole fast classic_10 game on a live Spirit
forum with `tianshen run` as a child process, played by simulated players in this process
(`sim.external`), twice at once with one seed, each on a fresh forum: once uncrashed (its
crash trace lists the points a run passes), once with the daemon killed by SIGKILL at one
point after another (TIANSHEN_CRASH_AT, restarted after each kill) until the game is over.  What
every player and the GM account saw on the forum, and the winner, must be the same; only
the crashed run may carry notices that extend a window which opened late (issue 22 item 7).
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from forums.spirit_server import DEFAULT_PLAYERS, SpiritServer
from tianshen.core.model import GameState
from tianshen.forum.spirit import SpiritForum, SpiritPlayers
from tianshen.sim.external import ExternalSims, play_external
from tianshen.store import Store

from .harness import (
    MAX_PHASES,
    POINT_NAMES,
    POINTS_PER_GAME,
    TIMINGS_S,
    CrashPlan,
    Daemon,
    DaemonDied,
    ForkServer,
    GameConfig,
    RetryingPlayers,
    StepAdvancer,
    Transcript,
    game_start,
    pending_rows,
    read_trace,
    read_transcript,
    write_config,
    write_fast_ruleset,
)

pytestmark = pytest.mark.live

SEED = 11
GAME = "crash-classic10"
PLAYERS = list(DEFAULT_PLAYERS[:10])
# Every other start is named, the names in turn over POINT_NAMES (CrashPlan), so 2 × 6 = 12
# kills kill at every kind once; the minimum is half a rotation more (a named kill that the
# game's end outruns, a quota start in a named slot), the cap six more for a faster machine.
MIN_KILLS = 2 * len(POINT_NAMES) + 6
KILL_QUOTA = 5  # kills a phase: then a restart gets a large N (CrashPlan); 5 × 6 phases > MAX_KILLS
MAX_KILLS = MIN_KILLS + 6  # then the daemon runs to the end: each restart costs 0.9 s of CPU
MAX_GAME_SECONDS = min(MAX_PHASES * max(TIMINGS_S.values()), 1200)  # a bound: the phases end early
STUCK_SECONDS = 120  # one daemon process running this long without sending a pending row
# Issue 22 item 7 at the test's time scale: a window whose opening post reached the board more
# than this late is extended.  A restart takes 3-5 s (more on a loaded machine), so one restart
# stays within it; a deal that several kills stretched across night 1 may not.
LATE_WINDOW_MINUTES = 1


@dataclass
class Run:
    final: GameState
    transcript: Transcript
    daemon: Daemon
    seconds: float
    kill_phases: list[str] = field(default_factory=list)  # the phase stored when each kill was seen
    pending: list[str] = field(default_factory=list)  # outbox rows never sent
    phases: list[str] = field(default_factory=list)  # the game's phases, in order
    stuck: str = ""  # why the run was given up before everything was sent, if it was
    read_seconds: float = 0.0  # reading the transcript back from the forum


def forum_clock(server: SpiritServer) -> Callable[[], datetime]:
    """The forum's clock, read once as an offset from ours."""
    forum = SpiritForum(server.base_url, server.gm_username, server.gm_password, min_write_interval_s=0)
    try:
        offset = forum.now() - datetime.now(UTC)
    finally:
        forum.close()
    return lambda: datetime.now(UTC) + offset


def play(server: SpiritServer, workdir: Path, ruleset: str, rulesets: Path, *, trace: Path | None = None,
         crash_at: CrashPlan | None = None) -> Run:
    """One whole game: the daemon as a child process, restarted with the next crash point
    whenever a crash point killed it; the sims act from here until the game is over."""
    workdir.mkdir()
    db_url = f"sqlite:///{workdir / 'game.db'}"
    config = write_config(workdir / "config.toml", server, db_url,
                          [GameConfig(GAME, ruleset, SEED, game_start(server), PLAYERS)],
                          # the restarted daemon holds the game's lease
                          run_extra=f'owner = "crash-test"\nlate_window_minutes = {LATE_WINDOW_MINUTES}\n')
    # the crashed run's daemons are forked by a process that has done the imports once (a restart
    # costs the daemon's own start); the uncrashed one is `python -m tianshen.cli run` itself
    forks = ForkServer() if crash_at is not None else None
    daemon = Daemon(config, workdir, server, rulesets, forks=forks)
    store = Store(db_url)
    players = RetryingPlayers(SpiritPlayers(server.base_url, {p: server.players[p] for p in PLAYERS},
                                            server.gm_username))
    sims = ExternalSims(store, GAME, players, server.gm_username, done=True)
    kill_phases: list[str] = []
    stuck = Stuck(store, sims)

    advance = StepAdvancer(store, sims, players, db_url, rulesets)

    def restart_if_killed() -> None:
        advance()
        stuck.check(daemon)
        rc = daemon.exited()
        if rc is None or rc == 0:  # 0: the game is over (stop_when_over)
            return
        if rc != -signal.SIGKILL or crash_at is None or len(daemon.kills()) != len(kill_phases) + 1:
            raise DaemonDied(f"tianshen run exited with {rc} ({len(daemon.kills())} kills logged):\n"
                             f"{daemon.tail()}")
        kill_phases.append(_phase(store, sims))
        daemon.start(crash_at.next(behind=_behind(store, sims, now), phase=kill_phases[-1]), trace)

    now = forum_clock(server)
    t0 = time.monotonic()
    daemon.start(crash_at.next() if crash_at else None, trace)
    given_up = ""
    try:
        try:
            final = play_external(sims, now, poll_seconds=0.3, max_seconds=MAX_GAME_SECONDS,
                                  between=restart_if_killed)
        except GameStuck as exc:  # compare what reached the forum all the same
            given_up = str(exc)
            assert sims.game_id is not None
            final = GameState.model_validate_json(store.load_game(sims.game_id).state_json)
        given_up = given_up or _stopped(daemon)
        seconds = time.monotonic() - t0
        assert sims.game_id is not None
        pending = pending_rows(store, config, [sims.game_id])
        phases = [p.label for p in store.phases(sims.game_id)]
    finally:
        daemon.stop()
        if forks is not None:
            forks.close()
        players.close()
        store.close()
    t1 = time.monotonic()
    transcript = read_transcript(server, PLAYERS)
    return Run(final, transcript, daemon, seconds, kill_phases, pending, phases, given_up, time.monotonic() - t1)


def _stopped(daemon: Daemon) -> str:
    """Why the daemon did not stop by itself once the game was over (stop_when_over), or ""."""
    if daemon.exited() is None:
        try:
            daemon.wait_exit(timeout=30)
        except DaemonDied:
            return f"the daemon did not stop within 30 s of the game's end:\n{daemon.tail(1500)}"
    rc = daemon.exited()
    return "" if rc in (0, -signal.SIGKILL) else f"the daemon exited with {rc}:\n{daemon.tail(1500)}"


def _phase(store: Store, sims: ExternalSims) -> str:
    if sims.game_id is None:
        return "not signed up"
    record = store.load_game(sims.game_id)
    return record.phase_label if record.status != "new" else "not started"


class GameStuck(DaemonDied):
    """Outbox rows stayed pending while the daemon ran."""


class Stuck:
    """Fails the test early when messages stay pending while the daemon runs (a tick that
    fails every time) instead of waiting for the game's time-out."""

    def __init__(self, store: Store, sims: ExternalSims, limit_s: float = STUCK_SECONDS) -> None:
        self.store, self.sims, self.limit_s = store, sims, limit_s
        self.since: float | None = None
        self.seen: tuple[int, ...] = ()
        self.starts = 0  # a restarted daemon starts the count again: only one that runs on is stuck

    def check(self, daemon: Daemon) -> None:
        if self.sims.game_id is None:
            return
        try:
            pending = tuple(r.id for r in self.store.pending_outbox(self.sims.game_id))
        except OperationalError:
            return
        if not pending or pending != self.seen or daemon.starts != self.starts:
            self.since, self.seen, self.starts = time.monotonic(), pending, daemon.starts
            return
        if self.since is not None and time.monotonic() - self.since > self.limit_s:
            raise GameStuck(f"outbox rows {list(pending)} pending for {self.limit_s:.0f} s while daemon start "
                             f"{daemon.starts} ran; its log ends:\n{daemon.tail(6000)}")


def _behind(store: Store, sims: ExternalSims, now: Callable[[], datetime]) -> bool:
    """The game's next deadline is already past: the daemon has inputs or deadlines to catch up on."""
    if sims.game_id is None:
        return False
    due = store.load_game(sims.game_id).deadline_at
    return due is not None and due.replace(tzinfo=due.tzinfo or UTC) < now()


def differences(expected: Transcript, got: Transcript) -> list[str]:
    """Human-readable differences, doubles and losses first."""
    out = []
    want, have = Counter(expected.gm_writes()), Counter(got.gm_writes())
    out += [f"doubled ×{n}: {w[:160]!r}" for w, n in (have - want).items()]
    out += [f"lost ×{n}: {w[:160]!r}" for w, n in (want - have).items()]
    titles = [t for t, _ in expected.threads], [t for t, _ in got.threads]
    if titles[0] != titles[1]:
        out.append(f"threads {titles[0]} != {titles[1]}")
    for (title, a), (_, b) in zip(expected.threads, got.threads, strict=False):
        for who in sorted(set(a) | set(b)):
            if a.get(who) != b.get(who):
                out.append(f"thread {title!r}, posts by {who}: {a.get(who)} != {b.get(who)}")
    for who in sorted(set(expected.gm_inbox) | set(got.gm_inbox)):
        if expected.gm_inbox.get(who) != got.gm_inbox.get(who):
            out.append(f"PMs from {who} to the GM: {expected.gm_inbox.get(who)} != {got.gm_inbox.get(who)}")
    for who in expected.inboxes:
        if not same_inbox(expected.inboxes[who], got.inboxes.get(who, [])):
            out.append(f"{who}'s inbox differs")
    return out


REPLY = "天神回复"  # receipt_subject (rulesets/_core.toml): the answer to a player's own PM


def same_inbox(want: list[tuple[str, str]], have: list[tuple[str, str]]) -> bool:
    """The same PMs, and the answers to the player's own PMs in the same order.  A PM another
    player's action caused (a partner's kill) may come before or after a receipt of his own:
    that depends on whether the two players' PMs were read in one poll, which the machine's
    speed decides, not tianshen."""
    replies = [pm for pm in want if pm[0] == REPLY], [pm for pm in have if pm[0] == REPLY]
    return Counter(want) == Counter(have) and replies[0] == replies[1]


@pytest.fixture
def fast_ruleset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    rulesets = tmp_path / "rulesets"
    rulesets.mkdir()
    monkeypatch.setenv("TIANSHEN_RULESETS", str(rulesets))  # the simulated players read the variant too
    return write_fast_ruleset(rulesets), rulesets


def test_killed_at_every_kind_of_point_the_game_is_the_same(spirit_server_factory, fast_ruleset, tmp_path: Path,
                                                            summary_line: Callable[[str], None]) -> None:
    ruleset, rulesets = fast_ruleset
    t0 = time.monotonic()
    trace = tmp_path / "trace.txt"
    servers = spirit_server_factory(), spirit_server_factory()
    # the uncrashed reference game plays beside the crashed one (each on its own forum), not
    # before it: the crashed run is planned from POINTS_PER_GAME, and the trace checked after
    # sized for more kills than the cap (a step of 13 points): a game that passes fewer points
    # than POINTS_PER_GAME (restarts cheaper, the machine quieter) still reaches MIN_KILLS, and
    # the quota and the cap bound the restarts (a run sized for 35 had 27 kills on 2 cores)
    plan = CrashPlan(POINT_NAMES, POINTS_PER_GAME, MAX_KILLS + 10, quota=KILL_QUOTA, cap=MAX_KILLS)
    with ThreadPoolExecutor(1) as pool:
        reference = pool.submit(play, servers[0], tmp_path / "uncrashed", ruleset, rulesets, trace=trace)
        crashed = play(servers[1], tmp_path / "crashed", ruleset, rulesets, crash_at=plan)
        clean = reference.result()
    points = read_trace(trace)
    assert clean.final.winner in ("civilians", "killers"), clean.daemon.tail()
    assert points, "the daemon passed no crash point: tianshen.service.crash.point is not called"
    assert set(points) <= set(POINT_NAMES), f"crash points not in harness.POINT_NAMES: {set(points) - set(POINT_NAMES)}"
    kills = crashed.daemon.kills()
    killed_at = Counter(line.split(" ", 2)[2] for line in kills)
    phases = list(dict.fromkeys(crashed.kill_phases))
    expected, clean_extensions = clean.transcript.without_extensions()
    got, extensions = crashed.transcript.without_extensions()
    per_phase = Counter(crashed.kill_phases)
    summary_line(f"{len(kills)} kills at {len(killed_at)} kinds of point "
                 f"({', '.join(f'{n}×{c}' for n, c in killed_at.most_common())}) in {len(phases)} phases "
                 f"({', '.join(f'{p} {c}' for p, c in per_phase.items())}); "
                 f"{crashed.daemon.starts} daemon starts; {len(points)} points in the uncrashed run "
                 f"({len(set(points))} kinds); uncrashed {clean.seconds:.0f} s, crashed {crashed.seconds:.0f} s "
                 f"(transcripts read in {clean.read_seconds:.0f} s and {crashed.read_seconds:.0f} s), "
                 f"test {time.monotonic() - t0:.0f} s; extensions: {len(extensions)} in the crashed run, "
                 f"{len(clean_extensions)} uncrashed")
    problems = differences(expected, got)
    problems += [f"the uncrashed run was extended: {clean_extensions}"] if clean_extensions else []
    problems += [f"uncrashed run: {clean.stuck}"] if clean.stuck else []
    problems += [f"crashed run: {crashed.stuck[:3000]}"] if crashed.stuck else []
    problems += [f"left pending in the outbox (uncrashed): {clean.pending}"] if clean.pending else []
    problems += [f"left pending in the outbox: {crashed.pending}"] if crashed.pending else []
    if crashed.final.winner != clean.final.winner:
        problems.append(f"winner {crashed.final.winner}, uncrashed {clean.final.winner}")
    assert not problems, "\n".join(problems[:60])
    # the threads and the GM's inbox exactly; each player's inbox as same_inbox says (above): a
    # partner's PM may come on either side of a receipt of his own (one poll or two)
    assert (got.threads, got.gm_inbox, got.inboxes.keys()) == (expected.threads, expected.gm_inbox,
                                                                 expected.inboxes.keys())
    assert len(kills) >= MIN_KILLS, f"only {len(kills)} kills before the game ended"
    missed = [name for name in POINT_NAMES if not killed_at[name]]
    assert not missed, f"no kill at {missed}: killed at {dict(killed_at)}"
    spread = set(phases) & set(crashed.phases)
    assert len(spread) >= len(set(crashed.phases)) // 2, f"kills in {phases}, the game's phases {crashed.phases}"


def test_an_inbox_may_interleave_a_partners_pm_but_never_reorder_or_lose_receipts() -> None:
    kill, done, partner = (REPLY, "✔ 杀 白狐"), (REPLY, "✔ 本时段的行动已完成"), ("同伴的行动", "老槐：杀 白狐")
    assert same_inbox([kill, partner, done], [kill, done, partner])  # read in one poll or in two
    assert not same_inbox([kill, partner, done], [done, partner, kill])  # his own answers reordered
    assert not same_inbox([kill, partner, done], [kill, done])  # lost
    assert not same_inbox([kill, partner, done], [kill, partner, partner, done])  # doubled


def test_a_phase_past_its_kill_quota_gets_a_late_crash_point_and_past_the_cap_none() -> None:
    plan = CrashPlan(POINT_NAMES, points=120, kills=10, quota=2, cap=5)  # a step of 12 points
    first = [plan.next()] + [plan.next(phase="night 1")]  # the start, then the first kill's restart
    assert all(at is not None and at != "48" for at in first)
    assert plan.next(phase="night 1") == "48"  # night 1's second kill: its quota is reached
    assert plan.next(phase="day 1") != "48"  # a new phase has its own quota
    assert plan.next(phase="day 1") == "48"
    assert plan.next(phase="night 2") is None  # the fifth kill: the daemon runs to the end


def test_the_named_starts_take_every_kind_of_point_in_turn_whatever_the_quota_takes() -> None:
    plan = CrashPlan(POINT_NAMES, points=120, kills=10, quota=3)  # a step of 12 points
    named: list[str] = []
    for k in range(4 * len(POINT_NAMES)):
        at = plan.next(phase=f"phase {k // 3}")  # each third kill: the quota's, odd and even starts
        if at is not None and not at.isdigit():
            named.append(at)
    assert sorted(named[:len(POINT_NAMES)]) == sorted(POINT_NAMES)
