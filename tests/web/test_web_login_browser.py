"""The login form, the logout and the index's filters in Chromium, at a desktop's and a
phone's width (issue 25 items 10, 15), with screenshots."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_web_browser_pages import each_width
from web_game import TOKEN, Server, at_vote, log_in, play_until

from tianshen.web.app import COOKIE, WebSettings, create_app

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDTHS = [(1280, 900, "desktop"), (390, 844, "phone")]
VARIANTS = ["classic_8", "classic_10", "game_ten", "n_lives", "butterfly_elder"]
STATUSES = ["new", "running", "over", "paused"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, int]]:
    """A real game at its first vote and 60 more rows of every status and ruleset (the index
    reads only the games table), served with 20 games a page."""
    db = tmp_path_factory.mktemp("index") / "g.db"
    running = play_until(f"sqlite:///{db}", "classic_8", 3, at_vote(1))
    for i in range(60):
        running.store.create_game(f"周末局{i:02d}", VARIANTS[i % len(VARIANTS)], i, {}, "{}", "setup", None, [],
                                  status=STATUSES[i % len(STATUSES)])
    with Server(create_app(running.store, WebSettings(token=TOKEN, page_size=20))) as srv:
        yield srv, running.driver.game_id


def shots_dir(tmp_path: Path) -> Path:
    out = SHOTS if os.environ.get("TIANSHEN_WEB_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    return out


def names(page) -> list[str]:
    return page.locator("ul.games li strong").all_inner_texts()


def test_index_filters_search_and_pages(site, browser, tmp_path: Path) -> None:
    srv, _ = site
    context = browser.new_context(viewport={"width": WIDTHS[0][0], "height": WIDTHS[0][1]}, locale="zh-CN")
    page = context.new_page()
    for _, label in each_width(context, page, WIDTHS):
        page.goto(srv.url + "/")
        assert "共 61 局" in page.locator("p.count").inner_text()
        assert len(names(page)) == 20 and names(page)[0] == "周末局59"  # newest first
        page.screenshot(path=str(shots_dir(tmp_path) / f"index-{label}.png"), full_page=label == "desktop")
        with page.expect_navigation():  # its load, not only the new URL: the list is read next
            page.locator("nav.pager a[rel=next]").click()
        assert "第 2/4 页" in page.locator("nav.pager").inner_text() and names(page)[0] == "周末局39"
        page.goto(srv.url + "/")
        page.select_option("select[name=status]", "signup")
        with page.expect_navigation():
            page.click("form.filters button")
        assert "status=signup" in page.url
        tags = page.locator("ul.games li .tag").all_inner_texts()
        assert len(tags) == 15 and set(tags) == {"报名中"}
        page.select_option("select[name=ruleset]", "game_ten")
        page.fill("input[name=q]", "局1")
        with page.expect_navigation():
            page.click("form.filters button")
        shown = names(page)  # new and game_ten: i % 4 == 0 and i % 5 == 2, i.e. 12, 32, 52; named 局1x: 12
        assert shown == ["周末局12"]
        page.screenshot(path=str(shots_dir(tmp_path) / f"index-filtered-{label}.png"))
        page.fill("input[name=q]", "没有这样的名字")
        with page.expect_navigation():
            page.click("form.filters button")
        assert "没有符合条件的游戏" in page.locator("main").inner_text()
        with page.expect_navigation():
            page.click("a.clear")
        assert page.url == srv.url + "/" and len(names(page)) == 20
    context.close()


def test_login_form_and_logout(site, browser, tmp_path: Path) -> None:
    srv, gid = site
    context = browser.new_context(viewport={"width": WIDTHS[0][0], "height": WIDTHS[0][1]}, locale="zh-CN")
    page = context.new_page()
    for _, label in each_width(context, page, WIDTHS):
        response = page.goto(f"{srv.url}/game/{gid}/gm")
        assert response.status == 401 and page.locator("form.login").is_visible()
        page.screenshot(path=str(shots_dir(tmp_path) / f"login-{label}.png"))
        response = log_in(page, srv.url, f"/game/{gid}/gm", token="wrong-token-0123456789")
        assert response.status == 403 and "口令不对" in page.locator("h1").inner_text()
        response = log_in(page, srv.url, f"/game/{gid}/gm")
        assert response.status == 200 and page.url == f"{srv.url}/game/{gid}/gm"
        assert page.locator("text=身份（秘密）").count() >= 1
        cookie = next(c for c in context.cookies() if c["name"] == COOKIE)
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and TOKEN not in cookie["value"]
        assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it
        page.screenshot(path=str(shots_dir(tmp_path) / f"gm-logged-in-{label}.png"))
        with page.expect_navigation():
            page.click("form.logout button")
        assert page.url == srv.url + "/"
        assert not [c for c in context.cookies() if c["name"] == COOKIE]
        assert page.goto(f"{srv.url}/game/{gid}/gm").status == 401
    context.close()
