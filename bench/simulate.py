"""Benchmark: `tianshen simulate` throughput — Monte Carlo games per second (wall clock,
over the worker processes) and per CPU second of the workers, per ruleset and policy.
Prints figures; asserts nothing.

    .venv/bin/python bench/simulate.py [games] [workers]
    .venv/bin/python bench/simulate.py --parts [games] [variant[/players] …]
    .venv/bin/python bench/simulate.py --paired [rounds] [variant[/players]]

`--paired`: the issue's goal (100,000 classic_10 games in 60 s on 2 cores) beside the same-run
reference (bench/reference_classic.py).  Each round times 10 reference games, then 2 games as a
worker plays them (`Tally.add(montecarlo.play(…))`, the worker's collector), back to back; the
median of the rounds' ratios, worker ÷ reference, is the figure (default 300 rounds).  The goal
was set where the reference played 8,300 games per CPU s (`ISSUE_REFERENCE`): there, 100,000
games in 60 s on 2 cores are 833 games per CPU s, a ratio of 0.100.  It also runs
`tianshen simulate` once for a few games to find a run's fixed CPU (imports, the report) and
prints 100,000 games' wall time on 2 cores, at this machine's speed and at the issue's.

`--parts`: where a worker's CPU goes, in one process, without a profiler: a game as a worker
plays it (`montecarlo.play`: setup, the loop, the sims, the engine, the report's `extract`),
each part timed where it is called: the engine's setup (`Ruleset.setup`), the engine (each
fold in place and each next deadline), the sims (`act`, with the PMs and posts they write)
and `extract`; the loop (and `Game.__init__`'s own work) is what is left.  The round of
three with the least whole, µs a game.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tianshen.rules import families
from tianshen.sim import montecarlo
from tianshen.sim.report import Tally
from tianshen.specs import available_variants, load_spec

sys.path.insert(0, str(Path(__file__).parent))
import _paired  # noqa: E402  (beside this file)

ISSUE_REFERENCE = 8_300  # the reference's games per CPU s where issue 37 set its goals
GOAL_GAMES, GOAL_SECONDS, GOAL_CORES = 100_000, 60, 2

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


def parts(variant: str, players: int | None, games: int) -> dict[str, float]:
    """µs a game of each part as a worker plays `games` games (the round of three with the
    least whole): each part timed where it is called, the cost of the timing itself (measured
    on a call that does nothing: in all, and between its clock reads) taken off."""
    ruleset = montecarlo._ruleset(variant)
    clock = time.process_time_ns
    spent: dict[str, int] = {}
    calls: dict[str, int] = {}

    def timed(name: str, f):  # type: ignore[no-untyped-def]
        def call(*args, **kwargs):  # type: ignore[no-untyped-def]
            t = clock()
            try:
                return f(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0) + clock() - t
                calls[name] = calls.get(name, 0) + 1
        return call

    sims = type(montecarlo.Game(ruleset, 1, players or ruleset.spec.players).sims)
    originals = [(ruleset, "setup"), (ruleset, "apply_in_place"), (ruleset, "next_deadline"), (sims, "act"),
                 (montecarlo, "extract")]
    names = ["setup", "engine", "engine", "sims", "extract"]
    saved = [getattr(owner, attr) for owner, attr in originals]
    for (owner, attr), name, f in zip(originals, names, saved, strict=True):
        setattr(owner, attr, timed(name, f))
    nothing = timed("nothing", lambda: None)
    montecarlo._worker_start()
    best: dict[str, float] = {}
    try:
        for _ in range(3):
            spent.clear()
            calls.clear()
            t = clock()
            for _ in range(10_000):
                nothing()
            full = (clock() - t) / 10_000  # ns a timed call of nothing costs, in all
            inner = spent["nothing"] / 10_000  # of which between its clock reads
            t = clock()
            for seed in range(1, games + 1):
                montecarlo.play(ruleset, seed, players)
            whole = clock() - t
            found = {}
            for name in ("setup", "engine", "sims", "extract"):
                found[name] = (spent.get(name, 0) - calls.get(name, 0) * inner) / games / 1000
            timings = sum(calls.get(n, 0) for n in ("setup", "engine", "sims", "extract"))
            found["whole"] = (whole - timings * full) / games / 1000  # less the timing itself
            found["loop"] = found["whole"] - sum(found[n] for n in ("setup", "engine", "sims", "extract"))
            if found["whole"] < best.get("whole", float("inf")):
                best = found
    finally:
        for owner, attr in originals:
            if owner is ruleset:
                delattr(ruleset, attr)  # the class's method again
        sims.act = saved[3]
        montecarlo.extract = saved[4]
    return best


def main_parts(games: int, variants: list[str]) -> None:
    print(f"{games} games a round, load average {os.getloadavg()[0]:.1f}; µs a game and share of the whole")
    for item in variants or ["classic_10"]:
        variant, _, players = item.partition("/")
        found = parts(variant, int(players) if players else None, games)
        shares = "  ".join(f"{name} {found[name]:.0f} ({100 * found[name] / found['whole']:.1f} %)"
                           for name in ("setup", "engine", "sims", "loop", "extract"))
        print(f"{item:<14} whole {found['whole']:.0f} µs ({1e6 / found['whole']:.0f} games per CPU s): {shares}",
              flush=True)


def run_cpu(variant: str, players: int | None, games: int) -> float:
    """CPU seconds (its own and its workers') of one `tianshen simulate` of `games` games."""
    before = children_cpu()
    with tempfile.TemporaryDirectory() as out:
        command = [str(Path(sys.executable).parent / "tianshen"), "simulate", "--ruleset", variant, "--games", str(games),
                   "--workers", str(GOAL_CORES), "--out", out]
        subprocess.run(command + (["--players", str(players)] if players else []), check=True,
                       stdout=subprocess.DEVNULL)
    return children_cpu() - before


def main_paired(rounds: int, item: str) -> None:
    variant, _, count = item.partition("/")
    players = int(count.rstrip("p")) if count else None
    ruleset = montecarlo._ruleset(variant)
    montecarlo._worker_start()
    tally = Tally()
    print(f"load average {os.getloadavg()[0]:.1f}; {rounds} rounds of 10 reference games and 2 of a worker's")
    found, reference_rates = _paired.ratios(rounds, 2, lambda seed: tally.add(montecarlo.play(ruleset, seed, players)))
    ratio, here = statistics.median(found), statistics.median(reference_rates)
    goal = GOAL_GAMES / (GOAL_SECONDS * GOAL_CORES) / ISSUE_REFERENCE
    print(f"{item}: a worker's game ÷ reference {_paired.summary(found)}; goal ≥ {goal:.3f} "
          f"({GOAL_GAMES:,} games in {GOAL_SECONDS} s on {GOAL_CORES} cores where the reference plays "
          f"{ISSUE_REFERENCE:,} games per CPU s)")
    small = 400
    fixed = max(0.0, run_cpu(variant, players, small) - small / (ratio * here))
    for label, rate in (("here", here), ("at the issue's reference", ISSUE_REFERENCE)):
        games_cpu = GOAL_GAMES / (ratio * rate)
        wall = games_cpu / GOAL_CORES + fixed * here / rate
        print(f"{GOAL_GAMES:,} games {label} (reference {rate:,.0f} games per CPU s): {games_cpu:.0f} CPU s of "
              f"games + {fixed * here / rate:.1f} s fixed ≈ {wall:.0f} s on {GOAL_CORES} cores")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--paired"]:
        rest = args[1:]
        count = int(rest.pop(0)) if rest and rest[0].isdigit() else 300
        main_paired(count, rest[0] if rest else "classic_10")
    elif args[:1] == ["--parts"]:
        main_parts(int(args[1]) if len(args) > 1 else 200, args[2:])
    else:
        main(int(args[0]) if args else 1000, int(args[1]) if len(args) > 1 else (os.cpu_count() or 1))
