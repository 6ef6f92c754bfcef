"""Benchmark (issue 15): the driver's database cost — rehearsals per second on SQLite and
transactions per engine step (every commit of every connection is counted).  Prints figures;
asserts nothing.

    .venv/bin/python bench/transactions.py [games] [variant]
"""

from __future__ import annotations

import sys
import tempfile
import time

from sqlalchemy import event
from sqlalchemy.engine import Engine

from tianshen.sim.rehearsal import rehearse
from tianshen.store import Store

commits = [0]


@event.listens_for(Engine, "commit")
@event.listens_for(Engine, "rollback")  # a read-only transaction ends in a rollback: counted too
def _count(_conn: object) -> None:
    commits[0] += 1


def main(games: int, variant: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        store = Store(url, durable=False)  # what `rehearse` opens: WAL, no fsync per step
        store.upgrade()
        rehearse(variant, 0, url, store=store)  # warm up: imports, statement caches
        commits[0] = 0
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for seed in range(1, games + 1):
            rehearse(variant, seed, url, store=store)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        done = commits[0]
        timed = [g for g in store.list_games() if "-seed0-" not in g.name]  # not the warm-up game
        steps = sum(len(store.events(g.id)) for g in timed)
        sent = sum(len(store.outbox(g.id)) for g in timed)
        store.close()
    print(f"{variant}: {games} rehearsals on SQLite, {steps} steps, {sent} messages sent")
    print(f"  {games / wall:.1f} games/s wall, {games / cpu:.1f} games/s CPU ({cpu / games * 1000:.0f} ms CPU a game)")
    print(f"  {done} transactions: {done / steps:.2f} per step, {done / games:.0f} per game")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20, sys.argv[2] if len(sys.argv) > 2 else "classic_10")
