"""Benchmark: whole rehearsals per variant — wall time per game, engine steps per second
and peak memory.  Prints figures; asserts nothing.

    .venv/bin/python bench/rehearsal.py [games-per-variant]
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc

from tianshen.sim.rehearsal import rehearse
from tianshen.store import Store


def main(games: int) -> None:
    print(f"{'variant':<12} {'games':>5} {'s/game':>8} {'steps/s':>8} {'peak MiB':>9}  winners")
    for variant in ("classic_8", "classic_10", "classic_13"):
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{tmp}/bench.db"
            tracemalloc.start()
            t0 = time.perf_counter()
            winners: dict[str, int] = {}
            for seed in range(1, games + 1):
                result = rehearse(variant, seed, url)
                winners[result.winner or "none"] = winners.get(result.winner or "none", 0) + 1
            elapsed = time.perf_counter() - t0
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            store = Store(url)
            steps = sum(len(store.events(g.id)) for g in store.list_games())
            store.close()
        print(f"{variant:<12} {games:>5} {elapsed / games:>8.3f} {steps / elapsed:>8.0f} "
              f"{peak / 2**20:>9.1f}  {winners}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
