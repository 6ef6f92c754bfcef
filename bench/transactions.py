"""Benchmark (issues 15, 26): the driver's database cost — rehearsals per second on SQLite,
CPU per game, statements and transactions per game and per engine step (every statement and
every commit of every connection is counted).  Prints figures; asserts nothing.

    .venv/bin/python bench/transactions.py [games] [variant] [database url]
"""

from __future__ import annotations

import sys
import tempfile
import time

from _counting import counts

from tianshen.sim.rehearsal import rehearse
from tianshen.store import Store


def main(games: int, variant: str, url: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = url or f"sqlite:///{tmp}/bench.db"
        store = Store(url, durable=False)  # what `rehearse` opens: WAL, no fsync per step
        store.upgrade()
        run = time.time_ns()  # new names: no search for a free one (a PostgreSQL database keeps its games)
        rehearse(variant, 0, url, store=store, name=f"warm-{run}")  # imports, statement caches
        counts.reset()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        ids = [rehearse(variant, seed, url, store=store, name=f"{variant}-{run}-{seed}").game_id
               for seed in range(1, games + 1)]
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        done, statements = counts.transactions, counts.statements
        steps = sum(len(store.events(g)) for g in ids)
        sent = sum(len(store.outbox(g)) for g in ids)
        store.close()
    print(f"{variant}: {games} rehearsals on {url.split(':')[0]}, {steps} steps, {sent} messages sent")
    print(f"  {games / wall:.1f} games/s wall, {cpu / games * 1000:.0f} ms CPU a game")
    print(f"  {statements / games:.0f} statements and {done / games:.0f} transactions a game "
          f"({statements / steps:.2f} and {done / steps:.2f} per step)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20, sys.argv[2] if len(sys.argv) > 2 else "classic_10",
         sys.argv[3] if len(sys.argv) > 3 else None)
