"""Fuzzed input at size (issue 22): whole games of every variant through the daemon while the
seated players (from their 马甲 and their own accounts) and strangers also send PMs and vote
posts full of NULs, lone surrogates, control characters, \\r\\n and BBCode.  Prints the
counts: errors, stuck games, unanswered PMs, answers not in plain Chinese.  Exits 1 when any
of them is not 0.

    .venv/bin/python bench/fuzz_inputs.py [inputs] [--db URL]   # default 100000, SQLite
"""

from __future__ import annotations

import argparse
import sys
import time

from tianshen.sim import fuzz


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("inputs", type=int, nargs="?", default=100_000)
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.monotonic()
    last = [0.0]

    def progress(report: fuzz.Report) -> None:
        if time.monotonic() - last[0] > 30:
            last[0] = time.monotonic()
            print(f"  {time.monotonic() - started:6.0f} s  {report.line()}", flush=True)

    report = fuzz.run(args.inputs, db_url=args.db, seed=args.seed, progress=progress)
    print(f"{'PostgreSQL' if args.db and args.db.startswith('postgresql') else 'SQLite'}: {report.line()} "
          f"in {time.monotonic() - started:.0f} s")
    for problem in report.problems()[:30]:
        print("  " + problem)
    return 1 if report.problems() else 0


if __name__ == "__main__":
    sys.exit(main())
