"""A whole game on the built-in board with simulated players and a virtual clock.

The clock jumps from deadline to deadline; the driver is the same one `run` uses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from tianshen.core.clock import show
from tianshen.core.model import GameState
from tianshen.core.rng import derived_salt
from tianshen.core.ruleset import GameSetup
from tianshen.forum.memory import MemoryBoard, StoredPm, StoredPost
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for
from tianshen.sim.seats import DEFAULT_START, MAX_STEPS, VESTS, default_seats  # noqa: F401  (their old home)
from tianshen.store import Store


class VirtualClock:
    def __init__(self, start: datetime) -> None:
        self.t = start

    def now(self) -> datetime:
        return self.t

    def set(self, t: datetime) -> None:
        if t > self.t:
            self.t = t


@dataclass
class Transcript:
    """What the players saw on the board, in order: with a printer told as the game goes,
    else made when read (issue 37: a rehearsal's CPU is not spent on lines nobody reads),
    each catch-up's part as it was then (its posts' texts as edited by then)."""

    board: MemoryBoard
    printer: Callable[[str], None] | None = None
    _lines: list[str] = field(default_factory=list)
    _post: int = 0
    _pm: int = 0
    _parts: list[tuple[int, int, int]] = field(default_factory=list)  # `board.newest()` at each catch-up not yet read
    _texts: dict[int, str] = field(default_factory=dict)  # the posts' texts as edited up to `_edits`
    _edits: int = 0

    def catch_up(self) -> None:
        if self.printer is None:
            self._parts.append(self.board.newest())
        else:
            self._take(None)

    @property
    def lines(self) -> list[str]:
        parts, self._parts = self._parts, []
        for part in parts:
            self._take(part)
        return self._lines

    def _take(self, part: tuple[int, int, int] | None) -> None:
        """The lines of what was written since the last part (up to `part`, else now)."""
        edits = self.board.edits[self._edits:part[2] if part is not None else None]
        self._texts.update(edits)
        self._edits += len(edits)
        for item in self.board.activity(self._post, self._pm, part[:2] if part is not None else None):
            if isinstance(item, StoredPost):
                self._post = max(self._post, item.id)
                title = self.board.thread_title(item.thread_id)
                head = f"── [{_t(item.posted_at)}] 帖子《{title}》 {item.author}:"
                text = self._texts.get(item.id, item.original_text)
            else:
                assert isinstance(item, StoredPm)
                self._pm = max(self._pm, item.id)
                head = f"── [{_t(item.sent_at)}] 短消息 {item.sender} → {item.recipient}:"
                text = item.text
            line = f"{head}\n{text}\n"
            self._lines.append(line)
            if self.printer:
                self.printer(line)


@lru_cache(maxsize=256)  # a virtual clock stamps many posts and PMs with the same time
def _t(t: datetime) -> str:
    return show(t)  # a rehearsal's game is in the default zone (core.clock, issue 23 item 1)


@dataclass
class RehearsalResult:
    game_id: int
    winner: str | None
    state: GameState
    seen: Transcript

    @property
    def transcript(self) -> list[str]:
        return self.seen.lines


def rehearse(variant: str, seed: int, db_url: str, name: str | None = None,
             printer: Callable[[str], None] | None = None, start: datetime = DEFAULT_START,
             players: int | None = None, store: Store | None = None) -> RehearsalResult:
    """A whole game; `players` for a ruleset played by several numbers (n_lives: 5–7).
    `store`: an open store of `db_url` to play in (many rehearsals share one engine)."""
    clock = VirtualClock(start)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    if store is None:
        store = Store(db_url, durable=False)  # a rehearsal: no fsync per step
        store.upgrade()
    from tianshen.specs import shared_spec

    spec = shared_spec(variant)
    transcript = Transcript(board, printer)
    name = name or _free_name(store, f"{spec.id}-seed{seed}")
    players = players or spec.players
    if not spec.allows(players):
        raise ValueError(f"{spec.id} is played by {', '.join(map(str, spec.player_counts or [spec.players]))} "
                         f"players, not {players}")
    # a rehearsal is no real game: its salt comes from the seed, so it is repeatable (core.rng)
    setup = GameSetup(seats=default_seats(players), seed=seed, salt=derived_salt(seed), start=start)
    # an id or a file (issue 13 item 11); on its own board: no PM names its game, whatever
    # else the database holds
    driver = GameDriver.create(store, forum, name, variant, setup, alone=True, spec=spec)
    driver.trust_cache = True  # the rehearsal's own game: no one else writes it, its state is not read again
    sims = sims_for(spec.ruleset, board, forum.account, seed, spec=driver.ruleset.spec)  # not loaded again
    for _ in range(MAX_STEPS):
        transcript.catch_up()
        state = driver.state()
        deadline = driver.next_deadline(state)
        if deadline is None:
            break
        act_at = min(clock.now() + timedelta(hours=1), deadline.at - timedelta(minutes=1))
        clock.set(act_at)
        sims.act(state, clock.now(), lambda key: driver.sender.thread_id(driver.game_id, key))
        clock.set(deadline.at)
        driver.advance(clock.now())
    else:
        raise RuntimeError(f"the game did not end within {MAX_STEPS} steps")
    transcript.catch_up()
    state = driver.state()
    return RehearsalResult(driver.game_id, state.winner, state, transcript)


def _free_name(store: Store, base: str) -> str:
    n = 1
    while store.game_id(f"{base}-{n}") is not None:
        n += 1
    return f"{base}-{n}"
