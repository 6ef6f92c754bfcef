"""Issue 25 items 2–9 and 11–14 in headless Chromium, at desktop (1280 px) and phone (390 px)
widths, with a screenshot of each (kept in docs/screenshots with TIANSHEN_WEB_SCREENSHOTS=1)."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest
from web_game import TOKEN, Running, Server, at_vote, log_in, play_until, vote

from conftest import polls_handled
from tianshen.web.app import WebSettings, create_app

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDTHS = [(1280, "desktop"), (390, "phone")]


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = SHOTS if os.environ.get("TIANSHEN_WEB_SCREENSHOTS") == "1" else tmp_path_factory.mktemp("shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def open_page(browser, width: int, **kw):
    context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1, locale="zh-CN", **kw)
    return context, context.new_page()


def each_width(context, page, widths=WIDTHS):
    """Both widths on one page of one context (a new context costs a renderer process of its
    own): the viewport set before each width's page loads, the cookies of the last dropped."""
    for i, (width, *height, label) in enumerate(widths):  # (width, label) or (width, height, label)
        if i:
            context.clear_cookies()
        page.set_viewport_size({"width": width, "height": height[0] if height else 900})
        yield width, label


def no_sideways_scroll(page) -> None:
    page.wait_for_load_state()  # a page still loading has no document to measure yet
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"


def test_times_in_the_boards_zone_and_the_readers(server, game: Running, browser, shots: Path) -> None:
    """Item 2: the deadline and every post time in 北京时间, and the reader's own time beside."""
    context, page = open_page(browser, WIDTHS[0][0], timezone_id="America/New_York")
    for _, label in each_width(context, page):
        page.goto(f"{server.url}/game/{game.driver.game_id}")
        assert "（北京时间）" in page.locator(".deadline").inner_text()
        local = page.locator(".deadline .local").inner_text()
        assert "当地时间" in local and "America/New_York" in local
        for t in page.locator("#votes .vote-post > span.muted:first-child").all_text_contents():
            assert t.endswith("（北京时间）")
        assert "UTC" not in page.locator("body").inner_text()
        no_sideways_scroll(page)
        page.locator(".head").screenshot(path=str(shots / f"times-{label}.png"))
    context.close()


def test_countdown_runs_in_the_rehearsal_clock(tmp_path, browser, shots: Path) -> None:
    """Item 3: a rehearsal clock at 60× — the countdown starts from the game's time (two
    hours before the deadline) and loses a minute of game time each real second."""
    from tianshen.service.daemon import GameClock, clock_mark

    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    gid = running.driver.game_id
    due = running.driver.ruleset.next_deadline(running.state())
    running.store.set_board(gid, "memory:rehearsal")
    board = running.store.board_game("memory:rehearsal")
    clock = GameClock(due.at - timedelta(hours=2), 60.0)
    running.store.set_mark(board, "game_clock", clock_mark(clock))
    # no poll while it runs: each would swap the head in anew (the game time moves), under a screenshot
    left = "([h, m, s]) => h * 3600 + m * 60 + s"
    with Server(create_app(running.store, WebSettings(token=TOKEN, poll_ms=600_000))) as srv:
        opened = []  # both widths at once: their two real seconds run together
        for width, label in WIDTHS:
            context, page = open_page(browser, width)
            page.goto(f"{srv.url}/game/{gid}")
            first = page.locator(".countdown").inner_text()
            assert first.startswith("还剩 01:5"), first  # game time, not the browser's (days away)
            start = page.evaluate(f"t => ({left})(t.replace('还剩 ', '').split(':').map(Number))", first)
            opened.append((context, page, label, start))
        for context, page, label, start in opened:
            # 60×: two real seconds are two game minutes (waited for, at most 10 s)
            page.wait_for_function(f"""start => ({left})(document.querySelector('.countdown').textContent
                                   .replace('还剩 ', '').split(':').map(Number)) <= start - 100""", arg=start,
                                   timeout=10_000)
            assert "排练时钟" in page.locator(".rehearsal").inner_text()
            page.locator(".head").screenshot(path=str(shots / f"rehearsal-{label}.png"))
            context.close()


def test_log_and_the_count_on_the_page(server, game: Running, browser, shots: Path) -> None:
    """Items 5–7: every sent post of 神的使者 in the log; the count per target with its voters,
    the non-voters, each post marked."""
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        page.goto(f"{server.url}/game/{game.driver.game_id}")
        sent = [o for o in game.store.outbox(game.driver.game_id) if o.kind == "post" and o.status == "sent"]
        assert page.locator("#log li.board-post").count() == len(sent)
        today = page.locator("#votes details.day").first
        target = game.state().alive()[1].name
        row = today.locator(f'.tally-row[data-target="{target}"]')
        assert "(2)" in row.inner_text()
        assert "未投票" in today.locator(".not-voting").inner_text()
        assert today.locator(".vote-post .tag.mark").count() == today.locator(".vote-post").count() > 0
        closed = page.locator("#votes details.day").nth(1)
        closed.locator("summary").first.click()
        assert "最终计票" in closed.inner_text() and "本日" in closed.inner_text()
        no_sideways_scroll(page)
        page.screenshot(path=str(shots / f"count-log-{label}.png"), full_page=True)
    context.close()


def test_timeline_pages(server, game: Running, browser, shots: Path) -> None:
    """Item 9: a permanent link per ended phase, showing the page as it was then."""
    context, page = open_page(browser, WIDTHS[0][0])
    gid = game.driver.game_id
    for _, label in each_width(context, page):
        page.goto(f"{server.url}/game/{gid}")
        page.locator("#timeline a", has_text="第1天").click()
        page.wait_for_url(f"{server.url}/game/{gid}/day/1")
        assert "第1天结束时" in page.locator(".at-end").inner_text()
        state = game.state()
        for p in state.players:
            row = page.locator(f'#players li[data-player="{p.name}"]')
            gone_by_then = not p.alive and p.died_in in ("night 1", "day 1")
            assert ("出局" in row.inner_text()) == gone_by_then, p.name
        assert page.locator(".countdown").count() == 0
        no_sideways_scroll(page)
        page.screenshot(path=str(shots / f"timeline-{label}.png"))
    context.close()


@pytest.mark.parametrize(("width", "label"), WIDTHS)
def test_the_finished_game(finished, browser, shots: Path, width: int, label: str) -> None:
    """Item 8: roles revealed, the seed checked in the browser, the JSON downloaded, no polling."""
    running, srv = finished
    gid = running.driver.game_id
    context, page = open_page(browser, width)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.clock.install()  # a virtual clock: its timers run when it is run on
    page.goto(f"{srv.url}/game/{gid}")
    state = running.state()
    for p in state.players:
        role = running.driver.ruleset.spec.role_name(p.role)
        assert role in page.locator(f'#record tr[data-player="{p.name}"]').inner_text()
    page.locator(".verify-button").click()
    page.locator(".verify-result.ok").wait_for(timeout=5000)
    assert page.locator(".verify-result").inner_text().startswith("✔ 一致")
    with page.expect_download() as got:
        page.locator("a.download").click()
    data = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert data["record"]["seed"] == str(state.seed) and data["announcements"]
    page.clock.run_for(1000)  # three poll periods: nothing is fetched
    assert page.evaluate("fetch('/favicon.ico').then(r => r.status)") == 200  # a request after them
    assert not [u for u in asked if u.endswith("/fragment")]
    no_sideways_scroll(page)
    page.screenshot(path=str(shots / f"finished-{label}.png"), full_page=label == "desktop")
    context.close()


def test_gm_page_cards_words_and_commands(server, game: Running, browser, shots: Path) -> None:
    """Items 11–13: a card per player in Chinese, no sideways scroll on a phone, admin lines."""
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):  # logged in anew at each width
        log_in(page, server.url, f"/game/{game.driver.game_id}/gm")
        cards = page.locator("#roles li.player-card")
        assert cards.count() == len(game.state().players)
        roles = page.locator("#roles").inner_text()
        for raw in ("None", "True", "False", "=", "_"):
            assert raw not in roles, raw
        assert "下一个截止：投票截止" in page.locator("main").inner_text()
        first = cards.filter(has=page.locator("details.cmds")).first
        first.locator("details.cmds summary").click()
        assert "tianshen admin void-vote" in first.inner_text()
        no_sideways_scroll(page)
        page.screenshot(path=str(shots / f"gm-cards-{label}.png"))
    context.close()


def test_swap_keeps_what_the_reader_opened_and_selected(server, game: Running, browser) -> None:
    """Item 14: an opened <details> stays open, a closed one closed; while text is selected
    in the fragment, nothing is swapped."""
    context, page = open_page(browser, 1280)
    page.goto(f"{server.url}/game/{game.driver.game_id}")
    page.locator("#votes details.day").first.locator("details.history > summary").click()
    page.locator("#votes details.day").first.locator("summary").first.click()  # closed by the reader
    page.locator("#log details").first.locator("summary").click()
    alive = game.state().alive()
    page.evaluate("""() => { const r = document.createRange(); r.selectNodeContents(document.querySelector('#log h2'));
                             window.getSelection().removeAllRanges(); window.getSelection().addRange(r); }""")
    vote(game, alive[5].name, alive[6].name, "9011", minutes=8)
    polls_handled(page, 2)  # held back while selected
    assert page.evaluate("window.getSelection().toString()").startswith("天神的公告")
    assert page.locator("#votes .vote-post", has_text="#9011").count() == 0
    page.evaluate("window.getSelection().removeAllRanges()")
    page.locator("#votes .vote-post", has_text="#9011").wait_for(state="attached", timeout=10_000)
    assert page.evaluate("document.querySelector('#votes details.day').open") is False
    assert page.evaluate("document.querySelector('#votes details.day details.history').open") is True
    assert page.evaluate("document.querySelector('#log details').open") is True
    context.close()


def test_an_expired_session_says_so(server, game: Running, browser, shots: Path) -> None:
    """Item 14: a 401 or 403 while polling says 登录已过期 (the server's side is web/app.py's)."""
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        log_in(page, server.url, f"/game/{game.driver.game_id}/gm")
        page.route("**/gm/fragment", lambda route: route.fulfill(status=401, body="gone"))
        page.locator("#poll-note", has_text="登录已过期").wait_for(timeout=5000)
        page.locator("#poll-note").screenshot(path=str(shots / f"expired-{label}.png"))
        page.unroute("**/gm/fragment")
    context.close()


def test_timeline_pages_hold_no_hidden_information(server, game: Running, browser) -> None:
    """The leak scan on every timeline page: no living player's role, no account, no PM."""
    context, page = open_page(browser, 1280)
    gid = game.driver.game_id
    page.goto(f"{server.url}/game/{gid}")
    links = page.locator("#timeline a").evaluate_all("els => els.map(e => e.href)")
    assert len(links) >= 3
    state = game.state()
    ruleset = game.driver.ruleset
    revealed = {ruleset.public_identity(state, p) for p in state.players if not p.alive}
    hidden = {ruleset.spec.role_name(p.role) for p in state.alive()} - revealed
    for url in links:
        page.goto(url)
        page.locator("details").evaluate_all("els => els.forEach(e => e.open = true)")
        text = page.evaluate("""() => { const c = document.body.cloneNode(true);
                                 c.querySelectorAll('.board-post').forEach(e => e.remove()); return c.innerText; }""")
        html = page.content()
        for role in hidden:
            assert role not in text, (url, role)
        for p in state.players:
            assert p.forum_name not in html
        for o in game.store.outbox(gid):
            if o.kind == "pm":
                assert o.body.strip() not in html
        assert "随机种子" not in text
    context.close()


def test_the_json_before_the_end_holds_no_secret(server, game: Running) -> None:
    import httpx

    data = httpx.get(f"{server.url}/game/{game.driver.game_id}/record.json").json()
    assert "record" not in data and data["announcements"]
    state = game.state()
    ruleset = game.driver.ruleset
    revealed = {ruleset.public_identity(state, p) for p in state.players if not p.alive}
    flat = json.dumps({k: v for k, v in data.items() if k != "announcements"}, ensure_ascii=False)
    for p in state.alive():
        role = ruleset.spec.role_name(p.role)
        assert role in revealed or role not in flat, role
        assert p.forum_name not in flat


def test_an_unchanged_fragment_is_not_swapped(server, game: Running, browser) -> None:
    """Item 14: the first poll finds the page as served: nothing is replaced (a property set
    on a node of the fragment survives several polls)."""
    context, page = open_page(browser, 1280)
    log_in(page, server.url, f"/game/{game.driver.game_id}/gm")
    page.evaluate("document.querySelector('#roles h2').kept = 'yes'")  # a property: the HTML stays the same
    polls_handled(page, 3)
    assert page.evaluate("document.querySelector('#roles h2').kept") == "yes"
    context.close()


def test_the_pages_sha256_matches_pythons(server, game: Running, browser) -> None:
    """Item 8: the seed check runs in the page itself (no crypto.subtle on plain http)."""
    import hashlib

    context, page = open_page(browser, 1280)
    page.goto(f"{server.url}/game/{game.driver.game_id}")
    for text in ("", "abc", "a98ad9699253d50b5dcacda9e38214df:3", "种子" * 40, "x" * 55, "y" * 64):
        assert page.evaluate("t => window.tianshenSha256(t)", text) == hashlib.sha256(text.encode()).hexdigest()
    context.close()


def test_swap_keeps_the_readers_scroll(server, game: Running, browser) -> None:
    """Item 14: a reader scrolled down to day 1's count on a phone stays there when a new post
    of day 2 (above) comes in."""
    context, page = open_page(browser, 390)
    page.set_viewport_size({"width": 390, "height": 500})
    page.goto(f"{server.url}/game/{game.driver.game_id}")
    polls_handled(page, 1)  # the first poll has been
    day1 = "document.querySelector('#votes details[data-key=\"day-1\"]')"
    page.evaluate(f"window.scrollTo(0, {day1}.getBoundingClientRect().top + window.scrollY - 20)")
    assert page.evaluate("window.scrollY") > 500
    before = page.evaluate(f"{day1}.getBoundingClientRect().top")
    alive = game.state().alive()
    vote(game, alive[6].name, alive[0].name, "9021", minutes=9)  # a post in day 2, above what he reads
    page.locator("#votes .vote-post", has_text="#9021").wait_for(state="attached", timeout=10_000)
    after = page.evaluate(f"{day1}.getBoundingClientRect().top")
    assert abs(after - before) < 5, (before, after)
    context.close()
