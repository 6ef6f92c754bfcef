"""Issue 38 items 4–7 in headless Chromium at 1280 and 390 px, a screenshot of each: the
result table and the quote as the board shows them, a finished game without a live clock,
the page without JavaScript, the tab title, previous / next between phases."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_web_browser_pages import SHOTS, WIDTHS, each_width, no_sideways_scroll, open_page
from web_game import TOKEN, Running, Server, at_vote, play_until

from tianshen.web.app import WebSettings, create_app


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = SHOTS if os.environ.get("TIANSHEN_WEB_SCREENSHOTS") == "1" else tmp_path_factory.mktemp("shots38")
    out.mkdir(parents=True, exist_ok=True)
    return out


def test_a_finished_game_shows_tables_quotes_and_no_live_clock(finished, browser, shots: Path) -> None:
    running, srv = finished
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        page.goto(f"{srv.url}/game/{running.driver.game_id}")
        page.locator("#log details").evaluate_all("ds => ds.forEach(d => d.open = true)")
        table = page.locator("#log table.board-table").first
        assert table.locator("th").first.inner_text() == "游戏者"
        assert "|" not in page.locator("#log").inner_text()
        assert page.locator("#log blockquote").first.inner_text().startswith("夜色像墨")
        assert page.locator(".countdown").count() == 0 and page.locator(".rehearsal").count() == 0
        assert page.locator("footer").inner_text() == "只读页面 · 本局已结束，页面不再更新"
        no_sideways_scroll(page)
        page.locator("#log").screenshot(path=str(shots / f"board-texts-{label}.png"))
    context.close()


def test_previous_and_next_between_phases(finished, browser, shots: Path) -> None:
    running, srv = finished
    gid = running.driver.game_id
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        page.goto(f"{srv.url}/game/{gid}/night/1")
        with page.expect_navigation():  # the next page loaded, not only its address set
            page.locator("a[rel=next]").click()
        assert page.url.endswith(f"/game/{gid}/day/1")
        box = page.locator("a[rel=prev]").bounding_box()
        assert box and box["height"] >= 24
        page.locator(".head").screenshot(path=str(shots / f"phase-steps-{label}.png"))
        with page.expect_navigation():
            page.locator("a[rel=prev]").click()
        assert page.url.endswith(f"/game/{gid}/night/1")
        no_sideways_scroll(page)
    context.close()


@pytest.fixture(scope="module")
def first_vote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Server]]:
    """classic_8 (seed 3) at day 1's vote, served: read only."""
    running = play_until(f"sqlite:///{tmp_path_factory.mktemp('vote38') / 'g.db'}", "classic_8", 3, at_vote(1))
    with Server(create_app(running.store, WebSettings(token=TOKEN))) as srv:
        yield running, srv


def test_the_tab_title_counts_down_and_without_javascript_the_page_says_so(first_vote, browser,
                                                                           shots: Path) -> None:
    running, srv = first_vote
    gid = running.driver.game_id
    context, page = open_page(browser, WIDTHS[0][0])
    for _ in each_width(context, page):
        page.goto(f"{srv.url}/game/{gid}")
        page.wait_for_function("document.title.includes('·') && /已到时间|还剩/.test(document.title)")
        assert re.match(rf"第1天 · {re.escape(running.driver.name)} · (已到时间|还剩 )", page.title())
        assert page.locator("footer").inner_text() == "只读页面 · 自动更新，无需刷新"
    context.close()
    context, page = open_page(browser, WIDTHS[0][0], java_script_enabled=False)
    for _, label in each_width(context, page):
        page.goto(f"{srv.url}/game/{gid}")
        footer = page.locator("footer").inner_text()
        assert "不会自动更新" in footer and "自动更新，无需刷新" not in footer
        assert "北京时间" in page.locator(".deadline time").inner_text()
        page.screenshot(path=str(shots / f"no-javascript-{label}.png"))
    context.close()


@pytest.fixture(scope="module")
def hex_vote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Server]]:
    """hex_survival_12 (seed 3) at day 1's vote, served: read only."""
    running = play_until(f"sqlite:///{tmp_path_factory.mktemp('hex38') / 'g.db'}", "hex_survival_12", 3, at_vote(1))
    with Server(create_app(running.store, WebSettings(token=TOKEN))) as srv:
        yield running, srv


TAP_TARGETS = """() => Array.from(document.querySelectorAll('a, button, summary, [tabindex="0"]'))
    .map(e => [e.tagName, (e.textContent || '').trim().slice(0, 20), e.getBoundingClientRect()])
    .filter(([, , r]) => r.width > 0 && (r.width < 24 || r.height < 24))
    .map(([tag, text, r]) => `${tag} ${text} ${Math.round(r.width)}x${Math.round(r.height)}`)"""


def test_every_tap_target_of_the_gm_page_is_24_px(hex_vote, browser, shots: Path) -> None:
    """Item 7: on a phone and on a desktop, every link, button, summary and map cell of the
    GM page is at least 24 px each way."""
    running, srv = hex_vote
    context, page = open_page(browser, WIDTHS[0][0], extra_http_headers={"Authorization": f"Bearer {TOKEN}"})
    for _, label in each_width(context, page):
        page.goto(f"{srv.url}/game/{running.driver.game_id}/gm")
        assert page.evaluate(TAP_TARGETS) == []
        page.locator("#roles").screenshot(path=str(shots / f"gm-tap-targets-{label}.png"))
    context.close()


def test_a_players_panel_from_his_name(finished, browser, shots: Path) -> None:
    """Item 6: his name on the game's page opens his panel; after the game it shows his own PMs."""
    running, srv = finished
    gid = running.driver.game_id
    p = running.state().players[2]
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        page.goto(f"{srv.url}/game/{gid}")
        with page.expect_navigation():
            page.locator(f'#players li[data-player="{p.name}"] a.name').click()
        assert page.url.endswith(f"/game/{gid}/player/{p.seat}")
        assert page.locator("h1").inner_text() == f"{p.seat}号 {p.name}"
        assert page.locator("#player-pms li").count() >= 1
        assert "神的使者发给他" in page.locator("#player-pms").inner_text()
        no_sideways_scroll(page)
        page.screenshot(path=str(shots / f"player-panel-{label}.png"), full_page=True)
    context.close()
