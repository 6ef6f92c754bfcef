"""Benchmark: whole rehearsals per variant beside the pure engine, in the same run (issues
26 and 37) — CPU per game of a rehearsal (the driver, the store, the memory board) and of
the engine alone (`sim.montecarlo.Game`: the same variant and seeds folded in place, no
store), their ratio (and the ratio of their medians, `med`: a full collection of Python's
GC, tens of ms, lands in one game of either kind and moves the ratio of the sums by a
fifth), statements and transactions a rehearsal, engine steps per second, and
the peak memory of one more rehearsal (traced apart: tracemalloc slows what it traces).
The statements are counted on the same games played once more, not on the timed ones: the
counting listeners (the engine's cursor events) cost about a twentieth of a rehearsal.
First the next deadlines worked out per stored event of a classic_8 rehearsal (issue 35).
Prints figures; asserts nothing.

    .venv/bin/python bench/rehearsal.py [games-per-variant] [database url]

Without a URL each variant plays in a new SQLite file; a PostgreSQL URL is used as it is
(its games stay there; each run's names are new).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import tracemalloc

from _counting import counts

from tianshen.core.ruleset import Ruleset
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.sim.rehearsal import rehearse
from tianshen.specs import available_variants, load_spec
from tianshen.store import Store

# every shipped variant, at each of its player counts (n_lives: 5, 6, 7): a new one needs no edit here
VARIANTS = [(v, n if len(load_spec(v).player_counts) > 1 else None)
            for v in available_variants() for n in (load_spec(v).player_counts or [load_spec(v).players])]


def deadline_calls(variant: str = "classic_8") -> None:
    """Next deadlines worked out per stored event in one rehearsal (issue 35: at most 1.2;
    `next_deadline` reads the state's own answer, `_next_deadline` is the work)."""
    calls = [0]
    asked = Ruleset._next_deadline

    def counted(self, state):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return asked(self, state)

    Ruleset._next_deadline = counted  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{tmp}/calls.db"
            result = rehearse(variant, 1, url)
            store = Store(url)
            events = len(store.events(result.game_id))
            store.close()
    finally:
        Ruleset._next_deadline = asked  # type: ignore[method-assign]
    print(f"{variant}: {calls[0]} next deadlines worked out for {events} stored events ({calls[0] / events:.2f} per event)")


def engine_game(variant: str, players: int | None, seed: int) -> float:
    """CPU seconds of one pure-engine game (in place, simulated players, no store)."""
    ruleset = load_ruleset(variant)
    t0 = time.process_time()
    Game(ruleset, seed, players or ruleset.spec.players).play()
    return time.process_time() - t0


def one_variant(variant: str, players: int | None, games: int, url: str) -> str:
    store = Store(url, durable=False)  # what `rehearse` opens: WAL on SQLite, no fsync per step
    store.upgrade()
    run = time.time_ns()
    name = f"{variant}-{players}-{run}"
    rehearse(variant, 0, url, store=store, players=players, name=f"warm-{name}")  # imports, statement caches
    engine_game(variant, players, 0)
    engine = cpu = elapsed = 0.0
    engine_ms: list[float] = []
    rehearsal_ms: list[float] = []
    statements = transactions = 0
    winners: dict[str, int] = {}
    ids: list[int] = []
    for seed in range(1, games + 1):  # turn about, so the load of a shared machine weighs on both alike
        engine_ms.append(engine_game(variant, players, seed))
        engine += engine_ms[-1]
        with counts.paused():  # the timed rehearsal runs without the counting listeners
            t0, cpu0 = time.perf_counter(), time.process_time()
            result = rehearse(variant, seed, url, store=store, players=players, name=f"{name}-{seed}")
            rehearsal_ms.append(time.process_time() - cpu0)
            elapsed, cpu = elapsed + time.perf_counter() - t0, cpu + rehearsal_ms[-1]
        ids.append(result.game_id)
        winners[result.winner or "none"] = winners.get(result.winner or "none", 0) + 1
    for seed in range(1, games + 1):  # the same games again, their statements counted
        counts.reset()
        rehearse(variant, seed, url, store=store, players=players, name=f"counted-{name}-{seed}")
        statements, transactions = statements + counts.statements, transactions + counts.transactions
    tracemalloc.start()
    rehearse(variant, 1, url, store=store, players=players, name=f"traced-{name}")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    steps = sum(len(store.events(g)) for g in ids)
    store.close()
    label = f"{variant}/{players}p" if players else variant
    return (f"{label:<16} {games:>5} {cpu / games * 1000:>7.1f} {engine / games * 1000:>7.1f} {cpu / engine:>6.1f} "
            f"{statistics.median(rehearsal_ms) / statistics.median(engine_ms):>5.1f} {steps / elapsed:>8.0f} {statements / games:>6.0f} {transactions / games:>5.0f} "
            f"{peak / 2**20:>9.1f}  {winners}")


def main(games: int, url: str | None) -> None:
    print(f"{'variant':<16} {'games':>5} {'CPU ms':>7} {'engine':>7} {'ratio':>6} {'med':>5} {'steps/s':>8} {'stmts':>6} "
          f"{'tx':>5} {'peak MiB':>9}  winners")
    for variant, players in VARIANTS:
        with tempfile.TemporaryDirectory() as tmp:
            print(one_variant(variant, players, games, url or f"sqlite:///{tmp}/bench.db"), flush=True)


if __name__ == "__main__":
    deadline_calls()
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5, sys.argv[2] if len(sys.argv) > 2 else None)
