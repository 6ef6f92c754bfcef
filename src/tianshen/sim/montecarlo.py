"""Monte Carlo: whole games on the pure core with simulated players, many at once.

No database and no forum: `play` drives `Ruleset.apply` with a virtual clock that jumps
from deadline to deadline (`ruleset.next_deadline`), and the family's simulated players
(sim/*.py, the same ones the rehearsals use) write their PMs and posts on a `CoreBoard`,
which turns them into the inputs the driver would have read.  `run` spreads chunks of seeds
over worker processes and hands back one `GameResult` per game; `tally` (`tianshen simulate`)
has each worker sum its chunk into a `report.Tally` instead, and merges those.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache, lru_cache
from typing import TypeVar

from tianshen.core.model import (
    DUE_MOVED,
    DUE_UNKNOWN,
    WRITES,
    DeadlineIn,
    GameState,
    Outcome,
    PmIn,
    PostIn,
    hand_on,
    watch_alive,
)
from tianshen.core.ruleset import Deadline, GameSetup, Ruleset, Seat
from tianshen.rules import load_ruleset
from tianshen.sim import Sims, sims_class
from tianshen.sim.report import Tally, extract
from tianshen.sim.seats import DEFAULT_START, MAX_STEPS, default_seats

GM_ACCOUNT = "神的使者"
_HOUR, _MINUTE = timedelta(hours=1), timedelta(minutes=1)
T = TypeVar("T")


# a board's ids, `str(n)` made once (an int's decimal text is made anew by every `str`; a
# classic_10 game writes about 50 inputs, an n_lives 7p game about 150)
_IDS = tuple(str(n) for n in range(1024))
_new, _pm_init, _post_init, _deadline_init = object.__new__, PmIn.__init__, PostIn.__init__, DeadlineIn.__init__


class CoreBoard:
    """A `PlayerSide` that keeps what the sims write as core inputs, in the order the
    driver would read them: the GM's PMs first, then the posts (all stamped `now`)."""

    def __init__(self, moment: list[datetime]) -> None:
        # the game's clock: a one-item list its `now` writes, read here without a call
        self._moment = moment
        self.pms: list[PmIn] = []
        self.posts: list[PostIn] = []
        self._next = 0

    def clock(self) -> datetime:
        return self._moment[0]

    # (each input made as the class call makes it, its `__init__` called on a new object: the
    # class call with keywords first packs them in a dict, ~1,300 instructions an input)

    def pm(self, sender: str, to: str, text: str, subject: str = "") -> int:
        self._next = n = self._next + 1
        made = _new(PmIn)
        _pm_init(made, _IDS[n] if n < 1024 else str(n), sender, self._moment[0], text)
        self.pms.append(made)
        return n

    def post(self, author: str, thread_id: str, text: str) -> int:
        self._next = n = self._next + 1
        made = _new(PostIn)
        _post_init(made, _IDS[n] if n < 1024 else str(n), thread_id, author, self._moment[0], text)
        self.posts.append(made)
        return n

    def edit(self, post_id: int, author: str, new_text: str) -> None:
        raise NotImplementedError("simulated players do not edit posts in a Monte Carlo game")

    def inbox(self, user: str) -> list:
        return []

    def thread_posts(self, thread_id: str) -> list:
        return []

    def take(self) -> list[PmIn | PostIn]:
        found: list[PmIn | PostIn] = [*self.pms, *self.posts]
        self.pms, self.posts = [], []
        return found


@dataclass
class GameResult:
    """What one game left behind, small enough to send back from a worker."""

    seed: int
    winner: str | None
    rounds: int  # the phase number the game ended in (night k and day k are round k)
    steps: int
    players: list[dict]  # name, role, faction, alive, died_in, death_cause
    counters: dict[str, int] = field(default_factory=dict)  # rule firings (sim/report.py)
    error: str | None = None


Extractor = Callable[[GameState, list[Outcome]], Counter[str]]


class Game:
    """One pure-core game: the state, the clock, the open threads and the sims."""

    def __init__(self, ruleset: Ruleset, seed: int, players: int, policy: str = "default",
                 start: datetime = DEFAULT_START) -> None:
        self.ruleset = ruleset
        # the clock the board stamps with, a list the game's `now` writes: not the game itself,
        # so a game played is freed when dropped, not left for the collector (a closure over
        # `self` made every game a cycle: a thousand objects the collector had to find)
        self._moment = [start]
        self.board = CoreBoard(self._moment)
        self.threads: set[str] = set()
        self.outcomes: list[Outcome] = []
        setup = _setup(players, start).model_copy(update={"seed": seed})
        self.state = self._took(ruleset.setup(setup))
        spec = ruleset.spec
        self.watch_board = bool(spec.options.get("analysis_quota") or spec.options.get("watch_board"))
        self.sims = _sims_class(spec.ruleset, policy)(self.board, GM_ACCOUNT, seed)
        self.sims.know(spec)

    @property
    def now(self) -> datetime:
        return self._moment[0]

    @now.setter
    def now(self, at: datetime) -> None:
        self._moment[0] = at

    def _took(self, outcome: Outcome) -> GameState:
        self.outcomes.append(outcome)
        if outcome.posts:  # most inputs post nothing
            for post in outcome.posts:  # (a loop: a generator is a function object made and freed)
                self.threads.add(post.thread)
        return outcome.state

    def thread(self, key: str) -> str | None:
        return key if key in self.threads else None

    def fold(self, event: PmIn | PostIn | DeadlineIn) -> None:
        """One input.  Nobody keeps the previous state (the outcomes kept are read for their
        messages only), so the ruleset folds into the state itself: no copy per step."""
        self.state = self._took(self.ruleset.apply_in_place(self.state, event))

    def play(self, max_steps: int = MAX_STEPS) -> GameState:
        """Like `sim.rehearsal.rehearse`: the sims act an hour in (or just before the
        deadline), then the clock jumps to the deadline and the driver's `advance` runs."""
        deadline = self.ruleset.next_deadline(self.state)
        moment = self._moment  # `now`, read and written here without the property
        act, thread = self.sims.act, self.thread
        # one log of the player writes for the whole game: each fold in place reads its own
        # part of it (`GameState.logged`), no log begun and ended a fold
        log, token = watch_alive()
        first = self.state
        first.logged = True
        try:
            for _ in range(max_steps):
                if deadline is None:
                    return self.state
                now = moment[0] = max(moment[0], min(moment[0] + _HOUR, deadline.at - _MINUTE))
                act(self.state, now, thread)
                pending = self._read()
                moment[0] = max(now, deadline.at)
                # the sims wrote on the board only: still the next deadline; `advance` hands back
                # the one of the state it leaves
                deadline = self.advance(pending, deadline)
        finally:
            WRITES.reset(token)
            hand_on(token, log)
            first.logged = self.state.logged = False
        raise RuntimeError(f"the game did not end within {max_steps} steps")

    def _read(self) -> list[PmIn | PostIn]:
        """What the driver's `_collect` would read: PMs, and posts in the watched threads."""
        board = self.board
        found: list[PmIn | PostIn] = board.pms  # type: ignore[assignment]
        posts = board.posts
        board.pms, board.posts = [], []
        if posts:
            if self.watch_board:
                found += posts
            else:
                watched = _watched(self.state)
                for e in posts:  # (a loop: no comprehension's function object)
                    if e.thread in watched:
                        found.append(e)
        return found

    def advance(self, pending: list[PmIn | PostIn], known: Deadline | None = None) -> Deadline | None:
        """`GameDriver.advance(now)`: inputs stamped before a due deadline first; `known` is
        the state's next deadline when the caller has just asked for it.  Returns the next
        deadline of the state it leaves (asked once after every fold: an input may move it)."""
        dl = known
        now = self._moment[0]  # (the sims do not move the clock while the game advances)
        fold, next_deadline = self.fold, self.ruleset.next_deadline
        # `fold` and `_took` inline unless a subclass or the game itself has its own (the tests
        # digest or watch every input through them): two calls an input less
        own = getattr(fold, "__func__", None) is Game.fold and getattr(self._took, "__func__", None) is Game._took
        apply, outcomes, threads = self.ruleset.apply_in_place, self.outcomes, self.threads
        i, n = 0, len(pending)
        while True:
            if dl is None:
                dl = next_deadline(self.state)
            # inputs stamped up to `limit` fold before the deadline, when it is due; all of
            # them when it is not (None).  Worked out again only when the next deadline is
            # another object: most folds hand back the state's kept one (`GameState.due`)
            limit = dl.at if dl is not None and dl.at <= now else None
            while i < n:
                event = pending[i]
                if limit is not None and event.at > limit:
                    break
                i += 1
                if own:
                    outcome = apply(self.state, event)
                    outcomes.append(outcome)
                    if outcome.posts:
                        for post in outcome.posts:
                            threads.add(post.thread)
                    self.state = state = outcome.state
                else:
                    fold(event)
                    state = self.state
                found = state.due  # (`next_deadline`'s kept answer read here: no call after most folds)
                if found is DUE_UNKNOWN or found is DUE_MOVED:
                    found = next_deadline(state)
                if found is not dl:
                    dl = found
                    limit = dl.at if dl is not None and dl.at <= now else None
            if limit is None:
                return dl
            at = limit
            event = _new(DeadlineIn)  # (as the board makes its inputs)
            _deadline_init(event, f"{dl.kind}@{_iso(at, at.utcoffset())}", at, dl.kind)  # type: ignore[union-attr]
            if own:
                outcome = apply(self.state, event)
                outcomes.append(outcome)
                if outcome.posts:
                    for post in outcome.posts:
                        threads.add(post.thread)
                self.state = outcome.state
            else:
                fold(event)
            dl = None


@lru_cache(maxsize=4096)
def _iso(at: datetime, offset: timedelta | None) -> str:
    """`at.isoformat()`, once per moment and offset in a process (the games of a run start at
    the same virtual moment: their deadlines fall on a few dozen moments).  The offset is part
    of the key: one instant in two zones is one key for a datetime alone, but two strings."""
    return at.isoformat()


@cache
def _seats(players: int) -> tuple[Seat, ...]:
    """The simulated players' seats, made once per table size (a setup only reads them)."""
    return tuple(default_seats(players))


@cache
def _setup(players: int, start: datetime) -> GameSetup:
    """A game's setup but its seed, checked once per table size (pydantic, the names told
    apart); each game takes a copy with its seed (a setup only reads it)."""
    return GameSetup(seats=list(_seats(players)), seed=0, start=start)


@cache
def _sims_class(family: str, policy: str) -> Callable[[CoreBoard, str, int], Sims]:
    """`sims_class`, looked up once per run (the policies and the class by its "module:Class"
    name)."""
    return sims_class(family, policy)


def _watched(state: GameState) -> list[str]:
    """The threads `GameDriver._watched` reads at this point of the game."""
    watched = ["main"] if state.data.get("checkin") else []
    if state.phase.kind == "day":
        return watched + [f"vote:{state.phase.number}"]
    if state.phase.kind == "night" and state.phase.number > 1:
        return watched + [f"vote:{state.phase.number - 1}"]
    return watched


def play(ruleset: Ruleset, seed: int, players: int | None = None, policy: str = "default") -> GameResult:
    """One whole game, summed up."""
    game = Game(ruleset, seed, players or ruleset.spec.players, policy)
    try:
        state = game.play()
    except Exception as exc:  # a sim or ruleset bug: counted and shown, not fatal to the run
        return GameResult(seed=seed, winner=None, rounds=game.state.phase.number, steps=len(game.outcomes),
                          players=[], error=f"{type(exc).__name__}: {exc}")
    return extract(game.ruleset, state, game.outcomes, seed)


# ---- many games over processes -----------------------------------------------------


@dataclass(frozen=True)
class Job:
    variant: str  # a variant id or a variant file
    seeds: tuple[int, ...]
    players: int | None
    policy: str


_RULESETS: dict[str, Ruleset] = {}


def _ruleset(variant: str) -> Ruleset:
    """The variant's ruleset, loaded once per process (a worker forked after the parent
    loaded it starts with it)."""
    ruleset = _RULESETS.get(variant)
    if ruleset is None:
        ruleset = _RULESETS[variant] = load_ruleset(variant)
    return ruleset


GEN0_THRESHOLD = 10_000  # objects allocated between two young collections (Python's default: 700)


def _worker_start() -> None:
    """A worker's collector: what the worker was forked with (modules, the ruleset) is frozen
    out of every collection, and the young generation is collected every 10,000 new objects
    instead of 700 (a game keeps its outcomes to the end: each collection walked them again;
    the collector cost classic_10 about 7 % of a worker's CPU, 3 % after; since a played game
    holds no cycle (`Game.now`), it is freed at once and the collector seldom runs at all)."""
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *gc.get_threshold()[1:])


def run_job(job: Job) -> list[GameResult]:
    """One chunk of seeds, in a worker."""
    ruleset = _ruleset(job.variant)
    return [play(ruleset, seed, job.players, job.policy) for seed in job.seeds]


def tally_job(job: Job) -> Tally:
    """One chunk of seeds summed up, in a worker: what goes back is the chunk's `Tally`, about
    a kilobyte, not a result a game (about 400 bytes each, unpickled and summed by the parent
    while the workers play: a few seconds of one core in 100,000 games)."""
    ruleset = _ruleset(job.variant)
    tally = Tally()
    for seed in job.seeds:
        tally.add(play(ruleset, seed, job.players, job.policy))
    return tally


def chunks(seeds: range, size: int) -> Iterator[tuple[int, ...]]:
    for i in range(0, len(seeds), size):
        yield tuple(seeds[i:i + size])


def chunk_size(games: int, workers: int) -> int:
    """Games a job.  Every worker is busy until the jobs run out, then waits for the others'
    last jobs: the jobs are small (25 classic_10 games are about 0.15 s) so that wait is
    short, and big enough that a job's round trip (a pickle each way: 0.15 ms of CPU for a
    job of one game, docs/testing.md) costs nothing next to its games."""
    return max(1, min(25, games // (workers * 8)))


def _jobs(variant: str, games: int, players: int | None, policy: str, seed: int, workers: int,
          chunk: int | None) -> list[Job]:
    size = chunk or chunk_size(games, workers)
    return [Job(variant, part, players, policy) for part in chunks(range(seed, seed + games), size)]


def _done(work: Callable[[Job], T], jobs: list[Job], workers: int) -> Iterator[tuple[Job, T]]:
    """Each job and what `work` made of it, as the jobs are done (over `workers` processes)."""
    if workers <= 1:
        for job in jobs:
            yield job, work(job)
        return
    # the ruleset and its sims' class (their module imported) before the workers start: forked,
    # they begin with both instead of each importing the sims' module for its first game
    first = jobs[0]
    _sims_class(_ruleset(first.variant).spec.ruleset, first.policy)
    with ProcessPoolExecutor(max_workers=workers, initializer=_worker_start) as pool:
        futures = {pool.submit(work, job): job for job in jobs}
        for future in as_completed(futures):
            yield futures[future], future.result()


def run(variant: str, games: int, *, players: int | None = None, policy: str = "default", seed: int = 1,
        workers: int = 1, chunk: int | None = None, progress: Callable[[int], None] | None = None) -> list[GameResult]:
    """`games` games with seeds seed, seed+1, …; results in seed order.  `progress(n)` is
    called as each chunk of n games comes back; `chunk` defaults to `chunk_size`."""
    results: list[GameResult] = []
    for job, part in _done(run_job, _jobs(variant, games, players, policy, seed, workers, chunk), workers):
        results += part
        if progress:
            progress(len(job.seeds))
    return sorted(results, key=lambda r: r.seed)


def tally(variant: str, games: int, *, players: int | None = None, policy: str = "default", seed: int = 1,
          workers: int = 1, chunk: int | None = None, progress: Callable[[int], None] | None = None) -> Tally:
    """`run`'s games summed up by the workers (`tianshen simulate`): the jobs' tallies merged
    in seed order, so `report` is `summarize` of `run`'s results byte for byte."""
    parts: list[tuple[int, Tally]] = []
    for job, part in _done(tally_job, _jobs(variant, games, players, policy, seed, workers, chunk), workers):
        parts.append((job.seeds[0], part))
        if progress:
            progress(len(job.seeds))
    total = Tally()
    for _, part in sorted(parts, key=lambda first_part: first_part[0]):
        total.merge(part)
    return total
