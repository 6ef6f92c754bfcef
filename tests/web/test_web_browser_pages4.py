"""Issue 38's points that only the test client checked, driven in headless Chromium at 1280 and
390 px with a screenshot each: several games on one board (each GM page lists only its own
game's inputs, point 2), the result tables in a phase page's log and in the GM outbox (point
4), a logout that survives a restart of `tianshen web` and the login throttle by peer (point 8)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_web_browser_pages import SHOTS, WIDTHS, each_width, no_sideways_scroll, open_page
from web_game import TOKEN, Running, Server, at_vote, log_in, new_store, play_until, web_command

from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VirtualClock
from tianshen.web.app import COOKIE, WebSettings, create_app

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
OURS = {"甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
        "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner"}
THEIRS = {f"{n}二": r for n, r in OURS.items()}  # the other game's players: 甲二, 乙二 …


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = SHOTS if os.environ.get("TIANSHEN_WEB_SCREENSHOTS") == "1" else tmp_path_factory.mktemp("shots38b")
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def shared_board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, int, int]]:
    """Two games of classic_10 watching one memory board (`watch_board = true`): a post in
    the other game's thread, a post of each game's player in a thread of no game."""
    folder = tmp_path_factory.mktemp("shared-board")
    base = Path(__file__).resolve().parents[2] / "rulesets" / "classic_10.toml"
    (folder / "classic_10_watch.toml").write_text(
        f'include = ["{base.as_posix()}"]\n[options]\nwatch_board = true\n', encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIANSHEN_RULESETS", str(folder))
        clock = VirtualClock(START)
        board = MemoryBoard(clock.now)
        store = new_store(f"sqlite:///{folder / 'board.db'}")

        def game(name: str, roles: dict[str, str]) -> GameDriver:
            forum = board.gm()
            forum.login()
            setup = GameSetup(seats=[Seat(name=n, forum_name=n) for n in roles], seed=5, start=START,
                              fixed_roles=roles)
            driver = GameDriver(store, forum, GameDriver.register(store, name, "classic_10_watch", setup,
                                                                  board="memory:shared"))
            driver.start()
            return driver

        ours, theirs = game("甲局", OURS), game("乙局", THEIRS)
        clock.set(START + timedelta(hours=1))
        board.post("丙二", store.thread_id(theirs.game_id, "main"), "乙局主帖里的话")
        chat = board.new_thread("丙", "闲聊", "甲局玩家在公共帖")
        board.post("丁二", chat, "乙局玩家在公共帖")
        ours.advance(clock.now())
        theirs.advance(clock.now())
        with Server(create_app(store, WebSettings(token=TOKEN))) as srv:
            yield srv, ours.game_id, theirs.game_id
        store.close()


def test_each_gm_page_lists_only_its_own_games_inputs(shared_board, browser, shots: Path) -> None:
    """Point 2: logged in once, the GM reads each game's page; its 「本时段的输入」 are its own."""
    srv, ours, theirs = shared_board
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        assert log_in(page, srv.url, f"/game/{ours}/gm").status == 200
        mine = page.locator("#inputs").inner_text()
        assert "甲局玩家在公共帖" in mine and "乙局" not in mine
        no_sideways_scroll(page)
        page.locator("#inputs").screenshot(path=str(shots / f"shared-board-ours-{label}.png"))
        page.goto(f"{srv.url}/game/{theirs}/gm")
        other = page.locator("#inputs").inner_text()
        assert "乙局主帖里的话" in other and "乙局玩家在公共帖" in other and "甲局玩家" not in other
        page.locator("#inputs").screenshot(path=str(shots / f"shared-board-theirs-{label}.png"))
    context.close()


def test_result_tables_in_a_phase_pages_log_and_in_the_gm_outbox(finished, browser, shots: Path) -> None:
    """Point 4: a phase page's log and the GM page's outbox show a body's `| a | b |` rows as
    a table (its first row the header), never the raw pipes."""
    running, srv = finished
    gid = running.driver.game_id
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        page.goto(f"{srv.url}/game/{gid}/day/1")
        page.locator("#log details").evaluate_all("ds => ds.forEach(d => d.open = true)")
        assert page.locator("#log table.board-table").count() >= 1
        assert page.locator("#log table.board-table th").first.inner_text() == "游戏者"
        assert "|" not in page.locator("#log").inner_text()
        no_sideways_scroll(page)
        page.locator("#log").screenshot(path=str(shots / f"phase-log-tables-{label}.png"))
        log_in(page, srv.url, f"/game/{gid}/gm")
        page.locator("#outbox details").evaluate_all("ds => ds.forEach(d => d.open = true)")
        tables = page.locator("#outbox table.board-table")
        assert tables.count() >= 1
        heads = set(page.locator("#outbox table.board-table thead").all_inner_texts())
        assert any("游戏者" in h for h in heads)
        raw = [line for line in page.locator("#outbox .board-text").all_inner_texts() if re.search(r"^\|.*\|$", line, re.M)]
        assert raw == []
        no_sideways_scroll(page)
        tables.first.screenshot(path=str(shots / f"gm-outbox-table-{label}.png"))
    context.close()


def served_by_the_web_command(db_url: str, folder: Path) -> Server:
    app, options = web_command(db_url, folder)
    return Server(app, **options)


@pytest.fixture(scope="module")
def first_vote_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Running, Path]:
    folder = tmp_path_factory.mktemp("restart")
    return play_until(f"sqlite:///{folder / 'g.db'}", "classic_8", 3, at_vote(1)), folder


def test_a_logout_survives_a_restart_of_the_pages(first_vote_db, browser, shots: Path) -> None:
    """Point 8: the GM logs out; `tianshen web` restarts (the command's app again, on the same
    database); the old cookie, put back into the browser, opens nothing, while a session that
    did not log out still opens the GM page.  Both widths, each in the same two contexts."""
    running, folder = first_vote_db
    gm = f"/game/{running.driver.game_id}/gm"
    db = str(running.store.engine.url)
    leaving, staying = open_page(browser, WIDTHS[0][0]), open_page(browser, WIDTHS[0][0])
    for width, label in WIDTHS:
        for context, page in (leaving, staying):  # as new pages at this width
            context.clear_cookies()
            page.set_viewport_size({"width": width, "height": 900})
        with served_by_the_web_command(db, folder) as srv:
            for _, page in (leaving, staying):
                assert log_in(page, srv.url, gm).status == 200
            old = next(c for c in leaving[0].cookies() if c["name"] == COOKIE)
            with leaving[1].expect_navigation():
                leaving[1].click("form.logout button")
            assert not [c for c in leaving[0].cookies() if c["name"] == COOKIE]
        with served_by_the_web_command(db, folder) as again:  # the restart (cookies ignore the port)
            assert staying[1].goto(again.url + gm).status == 200  # the same secret: a live session still holds
            leaving[0].add_cookies([old])
            response = leaving[1].goto(again.url + gm)
            assert response.status == 401 and leaving[1].locator("form.login").is_visible()
            leaving[1].screenshot(path=str(shots / f"logout-after-restart-{label}.png"))
    for context, _ in (leaving, staying):
        context.close()


def test_the_login_throttle_counts_the_peer_not_a_forwarded_header(first_vote_db, browser, shots: Path) -> None:
    """Point 8: wrong tokens typed into the form, each sent with another `X-Forwarded-For`, to
    uvicorn as `tianshen web` starts it: five are 403, then 429 with Retry-After, even for the
    right token (no trusted proxy).  Both widths, each on a server of its own."""
    running, folder = first_vote_db
    gm = f"/game/{running.driver.game_id}/gm"
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        with served_by_the_web_command(str(running.store.engine.url), folder) as srv:
            codes = []
            for i in range(7):
                context.set_extra_http_headers({"X-Forwarded-For": f"203.0.113.{i + 1}"})
                codes.append(log_in(page, srv.url, gm, token=f"wrong-token-{i:04d}-of-a-guesser").status)
            assert codes == [403] * 5 + [429] * 2
            context.set_extra_http_headers({"X-Forwarded-For": "198.51.100.7"})
            response = log_in(page, srv.url, gm)
            assert response.status == 429 and int(response.headers["retry-after"]) > 0
            assert page.locator("h1").inner_text() == "尝试次数太多"
            page.screenshot(path=str(shots / f"login-throttled-{label}.png"))
    context.close()
