"""Benchmark (issue 25 item 10): the web pages under 20 concurrent clients with 500 games.

Plays three games on the memory board (classic_10 to day 2's vote, hex_survival_12 to day 1's
vote, classic_8 to its end), copies their rows into 500 games (a fifth signing up, three
fifths running, a fifth over), serves the database with uvicorn in a process of its own, and
lets 20 clients fetch `/`, `/game/N` and `/game/N/fragment` as fast as they can.  Prints the
median and p99 latency of each, the requests per second, the server's CPU a request, the
database connections it opened, its full garbage collections (and the longest pause) and the
load average after each path; asserts nothing.
Goals: `/` ≤ 100 ms median, `/game/N` ≤ 50 ms median.

    .venv/bin/python bench/web.py                       # SQLite in a temp file
    .venv/bin/python bench/web.py --db postgresql+psycopg://postgres@127.0.0.1:54340/tianshen_test
        # PostgreSQL: a database of its own beside the given one (<name>_webbench), dropped after
    options: --games 500 --clients 20 --requests 2000 (per path)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import httpx
from sqlalchemy import create_engine, insert, select, text
from sqlalchemy.engine import make_url

from tianshen.core.model import GameState
from tianshen.core.ruleset import GameSetup
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for
from tianshen.sim.rehearsal import DEFAULT_START, VirtualClock, default_seats
from tianshen.specs import load_spec
from tianshen.store import Store
from tianshen.store.models import Base, Game

TOKEN = "bench-token-0123456789"


def play(store: Store, variant: str, seed: int, done: Callable[[GameState], bool]) -> int:
    """One game played deadline by deadline by the simulated players until `done`."""
    clock = VirtualClock(DEFAULT_START)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    spec = load_spec(variant)
    setup = GameSetup(seats=default_seats(spec.players), seed=seed, start=DEFAULT_START)
    driver = GameDriver.create(store, forum, f"{variant}-bench", spec.id, setup)
    sims = sims_for(spec.ruleset, board, forum.account, seed)
    for _ in range(200):
        state = driver.state()
        if done(state):
            return driver.game_id
        due = driver.ruleset.next_deadline(state)
        if due is None:
            return driver.game_id
        clock.set(min(clock.now() + timedelta(hours=1), due.at - timedelta(minutes=1)))
        sims.act(state, clock.now(), lambda key: store.thread_id(driver.game_id, key))
        clock.set(due.at)
        driver.advance(clock.now())
    raise RuntimeError(f"{variant} did not reach the wanted point")


def at_vote(day: int) -> Callable[[GameState], bool]:
    return lambda s: s.phase.kind == "day" and s.phase.number == day and s.phase.step == "vote"


def copy_game(engine, source: int, name: str) -> int:
    """Every row of game `source` again under a new game id and name (outbox keys renamed)."""
    with engine.begin() as conn:
        game = conn.execute(select(Game).where(Game.id == source)).mappings().one()
        old = game["name"]
        new_id = conn.execute(insert(Game).values({**{k: v for k, v in game.items() if k != "id"},
                                                   "name": name})).inserted_primary_key[0]
        for table in Base.metadata.sorted_tables:
            if table.name == "games" or "game_id" not in table.c:
                continue
            rows = [dict(r) for r in conn.execute(select(table).where(table.c.game_id == source)).mappings()]
            for r in rows:
                r.pop("id", None)
                r["game_id"] = new_id
                if table.name == "outbox" and r["key"].startswith(old + ":"):
                    r["key"] = name + r["key"][len(old):]
            if rows:
                conn.execute(insert(table), rows)
    return new_id


def build(url: str, games: int) -> list[int]:
    """The database of `games` games; the ids of the running ones."""
    store = Store(url)
    store.upgrade()
    running = [play(store, "classic_10", 7, at_vote(2)), play(store, "hex_survival_12", 5, at_vote(1))]
    over = play(store, "classic_8", 3, lambda s: s.phase.kind == "over")
    ids = list(running)
    for i in range(games - 3):
        kind = i % 5
        name = f"第{i + 1:03d}局"
        if kind == 0:
            store.create_game(name, ("classic_10", "game_ten", "n_lives")[i % 3], i, {}, "{}", "setup",
                              datetime(2026, 12, 20, 12, tzinfo=UTC), [], status="new")
        elif kind == 4:
            copy_game(store.engine, over, name)
        else:
            ids.append(copy_game(store.engine, running[i % 2], name))
    store.close()
    return ids


# What the server notes for the bench (in a file beside it, written every half second): the
# database connections it opened and its garbage collector's full (generation 2) pauses.
SERVER_NOTES = """import gc, json, threading, time
from sqlalchemy import event
notes = {"connections": 0, "gc2": []}
started = [0.0]
def _gc(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    elif info["generation"] == 2:
        notes["gc2"].append((time.perf_counter() - started[0]) * 1000)
gc.callbacks.append(_gc)
event.listen(store.engine, "connect", lambda *_: notes.__setitem__("connections", notes["connections"] + 1))
def _write():
    while True:
        time.sleep(0.5)
        with open(sys.argv[5], "w") as f:
            json.dump(notes, f)
threading.Thread(target=_write, daemon=True).start()
"""
KEEP_ALIVE_S = 60  # uvicorn's default 5 s closes a warm connection before a slow warm-up ends


@contextmanager
def served(url: str, cache_s: float) -> Iterator[tuple[str, Callable[[], float]]]:
    """uvicorn in a child process (its own interpreter: the clients do not share its GIL)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = (f"KEEP_ALIVE_S = {KEEP_ALIVE_S}\nimport uvicorn, sys\nfrom tianshen.store import Store\n"
            "from tianshen.web.app import WebSettings, create_app\n"
            "settings = WebSettings(token=sys.argv[2], cache_s=float(sys.argv[4]))\n"
            "store = Store(sys.argv[1])\napp = create_app(store, settings)\n" + SERVER_NOTES +
            "uvicorn.run(app, host='127.0.0.1', port=int(sys.argv[3]), log_level='warning', server_header=False,\n"
            "            timeout_keep_alive=KEEP_ALIVE_S)\n")
    notes = Path(tempfile.mkdtemp()) / "notes.json"
    proc = subprocess.Popen([sys.executable, "-c", code, url, TOKEN, str(port), str(cache_s), str(notes)],
                            env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120  # a loaded machine starts it slowly
        while True:
            try:
                httpx.get(base + "/favicon.ico", timeout=5)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the web server did not start") from None
                time.sleep(0.2)
        yield base, lambda: cpu_seconds(proc.pid), lambda: server_notes(notes)
    finally:
        proc.terminate()
        proc.wait(10)
        notes.unlink(missing_ok=True)
        notes.parent.rmdir()


def server_notes(path: Path) -> dict:
    """The server's notes as last written (they lag by at most half a second)."""
    time.sleep(0.6)
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {"connections": 0, "gc2": []}


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Connection:
    """One keep-alive HTTP/1.1 connection, as light as a client can be (httpx would take a
    good part of the CPU the server needs on a small machine)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reopened = 0  # connections the server closed while idle

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def get(self, path: str) -> int:
        """The status of GET `path` (the body is read and dropped).  A keep-alive connection
        the server closed while it was idle (a slow warm-up on a loaded machine) is opened
        again, and the request sent once more: it was never answered."""
        request = f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode()
        try:
            self.writer.write(request)
            raw = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            if isinstance(exc, asyncio.IncompleteReadError) and exc.partial:
                raise  # closed halfway through an answer: not an idle close
            self.close()
            await self.open()
            self.reopened += 1
            self.writer.write(request)
            raw = await self.reader.readuntil(b"\r\n\r\n")
        head = raw.decode("latin-1").lower().split("\r\n")
        length = next((int(line.split(":", 1)[1]) for line in head if line.startswith("content-length:")), None)
        if length is None:
            raise RuntimeError(f"no content-length: {head}")
        await self.reader.readexactly(length)
        return int(head[0].split()[1])

    def close(self) -> None:
        self.writer.close()


async def load(base: str, paths: Callable[[int], str], clients: int, requests: int) -> tuple[list[float], float]:
    """`clients` clients, each on its own connection, fetching back to back until `requests`
    answers came (client i asks for `paths(i)`); latencies in ms and the wall time."""
    latencies: list[float] = []
    left = [requests]
    host, port = base.removeprefix("http://").split(":")

    async def client(c: Connection, i: int) -> None:
        while left[0] > 0:
            left[0] -= 1
            t0 = time.perf_counter()
            status = await c.get(paths(i))
            latencies.append((time.perf_counter() - t0) * 1000)
            if status != 200:
                raise RuntimeError(f"{paths(i)} answered {status}")

    conns = [Connection(host, int(port)) for _ in range(clients)]
    for i, c in enumerate(conns):  # warm: templates, specs, connections
        await c.open()
        await c.get(paths(i))
    t0 = time.perf_counter()
    await asyncio.gather(*(client(c, i) for i, c in enumerate(conns)))
    wall = time.perf_counter() - t0
    for c in conns:
        c.close()
    return latencies, wall


async def warm_up(base: str, running: list[int]) -> float:
    """Each running game's page and fragment asked once, as its first reader would (the view
    of each is made then); the seconds it took."""
    host, port = base.removeprefix("http://").split(":")
    c = Connection(host, int(port))
    await c.open()
    t0 = time.perf_counter()
    for gid in running:
        for path in (f"/game/{gid}", f"/game/{gid}/fragment"):
            if await c.get(path) != 200:
                raise RuntimeError(f"{path} failed")
    c.close()
    return time.perf_counter() - t0


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


@contextmanager
def database(url: str | None) -> Iterator[str]:
    """A SQLite file in a temp dir, or a PostgreSQL database of its own beside `url`."""
    if url is None:
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'web.db'}"
        return
    given = make_url(url)
    name = f"{given.database}_webbench"
    admin = create_engine(given.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield given.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def scenarios(running: list[int], pick: random.Random) -> dict[str, Callable[[int], str]]:
    """What the clients ask for: the index and a game's page and fragment as viewers do (each
    client its own game), and the same where no two requests meet (every page rendered anew)."""
    queries = ["/?status=running", "/?status=signup", "/?status=over", "/?q=" + quote("局"), "/?ruleset=classic_10", "/?page=2"]
    return {
        "/": lambda i: "/",
        "/game/N": lambda i: f"/game/{running[i % len(running)]}",
        "/game/N/fragment": lambda i: f"/game/{running[i % len(running)]}/fragment",
        "/?filters (mixed)": lambda i: pick.choice(queries) + f"&page={pick.randint(1, 3)}",
        "/game/N (any of all)": lambda i: f"/game/{pick.choice(running)}",
    }


def main() -> None:
    from tianshen.config import WebConfig

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", help="a PostgreSQL URL (default: SQLite in a temp file)")
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--requests", type=int, default=2000, help="per path")
    args = ap.parse_args()
    with database(args.db) as url:
        t0 = time.perf_counter()
        running = build(url, args.games)
        kind = "PostgreSQL" if url.startswith("postgresql") else "SQLite"
        print(f"{kind}: {args.games} games ({len(running)} running) built in {time.perf_counter() - t0:.1f} s; "
              f"{args.clients} clients, {args.requests} requests a path; load average {os.getloadavg()[0]:.1f}")
        for cache_s in (WebConfig().cache_seconds, 0.0):
            print(f"[web] cache_seconds = {cache_s:g}" + (" (the default)" if cache_s else " (every page rendered)"))
            with served(url, cache_s) as (base, cpu, notes):
                warm = asyncio.run(warm_up(base, running))
                print(f"  every running game's page and fragment once (its view made): {warm:.1f} s")
                for label, path in scenarios(running, random.Random(1)).items():
                    cpu0, before = cpu(), notes()
                    latencies, wall = asyncio.run(load(base, path, args.clients, args.requests))
                    used = (cpu() - cpu0) / (len(latencies) + args.clients) * 1000
                    after = notes()
                    pauses = after["gc2"][len(before["gc2"]):]
                    print(f"  {label:22} median {statistics.median(latencies):7.1f} ms   "
                          f"p99 {p99(latencies):7.1f} ms   {len(latencies) / wall:6.1f} req/s   "
                          f"server CPU {used:5.2f} ms a request   "
                          f"{after['connections'] - before['connections']} connections opened, "
                          f"{len(pauses)} full GC ({max(pauses, default=0):.0f} ms longest)   "
                          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
