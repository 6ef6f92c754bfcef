"""The simulated players' work (issue 37): their draws are pinned by the golden games, so what
is made cheaper is what they do around the draws.  These tests count that work."""

from __future__ import annotations

import random

import pytest

from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def _watch(rng: random.Random, log: list[str]) -> None:
    """Log each seeding of `rng` ("seed") and each draw from it ("draw")."""
    seed, bits, unit = rng.seed, rng.getrandbits, rng.random

    def seeding(s: object) -> None:
        log.append("seed")
        seed(s)

    def drawing_bits(k: int) -> int:
        log.append("draw")
        return bits(k)

    def drawing() -> float:
        log.append("draw")
        return unit()

    rng.seed, rng.getrandbits, rng.random = seeding, drawing_bits, drawing  # type: ignore[method-assign]


@pytest.mark.parametrize("players", [5, 6, 7])
def test_n_lives_sims_seed_only_for_draws(players: int) -> None:
    """A seed (sha512 and a Mersenne Twister start, about half of a whole choice's cost) is
    made only for a purpose that draws: a player with no day privilege, or whose cards
    cannot be reordered, draws nothing and is not seeded."""
    for seed in range(4):
        game = Game(load_ruleset("n_lives"), seed, players)
        log: list[str] = []
        _watch(game.sims._random, log)  # type: ignore[attr-defined]
        game.play()
        assert log.count("seed") > 10
        wasted = sum(1 for a, b in zip(log, [*log[1:], "seed"], strict=True) if a == b == "seed")
        assert wasted == 0, f"{wasted} of {log.count('seed')} seeds drew nothing"
