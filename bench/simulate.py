"""Benchmark: `tianshen simulate` throughput — Monte Carlo games per second (wall clock,
over the worker processes) and per CPU second of the workers, per ruleset and policy.
Prints figures; asserts nothing.

    .venv/bin/python bench/simulate.py [games] [workers]
"""

from __future__ import annotations

import os
import resource
import sys
import time

from tianshen.rules import families
from tianshen.sim import montecarlo
from tianshen.specs import available_variants, load_spec

# every shipped variant (at its largest table), then each family's better players on its first
# variant: a new variant or family needs no edit here
RUNS = [(v, max(load_spec(v).player_counts) if load_spec(v).player_counts else None, "default")
        for v in available_variants()]
RUNS += [(next(v for v in available_variants() if load_spec(v).ruleset == name), None, policy)
         for name, family in families().items() for policy in family.policies if policy != "default"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(games: int, workers: int) -> None:
    print(f"{games} games per run, {workers} workers, load average {os.getloadavg()[0]:.1f}")
    print(f"{'variant':<16} {'policy':<8} {'wall s':>7} {'games/s':>8} {'games/CPU s':>12} {'failed':>6}")
    for variant, players, policy in RUNS:
        cpu0, t0 = children_cpu() + time.process_time(), time.perf_counter()
        results = montecarlo.run(variant, games, players=players, policy=policy, workers=workers)
        wall = time.perf_counter() - t0
        cpu = children_cpu() + time.process_time() - cpu0
        failed = sum(1 for r in results if r.error)
        label = f"{variant}/{players}p" if players else variant
        print(f"{label:<16} {policy:<8} {wall:>7.1f} {games / wall:>8.1f} {games / cpu:>12.1f} {failed:>6}", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 1000, int(args[1]) if len(args) > 1 else (os.cpu_count() or 1))
