"""Benchmark: the pure core with simulated players (no database, no forum) — whole games
per second of CPU time, for every ruleset, three ways in the same run:

- `deep copy`: `Ruleset.apply` with the old `GameState.copy` (pydantic `model_copy(deep=True)`);
- `apply`: `Ruleset.apply` with today's structural copy (what the driver and replay use);
- `in place`: `Ruleset.apply_in_place`, no copy at all (what `tianshen simulate` uses).

Each way plays the same seeds.  Every variant of `tianshen rulesets` is played (n_lives at
5, 6 and 7 players).  The last line, from the same run, is bench/reference_classic.py: a
minimal plain-Python classic_10 loop, the yardstick (issue 24 asks >= 1,000 classic_10 games/s
in place and >= 200 for the slowest variant).  Prints figures; asserts nothing.

    .venv/bin/python bench/core_speed.py [games-per-variant]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tianshen.core.model import DeadlineIn, GameState, PmIn, PostIn
from tianshen.core.ruleset import Ruleset
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.specs import available_variants, load_spec

sys.path.insert(0, str(Path(__file__).parent))
import reference_classic  # noqa: E402  (beside this file)


def variants() -> list[tuple[str, int | None]]:
    """Every shipped variant, at each number of players it is played by."""
    out: list[tuple[str, int | None]] = []
    for variant in available_variants():
        spec = load_spec(variant)
        out += [(variant, n) for n in spec.player_counts] if spec.player_counts else [(variant, None)]
    return out


class CopyingGame(Game):
    """Folds with `apply`: one copy of the state per step."""

    def fold(self, event: PmIn | PostIn | DeadlineIn) -> None:
        self.state = self._took(self.ruleset.apply(self.state, event))


def deep_copy(state: GameState) -> GameState:
    return state.model_copy(deep=True)


def one_game(game: type[Game], ruleset: Ruleset, players: int, seed: int) -> tuple[float, int]:
    """(CPU seconds, steps) of one game."""
    t0 = time.process_time()
    played = game(ruleset, seed, players)
    played.play()
    return time.process_time() - t0, len(played.outcomes)


class _DeepCopyingGame(CopyingGame):
    def fold(self, event: PmIn | PostIn | DeadlineIn) -> None:
        fast_copy = GameState.copy
        GameState.copy = deep_copy  # type: ignore[method-assign]
        try:
            super().fold(event)
        finally:
            GameState.copy = fast_copy  # type: ignore[method-assign]


WAYS: tuple[tuple[str, type[Game]], ...] = (("deep copy", _DeepCopyingGame), ("apply", CopyingGame), ("in place", Game))


def main(games: int) -> None:
    """The three ways take turns game by game (same seed), so the load of a shared machine
    weighs on all three alike."""
    print(f"{'variant':<16} {'games':>5} {'steps/game':>10} " + " ".join(f"{name:>10}" for name, _ in WAYS)
          + "  (games per CPU second)")
    slowest = ("", float("inf"))
    for variant, players in variants():
        ruleset = load_ruleset(variant)
        n = players or ruleset.spec.players
        one_game(Game, ruleset, n, 0)  # warm up: imports, the sims' variant data
        cpu = dict.fromkeys((name for name, _ in WAYS), 0.0)
        steps = 0
        for seed in range(1, games + 1):
            for name, way in WAYS:
                seconds, steps_ = one_game(way, ruleset, n, seed)
                cpu[name] += seconds
            steps += steps_
        label = f"{variant}/{players}p" if players else variant
        rates = {name: games / seconds for name, seconds in cpu.items()}
        slowest = min(slowest, (label, rates["in place"]), key=lambda x: x[1])
        print(f"{label:<16} {games:>5} {steps / games:>10.0f} " + " ".join(f"{r:>10.1f}" for r in rates.values()),
              flush=True)
    print(f"slowest ruleset in place: {slowest[0]} at {slowest[1]:.1f} games/s")
    print(f"reference classic_10 (bench/reference_classic.py, plain Python): "
          f"{reference_classic.games_per_second(max(games * 20, 1000)):.0f} games/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
