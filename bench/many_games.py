"""Benchmark (issue 14): one `tianshen run` process serving N concurrent games on one board.

Signs up N classic_10 games on the built-in board (distinct players), deals them all, then
times idle polls (nothing new on the board): CPU per poll, PM reads per poll for the whole
board, and the process's RSS.  Prints figures; asserts nothing.

    .venv/bin/python bench/many_games.py [games] [polls]
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from tianshen.config import load_config
from tianshen.service.daemon import Daemon

VESTS = ("白狐", "青竹", "夜莺", "孤舟", "寒梅", "石榴", "墨鱼", "飞燕", "老槐", "山雀")


def rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def config(tmp: Path, games: int) -> Path:
    tables = []
    for g in range(games):
        players = ", ".join(f'{{ name = "{v}{g}" }}' for v in VESTS)
        tables.append(f'[[game]]\nname = "g{g}"\nruleset = "classic_10"\nseed = {g + 1}\n'
                      f'start = 2026-01-01T20:00:00Z\nplayers = [{players}]\n')
    path = tmp / "board.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{tmp / "board.db"}"\n[forum]\nkind = "memory"\n'
                    f"[run]\ntime_scale = 1\npoll_seconds = 60\n\n" + "\n".join(tables), encoding="utf-8")
    return path


def main(games: int, polls: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = rss_mib()
        t0 = time.process_time()
        daemon = Daemon(load_config(config(Path(tmp), games)))
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
        t0 = time.process_time()
        for _ in range(polls):
            daemon.tick()
        idle = (time.process_time() - t0) / polls
        started = sum(1 for g in daemon.store.list_games() if g.status == "running")
        print(f"games {games} (running {started}), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
        print(f"sign-up CPU {setup_s:.2f} s, deal CPU {deal_s:.2f} s")
        print(f"idle poll: CPU {idle * 1000:.0f} ms, PM reads {reads['fetch_pms'] / polls:.1f} per poll")
        print(f"RSS {rss_mib():.0f} MiB (before the daemon {base:.0f} MiB; goal < 300 MB)")
        daemon.store.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200, int(sys.argv[2]) if len(sys.argv) > 2 else 5)
