"""Benchmark: the pure core with simulated players (no database, no forum) — whole games
per second of CPU time, for every ruleset, two ways in the same run:

- `apply`: `Ruleset.apply`, the state passed in left as it was (what the driver and replay use);
- `in place`: `Ruleset.apply_in_place`, no copy at all (what `tianshen simulate` uses).

Each way plays the same seeds.  Every variant of `tianshen rulesets` is played (n_lives at
5, 6 and 7 players).  The reference, bench/reference_classic.py (a minimal plain-Python
classic_10 loop, the yardstick), is timed first and last in the same run; each variant's line
shows its rate in place ÷ the mean of the two (issue 37: classic_10 >= 0.09, the slowest >= 0.018)
and apply ÷ in place (>= 0.8).  Prints figures; asserts nothing.

    .venv/bin/python bench/core_speed.py [games-per-variant] [variant ...]
    .venv/bin/python bench/core_speed.py --paired [rounds] [variant ...]

`--paired`: the ratio in place ÷ reference of rounds timed back to back (10 reference games,
then 2 of the variant's), its median and quartiles over the rounds: on a machine whose speed
moves from second to second (a VM beside busy neighbours: the reference alone moved from
3,600 to 6,500 games per CPU s between the start and the end of one run), a round's two
halves see the same speed.  Default 300 rounds; classic_10 and n_lives/7p.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from tianshen.core.model import DeadlineIn, GameState, Outcome, PmIn, PostIn
from tianshen.core.ruleset import Ruleset
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.specs import available_variants, load_spec

sys.path.insert(0, str(Path(__file__).parent))
import _paired  # noqa: E402  (beside this file)
import reference_classic  # noqa: E402


def variants() -> list[tuple[str, int | None]]:
    """Every shipped variant, at each number of players it is played by."""
    out: list[tuple[str, int | None]] = []
    for variant in available_variants():
        spec = load_spec(variant)
        out += [(variant, n) for n in spec.player_counts] if spec.player_counts else [(variant, None)]
    return out


class CopyingGame(Game):
    """Folds with `apply`, as the driver and a replay do: the state passed in is left as it
    was, and the caller keeps the new one only (a `Game` keeps every outcome, which costs
    nothing in place, where they all share one state, but would keep a state a step alive
    here, which no caller of `apply` does)."""

    def fold(self, event: PmIn | PostIn | DeadlineIn) -> None:
        self.state = self._took(self.ruleset.apply(self.state, event))

    def _took(self, outcome: Outcome) -> GameState:
        self.steps = getattr(self, "steps", 0) + 1
        if outcome.posts:  # as `Game._took`: most inputs post nothing (no generator a step)
            self.threads.update(post.thread for post in outcome.posts)
        return outcome.state


def one_game(game: type[Game], ruleset: Ruleset, players: int, seed: int) -> tuple[float, int]:
    """(CPU seconds, steps) of one game."""
    t0 = time.process_time()
    played = game(ruleset, seed, players)
    played.play()
    return time.process_time() - t0, getattr(played, "steps", len(played.outcomes))


WAYS: tuple[tuple[str, type[Game]], ...] = (("apply", CopyingGame), ("in place", Game))


def main(games: int, only: list[str]) -> None:
    """The two ways take turns game by game (same seed), so the load of a shared machine
    weighs on both alike; which goes first alternates seed by seed, since the first to play
    a seed reads its texts first (the vote posts' and PMs' readings are kept, `lru_cache`):
    `apply` always first paid them all, about 0.05–0.1 of its ratio.  The reference is timed before and after the variants, and the
    ratios use the mean of the two (a shared machine's speed moves during a run)."""
    print(f"load average {os.getloadavg()[0]:.1f}")
    ref_games = max(games * 20, 1000)
    before = reference_classic.games_per_second(ref_games)
    rows: list[tuple[str, int, float, dict[str, float]]] = []
    for variant, players in variants():
        label = f"{variant}/{players}p" if players else variant
        if only and variant not in only and label not in only:
            continue
        ruleset = load_ruleset(variant)
        n = players or ruleset.spec.players
        one_game(Game, ruleset, n, 0)  # warm up: imports, the sims' variant data
        cpu = dict.fromkeys((name for name, _ in WAYS), 0.0)
        steps = 0
        for seed in range(1, games + 1):
            for name, way in WAYS if seed % 2 else WAYS[::-1]:
                seconds, steps_ = one_game(way, ruleset, n, seed)
                cpu[name] += seconds
            steps += steps_
        rows.append((label, steps, games, {name: games / seconds for name, seconds in cpu.items()}))
    after = reference_classic.games_per_second(ref_games)
    reference = (before + after) / 2
    print(f"reference classic_10 (bench/reference_classic.py, plain Python): {before:.0f} games/CPU s before the "
          f"variants, {after:.0f} after, mean {reference:.0f}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'variant':<16} {'games':>5} {'steps/game':>10} " + " ".join(f"{name:>10}" for name, _ in WAYS)
          + f" {'÷ ref':>7} {'apply ÷':>8}  (games per CPU second)")
    for label, steps, played, rates in rows:
        print(f"{label:<16} {played:>5} {steps / played:>10.0f} " + " ".join(f"{r:>10.1f}" for r in rates.values())
              + f" {rates['in place'] / reference:>7.4f} {rates['apply'] / rates['in place']:>8.2f}")
    if rows:
        label, _, _, rates = min(rows, key=lambda r: r[3]["in place"])
        print(f"slowest in place: {label} at {rates['in place']:.1f} games/CPU s, "
              f"{rates['in place'] / reference:.4f} of the reference")


def paired(rounds: int, only: list[str]) -> None:
    """In place ÷ reference per round of the two timed back to back, median and quartiles."""
    print(f"load average {os.getloadavg()[0]:.1f}; {rounds} rounds of 10 reference games and 2 of the variant's")
    for variant, players in variants():
        label = f"{variant}/{players}p" if players else variant
        if variant not in only and label not in only:
            continue
        ruleset = load_ruleset(variant)
        n = players or ruleset.spec.players
        found, _ = _paired.ratios(rounds, 2, lambda seed, ruleset=ruleset, n=n: one_game(Game, ruleset, n, seed))
        print(f"{label:<16} in place ÷ ref: {_paired.summary(found)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--paired"]:
        rest = sys.argv[2:]
        count = int(rest.pop(0)) if rest and rest[0].isdigit() else 300
        paired(count, rest or ["classic_10", "n_lives/7p"])
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 50, sys.argv[2:])
