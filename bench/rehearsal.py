"""Benchmark: whole rehearsals per variant — wall time and CPU per game, engine steps per
second, statements and transactions per game (issue 26) and peak memory; first the
`next_deadline` calls per stored event of a classic_8 rehearsal (issue 35).  Prints figures;
asserts nothing.

    .venv/bin/python bench/rehearsal.py [games-per-variant]
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc

from _counting import counts

from tianshen.core.ruleset import Ruleset
from tianshen.sim.rehearsal import rehearse
from tianshen.store import Store

VARIANTS = (("classic_8", None), ("classic_10", None), ("classic_13", None), ("game_ten", None),
            ("n_lives", 5), ("n_lives", 6), ("n_lives", 7), ("hex_survival_12", None), ("hex_survival_14", None),
            ("butterfly_elder", None))


def deadline_calls(variant: str = "classic_8") -> None:
    """`next_deadline` calls per stored event in one rehearsal (issue 35: at most 1.2)."""
    calls = [0]
    asked = Ruleset.next_deadline

    def counted(self, state):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return asked(self, state)

    Ruleset.next_deadline = counted  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{tmp}/calls.db"
            result = rehearse(variant, 1, url)
            store = Store(url)
            events = len(store.events(result.game_id))
            store.close()
    finally:
        Ruleset.next_deadline = asked  # type: ignore[method-assign]
    print(f"{variant}: {calls[0]} next_deadline calls for {events} stored events ({calls[0] / events:.2f} per event)")


def main(games: int) -> None:
    print(f"{'variant':<16} {'games':>5} {'s/game':>8} {'CPU ms':>7} {'steps/s':>8} {'stmts':>6} {'tx':>5} "
          f"{'peak MiB':>9}  winners")
    for variant, players in VARIANTS:
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{tmp}/bench.db"
            tracemalloc.start()
            counts.reset()
            t0, cpu0 = time.perf_counter(), time.process_time()
            winners: dict[str, int] = {}
            for seed in range(1, games + 1):
                result = rehearse(variant, seed, url, players=players)
                winners[result.winner or "none"] = winners.get(result.winner or "none", 0) + 1
            elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            statements, transactions = counts.statements, counts.transactions
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            store = Store(url)
            steps = sum(len(store.events(g.id)) for g in store.list_games())
            store.close()
        label = f"{variant}/{players}p" if players else variant
        print(f"{label:<16} {games:>5} {elapsed / games:>8.3f} {cpu / games * 1000:>7.0f} {steps / elapsed:>8.0f} "
              f"{statements / games:>6.0f} {transactions / games:>5.0f} {peak / 2**20:>9.1f}  {winners}")


if __name__ == "__main__":
    deadline_calls()
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
