"""Simulated players.  `sims_for(family, …)` picks the right ones for a ruleset family.

Every family's sims implement `Sims`: `act(state, at, thread)` writes what the players
would write at this point of the game; `thread(key)` is the forum id of a game thread
(`"main"`, `"vote:2"`…) or None when it is not open yet; `know(spec)` hands them the
variant as the game's ruleset holds it (a Monte Carlo game does; elsewhere they load it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

from tianshen.core.model import GameState
from tianshen.core.ruleset import Seat
from tianshen.core.spec import RulesetSpec
from tianshen.forum.base import PlayerSide

ThreadLookup = Callable[[str], str | None]
T = TypeVar("T")


def pick(rng: random.Random, seq: Sequence[T]) -> T:
    """`rng.choice(seq)`, the same draw: CPython's choice takes getrandbits of n's bit length
    until it is below n.  Without choice's two calls a draw (the sims make about 500 draws a
    game, pinned by the golden games; tests/test_sim_draws.py holds it to rng.choice)."""
    n = len(seq)
    if not n:
        raise IndexError("Cannot choose from an empty sequence")
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return seq[r]


def in_draw_order(rng: random.Random, seq: Sequence[T]) -> list[T]:
    """`rng.sample(seq, len(seq))`, the same draws and order: CPython's sample of the whole
    sequence always takes its pool branch (the pool is never larger than its set size), each
    place's index drawn as `_randbelow` draws it (getrandbits of the bit length of what is left
    until below it; tests/test_sim_draws.py holds it to sample).  Without sample's checks (an
    ABC isinstance) and its calls of `_randbelow`, a voter each."""
    pool = list(seq)
    out = []
    draw = rng.getrandbits
    for m in range(len(pool), 0, -1):
        k = m.bit_length()
        j = draw(k)
        while j >= m:
            j = draw(k)
        out.append(pool[j])
        pool[j] = pool[m - 1]
    return out


def unseeded() -> random.Random:
    """A `random.Random` seeded before each use (the sims' `_rng`), made without a seeding:
    `Random(0)` runs the Mersenne Twister's seeding once for nothing (about 36,000 instructions
    a game, a third of a percent), `Random()` reads os.urandom.  Until seeded it draws zeros
    and has no `getstate`: draw from it only after `seed`, which sets the whole state."""
    return random.Random.__new__(random.Random)


def pick_index(rng: random.Random, n: int) -> int:
    """The index `pick` draws from a sequence of n > 0 items (the same draws)."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


# policy names: `default` is each family's own sims (rehearsals use them); other policies play
# better where a family names them (core.family.Family.policies, docs/simulate.md) and fall
# back to the default sims elsewhere.
def policies() -> list[str]:
    from tianshen.rules import families

    return ["default", *sorted({p for f in families().values() for p in f.policies})]


def check_in(board: PlayerSide, state: GameState, main_thread: str, already: set[str]) -> None:
    """签到 (000 §5.2, 001 §3.2, 003 §7.2): every living player who has not yet replies once
    to the player list; `already` remembers who posted, so nobody posts twice."""
    done = set(state.data["checkin"]["done"])
    for p in state.players:
        if p.alive and p.name not in done and p.name not in already:
            already.add(p.name)
            board.post(p.name, main_thread, "签到")


class Sims(Protocol):
    def act(self, state: GameState, at: datetime, thread: ThreadLookup) -> None: ...

    def know(self, spec: RulesetSpec) -> None:
        """Read `spec` for its variant (the game's ruleset's own), not a spec loaded again."""


class DaemonPlayers:
    """The simulated players `tianshen run` gives the daemon (service.daemon.SimulatedPlayers)."""

    def seats(self, n: int) -> list[Seat]:
        from tianshen.sim.seats import default_seats

        return default_seats(n)

    def for_game(self, family: str, board: PlayerSide, gm_account: str, seed: int) -> Sims:
        return sims_for(family, board, gm_account, seed)


class Finishing:
    """Sims that say they are finished once they acted: every living player PMs "/done" at
    night, and in the vote once the vote thread is open (after voting), so the phase ends
    early (DECISIONS §0.5) instead of at its deadline.  The live-forum tests play this way:
    their games move by what the players do, not by how fast the machine is."""

    def __init__(self, sims: Sims, board: PlayerSide, gm_account: str) -> None:
        self.sims, self.board, self.gm = sims, board, gm_account

    def know(self, spec: RulesetSpec) -> None:
        self.sims.know(spec)

    def act(self, state: GameState, at: datetime, thread: ThreadLookup) -> None:
        self.sims.act(state, at, thread)
        ph = state.phase
        if ph.kind == "night" or (ph.kind == "day" and ph.step == "vote" and thread(f"vote:{ph.number}")):
            for p in state.players:
                if p.alive:
                    self.board.pm(p.name, self.gm, "/done", subject="完成")


def sims_class(family: str, policy: str = "default") -> Callable[[PlayerSide, str, int], Sims]:
    """The class of a ruleset family's simulated players playing by `policy` (a clear
    ValueError for an unknown policy or family)."""
    from tianshen.rules import families

    if policy not in policies():
        raise ValueError(f"unknown policy '{policy}'; policies: {', '.join(policies())}")
    if family not in families():
        raise ValueError(f"no simulated players for ruleset family '{family}'")
    return families()[family].sims_class(policy)  # type: ignore[no-any-return]


def sims_for(family: str, board: PlayerSide, gm_account: str, seed: int, policy: str = "default",
             done: bool = False, spec: RulesetSpec | None = None) -> Sims:
    """The simulated players of a ruleset family, playing by `policy`; with `done`, they
    also say when they are finished (`Finishing`).  `spec`: the variant as the game's ruleset
    holds it, read by the sims instead of loading it again (a Monte Carlo run plays thousands
    of games; a variant file given by path may share its id with a shipped one)."""
    sims: Sims = sims_class(family, policy)(board, gm_account, seed)
    if spec is not None:
        sims.know(spec)
    return Finishing(sims, board, gm_account) if done else sims
