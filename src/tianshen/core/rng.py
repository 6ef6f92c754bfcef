"""The seeded RNG held in the game state (DECISIONS §0.6).

Each draw hashes (seed, draw number), so the state needs only the seed and a counter to
resume: a replay that folds the same inputs makes the same draws, byte for byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

from tianshen.core.model import GameState

T = TypeVar("T")


def below(state: GameState, n: int) -> int:
    """A uniform integer in [0, n); advances the state's draw counter."""
    if n <= 0:
        raise ValueError("n must be positive")
    state.rng_draws += 1
    digest = hashlib.sha256(f"{state.seed}:{state.rng_draws}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % n


def choice(state: GameState, items: Sequence[T]) -> T:
    return items[below(state, len(items))]


def shuffled(state: GameState, items: Sequence[T]) -> list[T]:
    """Fisher–Yates with the state's RNG."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def seed_digest(seed: int) -> str:
    """Published at the start so the forum can check the seed revealed at the end."""
    return hashlib.sha256(str(seed).encode()).hexdigest()[:16]
