"""Issue 38 points 3 and 7 in headless Chromium at 1280 and 390 px, with a screenshot each:
an address that is no game's page is a quiet 404 carrying the security headers (the board's
own row, a game id that does not exist, a word, a non-canonical phase link), and the hex GM
page writes the cells as its map does, names a role's side once and shows no attack range
for the dead."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_web_browser_pages import WIDTHS, each_width, no_sideways_scroll, open_page
from test_web_browser_pages4 import shots  # noqa: F401  (the module's screenshot folder)
from test_web_security import HEADERS
from web_game import TOKEN, Running, Server, log_in, play_until

from tianshen.web.app import WebSettings, create_app


@pytest.fixture(scope="module")
def hex_day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Server]]:
    """hex_survival_12 (seed 3) at the first day with a dead player, served."""
    db = tmp_path_factory.mktemp("hex5") / "g.db"
    running = play_until(f"sqlite:///{db}", "hex_survival_12", 3,
                         lambda s: any(not p.alive for p in s.players) and s.phase.kind == "day")
    with Server(create_app(running.store, WebSettings(token=TOKEN))) as srv:
        yield running, srv


def test_an_address_that_is_no_games_page_is_a_quiet_404(hex_day, browser, shots: Path) -> None:  # noqa: F811
    """Point 3: logged in as the GM too, every such address answers 404 with the headers and
    the page 没有这个页面, never a server error or a traceback."""
    running, srv = hex_day
    gid = running.driver.game_id
    board_row = running.store.board_game("memory:browser-404")
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        assert log_in(page, srv.url, f"/game/{gid}/gm").status == 200
        for path in (f"/game/{board_row}", f"/game/{board_row}/gm", "/game/999999", "/game/abc",
                     f"/game/{gid}/day/01"):
            response = page.goto(srv.url + path)
            assert response is not None and response.status == 404, path
            headers = response.headers
            for name, value in HEADERS.items():
                assert headers.get(name) == value, (path, name)
            body = page.locator("body").inner_text()
            assert "没有这个页面" in body and "Traceback" not in body and "Error" not in body, path
            no_sideways_scroll(page)
        page.screenshot(path=str(shots / f"not-found-{label}.png"))
    context.close()


def test_the_hex_gm_page_as_the_gm_sees_it(hex_day, browser, shots: Path) -> None:  # noqa: F811
    """Point 7: the cells as the map writes them (a1, not A1), 红方 once on a card, and the
    attack range only on the living's cards."""
    running, srv = hex_day
    state = running.state()
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        assert log_in(page, srv.url, f"/game/{running.driver.game_id}/gm").status == 200
        cells = set(page.locator("[data-cell]").evaluate_all("cs => cs.map(c => c.dataset.cell)"))
        assert cells == set(running.driver.ruleset.board_map(state, True).cells)
        shown = page.locator("[data-cell]").evaluate_all("cs => cs.map(c => c.textContent)")
        assert not [t for t in shown if re.search(r"[A-Z]\d", t)], shown
        ranges = 0
        for p in state.players:
            card = page.locator(f'li.player-card[data-player="{p.name}"]').inner_text()
            assert not re.search(r"(红方|蓝方)\s*·\s*\1", card), card
            if not p.alive:
                assert "攻击范围" not in card, p.name
            ranges += "攻击范围" in card
        assert ranges, "no living player's card shows an attack range"
        no_sideways_scroll(page)
        dead = next(p.name for p in state.players if not p.alive)
        page.locator(f'li.player-card[data-player="{dead}"]').screenshot(path=str(shots / f"hex-dead-card-{label}.png"))
        page.locator("li.player-card.alive").first.screenshot(path=str(shots / f"hex-living-card-{label}.png"))
    context.close()
