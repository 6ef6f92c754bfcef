"""Benchmark: the pure core with simulated players (no database, no forum) — whole games
per second of CPU time, for every ruleset, three ways in the same run:

- `deep copy`: `Ruleset.apply` with the old `GameState.copy` (pydantic `model_copy(deep=True)`);
- `apply`: `Ruleset.apply` with today's structural copy (what the driver and replay use);
- `in place`: `Ruleset.apply_in_place`, no copy at all (what `tianshen simulate` uses).

Each way plays the same seeds.  Prints figures; asserts nothing.

    .venv/bin/python bench/core_speed.py [games-per-variant]
"""

from __future__ import annotations

import sys
import time

from tianshen.core.model import DeadlineIn, GameState, PmIn, PostIn
from tianshen.core.ruleset import Ruleset
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game

VARIANTS = (("classic_8", None), ("classic_10", None), ("classic_13", None), ("game_ten", None),
            ("n_lives", 5), ("n_lives", 6), ("n_lives", 7), ("hex_survival_12", None), ("hex_survival_14", None),
            ("butterfly_elder", None))


class CopyingGame(Game):
    """Folds with `apply`: one copy of the state per step."""

    def fold(self, event: PmIn | PostIn | DeadlineIn) -> None:
        self.state = self._took(self.ruleset.apply(self.state, event))


def deep_copy(state: GameState) -> GameState:
    return state.model_copy(deep=True)


def games_per_s(game: type[Game], ruleset: Ruleset, players: int, games: int) -> tuple[float, float]:
    """(games per CPU second, steps per game) over seeds 1…games."""
    steps = 0
    t0 = time.process_time()
    for seed in range(1, games + 1):
        played = game(ruleset, seed, players)
        played.play()
        steps += len(played.outcomes)
    return games / (time.process_time() - t0), steps / games


def main(games: int) -> None:
    fast_copy = GameState.copy
    print(f"{'variant':<16} {'games':>5} {'steps/game':>10} {'deep copy':>10} {'apply':>8} {'in place':>9}"
          f"  (games per CPU second)")
    slowest = ("", float("inf"))
    for variant, players in VARIANTS:
        ruleset = load_ruleset(variant)
        n = players or ruleset.spec.players
        games_per_s(Game, ruleset, n, 1)  # warm up: imports, the sims' variant data
        GameState.copy = deep_copy  # type: ignore[method-assign]
        try:
            old, _ = games_per_s(CopyingGame, ruleset, n, games)
        finally:
            GameState.copy = fast_copy  # type: ignore[method-assign]
        copied, _ = games_per_s(CopyingGame, ruleset, n, games)
        in_place, steps = games_per_s(Game, ruleset, n, games)
        label = f"{variant}/{players}p" if players else variant
        slowest = min(slowest, (label, in_place), key=lambda x: x[1])
        print(f"{label:<16} {games:>5} {steps:>10.0f} {old:>10.1f} {copied:>8.1f} {in_place:>9.1f}", flush=True)
    print(f"slowest ruleset in place: {slowest[0]} at {slowest[1]:.1f} games/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
