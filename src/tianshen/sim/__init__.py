"""Simulated players.  `sims_for(family, …)` picks the right ones for a ruleset family."""

from __future__ import annotations

from tianshen.forum.base import PlayerSide
from tianshen.sim.classic import ClassicSims


def sims_for(family: str, board: PlayerSide, gm_account: str, seed: int) -> ClassicSims:
    """The simulated players of a ruleset family (`classic`, `game_ten`)."""
    if family == "game_ten":
        from tianshen.sim.game_ten import GameTenSims

        return GameTenSims(board, gm_account, seed)
    return ClassicSims(board, gm_account, seed)
