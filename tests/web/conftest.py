"""A rehearsal of classic_10 stopped at day 2's vote, served by uvicorn on a free port, and
headless Debian Chromium driven by Playwright (skipped locally without it, failing in CI)."""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web_game import TOKEN, Running, Server, at_vote, play_until, play_until_now, vote  # noqa: E402

import tianshen.web.auth as web_auth  # noqa: E402
from tianshen.web.app import WebSettings, create_app  # noqa: E402

# Every app these tests make derives its session key from the same token by scrypt (about
# 0.1 s of CPU and 16 MB each, some hundred apps a run): derived once per token and secret.
web_auth.session_key = functools.cache(web_auth.session_key)

CHROMIUM = os.environ.get("TIANSHEN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Running:
    """classic_10, seed 7, at day 2's vote (three dead by then), with two votes posted and
    the day extended by the GM."""
    db = tmp_path_factory.mktemp("web") / "game.db"
    running = play_until_now(f"sqlite:///{db}", "classic_10", 7, at_vote(2))
    alive = [p.name for p in running.state().alive()]
    vote(running, alive[0], alive[1], "9001", minutes=3)
    vote(running, alive[2], alive[1], "9002", minutes=4)
    running.driver.gm("extend", "论坛维护，顺延一小时", running.clock.now() + timedelta(minutes=5), hours=1)
    return running


@pytest.fixture(scope="module")
def server(game: Running) -> Iterator[Server]:
    app = create_app(game.store, WebSettings(token=TOKEN, poll_ms=200))
    with Server(app) as srv:
        yield srv


def _no_browser(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: .ci/run installs Debian's chromium; the browser tests must run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Server]]:
    """classic_8 (seed 3) played to its end and served (polling every 300 ms): read only, so
    one for the session."""
    db = tmp_path_factory.mktemp("over") / "g.db"
    running = play_until(f"sqlite:///{db}", "classic_8", 3, lambda s: s.phase.kind == "over", max_steps=80)
    with Server(create_app(running.store, WebSettings(token=TOKEN, poll_ms=300))) as srv:
        yield running, srv


def polls_handled(page: object, n: int, timeout_ms: float = 15_000) -> None:
    """Wait until the page's script has handled `n` polls that started after this call: it
    asks for the next fragment only once it handled the answer to the one before."""
    for _ in range(n + 1):
        page.wait_for_event("request", predicate=lambda r: r.url.endswith("/fragment"),  # type: ignore[attr-defined]
                            timeout=timeout_ms)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _no_browser("playwright is not installed (pip install -e '.[dev]')")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _no_browser(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture()
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="zh-CN")  # type: ignore[attr-defined]
    p = context.new_page()
    yield p
    context.close()
