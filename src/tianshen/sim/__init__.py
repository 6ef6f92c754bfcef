"""Simulated players.  `sims_for(family, …)` picks the right ones for a ruleset family.

Every family's sims implement `Sims`: `act(state, at, thread)` writes what the players
would write at this point of the game; `thread(key)` is the forum id of a game thread
(`"main"`, `"vote:2"`…) or None when it is not open yet.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from tianshen.core.model import GameState
from tianshen.core.ruleset import Seat
from tianshen.forum.base import PlayerSide

ThreadLookup = Callable[[str], str | None]

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


class DaemonPlayers:
    """The simulated players `tianshen run` gives the daemon (service.daemon.SimulatedPlayers)."""

    def seats(self, n: int) -> list[Seat]:
        from tianshen.sim.rehearsal import default_seats

        return default_seats(n)

    def for_game(self, family: str, board: PlayerSide, gm_account: str, seed: int) -> Sims:
        return sims_for(family, board, gm_account, seed)


def sims_for(family: str, board: PlayerSide, gm_account: str, seed: int, policy: str = "default") -> Sims:
    """The simulated players of a ruleset family, playing by `policy`."""
    from tianshen.rules import families

    if policy not in policies():
        raise ValueError(f"unknown policy '{policy}'; policies: {', '.join(policies())}")
    if family not in families():
        raise ValueError(f"no simulated players for ruleset family '{family}'")
    sims: Sims = families()[family].sims_class(policy)(board, gm_account, seed)
    return sims
