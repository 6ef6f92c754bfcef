"""Helpers of the web tests: a rehearsal stopped in the middle: classic_10 (or any variant) played by simulated players
on the memory board into a SQLite file, until a day's vote is open."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from migrated import migrated_sqlite
from tianshen.core.model import GameState, PostIn
from tianshen.core.ruleset import GameSetup
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for
from tianshen.sim.rehearsal import DEFAULT_START, VirtualClock, default_seats
from tianshen.store import Store

TOKEN = "gm-token-for-tests-only"


def new_store(db_url: str) -> Store:
    """A migrated store; a new SQLite file is a copy of one migrated once per process
    (tests/migrated.py: a fresh file's migrations cost about 0.1 s of CPU and 0.2 s of disk)."""
    prefix = "sqlite:///"
    path = Path(db_url[len(prefix):]) if db_url.startswith(prefix) and len(db_url) > len(prefix) else None
    if path is not None and not path.exists():
        migrated_sqlite(path)
    store = Store(db_url)
    store.upgrade()  # at the newest migration already: a look at alembic_version
    return store


@dataclass
class Running:
    store: Store
    driver: GameDriver
    clock: VirtualClock
    board: MemoryBoard

    def state(self) -> GameState:
        return self.driver.state()


def play_until(db_url: str, variant: str, seed: int, done, max_steps: int = 60, act: bool = True,
               start: datetime = DEFAULT_START, name: str | None = None, created=None, each=None) -> Running:
    """Play deadline by deadline until `done(state)`; the simulated players act before each.
    `created(running)` is called once the game is created, `each(running, state)` after the
    players acted, before the deadline (the deadline is asked again after it)."""
    clock = VirtualClock(start)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    store = new_store(db_url)
    from tianshen.specs import load_spec

    spec = load_spec(variant)
    setup = GameSetup(seats=default_seats(spec.players), seed=seed, start=start)
    driver = GameDriver.create(store, forum, name or f"{variant}-web", spec.id, setup)
    running = Running(store, driver, clock, board)
    if created is not None:
        created(running)
    sims = sims_for(spec.ruleset, board, forum.account, seed)
    for _ in range(max_steps):
        state = driver.state()
        if done(state):
            return running
        deadline = driver.ruleset.next_deadline(state)
        assert deadline is not None, "the game ended before the wanted point"
        if act:
            clock.set(min(clock.now() + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
            sims.act(state, clock.now(), lambda key: store.thread_id(driver.game_id, key))
        if each is not None:
            each(running, state)
            deadline = driver.ruleset.next_deadline(driver.state()) or deadline
        clock.set(deadline.at)
        driver.advance(clock.now())
    raise AssertionError("the wanted point was not reached")


def play_until_now(db_url: str, variant: str, seed: int, done) -> Running:
    """The same game, started so that the wanted point is about now (real time): its
    countdown then counts down.  Played once in memory to learn how long it takes."""
    trial = play_until("sqlite://", variant, seed, done)
    offset = trial.clock.now() - DEFAULT_START
    trial.store.close()
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    return play_until(db_url, variant, seed, done, start=now - offset)


def at_vote(day: int):
    return lambda s: s.phase.kind == "day" and s.phase.number == day and s.phase.step == "vote"


def vote(running: Running, voter: str, target: str, post_id: str, minutes: int = 5) -> None:
    """A vote post folded through the driver, as the daemon would."""
    running.driver.handle(PostIn(id=post_id, thread=f"vote:{running.state().phase.number}", author=voter,
                                 at=running.clock.now() + timedelta(minutes=minutes), text=f"投票 {target}"))


def web_command(db_url: str, folder: Path, extra: str = "") -> tuple[object, dict[str, Any]]:
    """The app and uvicorn's options as `tianshen web --config` makes them (its uvicorn.run
    caught): the token from [web] token_env, `extra` lines added to [web]."""
    import pytest
    import uvicorn
    from typer.testing import CliRunner

    from tianshen.cli import app

    config = folder / "web.toml"
    config.write_text(f'[database]\nurl = "{db_url}"\n[web]\ntoken_env = "TIANSHEN_TEST_WEB_T"\n{extra}',
                      encoding="utf-8")
    served: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(uvicorn, "run", lambda app_, **kw: served.update(app=app_, **kw))
        mp.setenv("TIANSHEN_TEST_WEB_T", TOKEN)
        result = CliRunner().invoke(app, ["web", "--config", str(config)])
    assert result.exit_code == 0, result.output
    return served.pop("app"), served


class Server:
    def __init__(self, app: object, **options: Any) -> None:
        """uvicorn on a free port of 127.0.0.1; `options` of uvicorn's (web_command's) besides."""
        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        kw = {"log_level": "warning", "server_header": False} | {
            k: v for k, v in options.items() if k not in ("host", "port")}
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, **kw))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(5)


def log_in(page, base_url: str, path: str, token: str = TOKEN) -> object:
    """Log in through the form a GM page shows (POST /login), back on `path`; the response."""
    page.goto(base_url + path)
    page.fill('form.login input[name="token"]', token)
    with page.expect_navigation() as nav:
        page.click("form.login button")
    return nav.value
