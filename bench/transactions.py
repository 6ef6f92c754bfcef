"""Benchmark (issues 15, 26, 37): the driver's database cost — rehearsals per second on SQLite,
CPU per game, statements and transactions per game and per engine step (every statement and
every commit of every connection is counted), the rows each kind of statement writes, and
the inputs of each kind with the outbox rows they made.  Prints figures; asserts nothing.

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
        events = [e for g in ids for e in store.events(g)]
        steps = len(events)
        outbox = [(g, o) for g in ids for o in store.outbox(g)]
        sent = len(outbox)
        kinds = _per_kind(ids, store, outbox)
        store.close()
    print(f"{variant}: {games} rehearsals on {url.split(':')[0]}, {steps} steps, {sent} messages sent")
    print(f"  {games / wall:.1f} games/s wall, {cpu / games * 1000:.0f} ms CPU a game")
    print(f"  {statements / games:.0f} statements and {done / games:.0f} transactions a game "
          f"({statements / steps:.2f} and {done / steps:.2f} per step)")
    print("  rows a game (statements) by statement and table (an UPDATE or DELETE: its parameter sets)")
    for what, rows in sorted(counts.rows.items(), key=lambda kv: -kv[1]):
        print(f"    {what:<22} {rows / games:6.1f} ({counts.writes[what] / games:.1f})")
    print("  inputs a game by kind: events (outbox rows each made)")
    for kind, (n, out) in sorted(kinds.items(), key=lambda kv: -kv[1][0]):
        print(f"    {kind:<10} {n / games:6.1f} ({out / max(n, 1):.2f} each)")


def _per_kind(ids: list[int], store: Store, outbox: list) -> dict[str, tuple[int, int]]:
    """event kind -> (events, outbox rows they made), from the default keys `name:seq:k`."""
    kinds: dict[str, list[int]] = {}
    of: dict[tuple[int, int], str] = {}
    for g in ids:
        for e in store.events(g):
            of[(g, e.seq)] = e.kind
            kinds.setdefault(e.kind, [0, 0])[0] += 1
    for g, o in outbox:
        parts = o.key.rsplit(":", 2)
        kind = of.get((g, int(parts[1]))) if len(parts) == 3 and parts[1].isdigit() else None
        kinds.setdefault(kind or "other", [0, 0])[1] += 1
    return {k: (v[0], v[1]) for k, v in kinds.items()}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20, sys.argv[2] if len(sys.argv) > 2 else "classic_10",
         sys.argv[3] if len(sys.argv) > 3 else None)
