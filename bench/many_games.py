"""Benchmark (issues 14, 26): one `tianshen run` process serving N concurrent games on one board.

Signs up N classic_10 games on the built-in board (distinct players), deals them all, then
times idle ticks (nothing new on the board): CPU per tick and per game, statements and
transactions per game per tick, PM reads per tick for the whole board, one tick in which
every lease is renewed, and the process's RSS.  Prints figures; asserts nothing.

    .venv/bin/python bench/many_games.py [games,games,...] [ticks] [database url]

With a PostgreSQL url (an empty database the benchmark may fill) each size is played in it
after the one before; the default is a fresh SQLite file per size.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from _counting import counts
from sqlalchemy import create_engine, text

from tianshen.config import load_config
from tianshen.service.daemon import Daemon

VESTS = ("白狐", "青竹", "夜莺", "孤舟", "寒梅", "石榴", "墨鱼", "飞燕", "老槐", "山雀")


def rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def config(tmp: Path, games: int, url: str) -> Path:
    tables = []
    for g in range(games):
        players = ", ".join(f'{{ name = "{v}{g}" }}' for v in VESTS)
        tables.append(f'[[game]]\nname = "g{g}"\nruleset = "classic_10"\nseed = {g + 1}\n'
                      f'start = 2026-01-01T20:00:00Z\nplayers = [{players}]\n')
    path = tmp / "board.toml"
    path.write_text(f'[database]\nurl = "{url}"\n[forum]\nkind = "memory"\n'
                    f"[run]\ntime_scale = 1\npoll_seconds = 60\n\n" + "\n".join(tables), encoding="utf-8")
    return path


def empty(url: str) -> None:
    """A PostgreSQL database emptied for the next size."""
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def one(games: int, ticks: int, url: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        if url:
            empty(url)
        base = rss_mib()
        t0 = time.process_time()
        daemon = Daemon(load_config(config(Path(tmp), games, url or f"sqlite:///{Path(tmp) / 'board.db'}")))
        setup_s = time.process_time() - t0
        reads = {"fetch_pms": 0}
        fetch = daemon.forum.fetch_pms

        def counted(after_id: int | None) -> list:
            reads["fetch_pms"] += 1
            return fetch(after_id)

        daemon.forum.fetch_pms = counted  # type: ignore[method-assign]
        t0 = time.process_time()
        daemon.tick()  # deals every game: role PMs, player lists
        deal_s = time.process_time() - t0
        daemon.tick()
        reads["fetch_pms"] = 0
        counts.reset()
        t0 = time.process_time()
        for _ in range(ticks):
            daemon.tick()
        idle = (time.process_time() - t0) / ticks
        per = games * ticks
        counts_idle, pm_reads = (counts.statements, counts.transactions), reads["fetch_pms"]
        daemon._leases = dict.fromkeys(daemon._leases, datetime.now(UTC))  # every lease half run: renewed
        counts.reset()
        t0 = time.process_time()
        daemon.tick()
        renew = time.process_time() - t0
        renew_counts = (counts.statements, counts.transactions)
        counts.statements, counts.transactions = counts_idle
        started = sum(1 for g in daemon.store.list_games() if g.status == "running")
        print(f"games {games} (running {started}) on {(url or 'sqlite').split(':')[0]}, "
              f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
        print(f"  sign-up CPU {setup_s:.2f} s, deal CPU {deal_s:.2f} s")
        print(f"  idle tick: CPU {idle * 1000:.0f} ms, {idle * 1000 / games:.3f} ms per game; "
              f"{counts.statements / per:.2f} statements and {counts.transactions / per:.2f} transactions "
              f"per game; PM reads {pm_reads / ticks:.1f} per tick")
        print(f"  a tick that renews every lease: CPU {renew * 1000:.0f} ms, {renew_counts[0]} statements, "
              f"{renew_counts[1]} transactions")
        print(f"  RSS {rss_mib():.0f} MiB (before the daemon {base:.0f} MiB; goal < 300 MB)")
        daemon.store.close()


def main(sizes: list[int], ticks: int, url: str | None) -> None:
    for games in sizes:
        one(games, ticks, url)


if __name__ == "__main__":
    main([int(n) for n in (sys.argv[1] if len(sys.argv) > 1 else "10,200,1000").split(",")],
         int(sys.argv[2]) if len(sys.argv) > 2 else 5, sys.argv[3] if len(sys.argv) > 3 else None)
