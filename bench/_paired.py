"""Rounds timed back to back against the reference (bench/reference_classic.py): on a machine
whose speed moves from second to second (a VM beside busy neighbours), a round's two halves
see the same speed, and the median of the rounds' ratios is steadier than two long timings."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import reference_classic

REFERENCE_GAMES = 10  # reference games a round (~2 ms each here)


def ratios(rounds: int, games: int, play: Callable[[int], object]) -> tuple[list[float], list[float]]:
    """Each round: `REFERENCE_GAMES` reference games, then `games` calls of `play(seed)` (seeds
    1–30 over and over), both timed in CPU seconds.  Returns (the rounds' ratios of games per
    CPU second, `play` ÷ reference; the reference's games per CPU second in each round)."""
    reference_classic.play(0)
    play(1)  # warm up
    found, reference_rates, seed, ref_seed = [], [], 1, 1
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(REFERENCE_GAMES):
            reference_classic.play(ref_seed)
            ref_seed += 1
        reference_rate = REFERENCE_GAMES / (time.process_time() - t0)
        t0 = time.process_time()
        for _ in range(games):
            play(seed)
            seed = seed % 30 + 1
        found.append(games / (time.process_time() - t0) / reference_rate)
        reference_rates.append(reference_rate)
    return found, reference_rates


def summary(found: list[float]) -> str:
    low, _, high = statistics.quantiles(found, n=4)
    return f"median {statistics.median(found):.4f} (quartiles {low:.4f}–{high:.4f})"
