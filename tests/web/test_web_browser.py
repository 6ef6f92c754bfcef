"""Both pages of a running rehearsal in headless Chromium (issue 16)."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from test_web_browser_pages import each_width
from web_game import TOKEN, Running, log_in, vote

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def secret_role_names(game: Running) -> set[str]:
    """Role names of the living, except words the rules revealed anyway (a dead player's side)."""
    state = game.state()
    ruleset = game.driver.ruleset
    revealed = {ruleset.public_identity(state, p) for p in state.players if not p.alive}
    return {ruleset.spec.role_name(p.role) for p in state.alive()} - revealed


def visible_text_without_board_posts(page) -> str:
    """The page's text, less 神的使者's own posts (public rule texts may name any role)."""
    return page.evaluate("""() => {
        const copy = document.body.cloneNode(true);
        copy.querySelectorAll('.board-post').forEach(e => e.remove());
        return copy.innerText;
    }""")


def test_public_page_shows_the_game(server, game: Running, page) -> None:
    page.goto(f"{server.url}/game/{game.driver.game_id}")
    state = game.state()
    assert page.locator("h1").inner_text() == "classic_10-web"
    assert "第2天" in page.locator(".phase").inner_text()
    assert page.locator(".countdown").inner_text().startswith("还剩")
    rows = page.locator("#players li")
    assert rows.count() == len(state.players)
    for p in state.players:
        row = page.locator(f'#players li[data-player="{p.name}"]')
        assert ("存活" if p.alive else "出局") in row.inner_text()
    dead = next(p for p in state.players if not p.alive)
    side = game.driver.ruleset.public_identity(state, dead)
    assert side and side in page.locator(f'#players li[data-player="{dead.name}"]').inner_text()
    # the count is the ruleset's own 「票数」 answer: two votes for the same player
    target = state.alive()[1].name
    assert f"{target}：2票" in page.locator("#count").inner_text()
    # day 2's vote posts link to their forum ids, day 1's thread is there too
    assert page.locator("#votes .vote-post", has_text="#9001").count() == 1
    assert page.locator("#votes details.day > summary", has_text="第1天投票帖").count() == 1


def test_public_page_holds_no_hidden_information(server, game: Running, page) -> None:
    page.goto(f"{server.url}/game/{game.driver.game_id}")
    page.locator("details").evaluate_all("els => els.forEach(e => e.open = true)")
    text = visible_text_without_board_posts(page)
    full = page.locator("body").inner_text()
    html = page.content()
    state = game.state()
    hidden = secret_role_names(game)
    assert hidden, "the test needs living players with secret roles"
    for name in hidden:
        assert name not in text, f"role name {name} of a living player on the public page"
    for p in state.alive():
        row = page.locator(f'#players li[data-player="{p.name}"]').inner_text()
        assert game.driver.ruleset.spec.role_name(p.role) not in row
    for p in state.players:  # the forum account behind each 马甲, the role ids
        assert p.forum_name not in html
        assert f">{p.role}<" not in html
    for pm in game.store.inbound(game.driver.game_id):  # night actions, wills…
        if pm.source == "pm":
            assert pm.text.strip() not in text, f"a PM's text on the public page: {pm.text!r}"
    for o in game.store.outbox(game.driver.game_id):
        if o.kind == "pm":
            assert o.body.strip() not in html and o.body.strip() not in full
    assert "种子" not in text and TOKEN not in html


def test_gm_page_shows_the_secrets(server, game: Running, page) -> None:
    log_in(page, server.url, f"/game/{game.driver.game_id}/gm")
    assert page.url == f"{server.url}/game/{game.driver.game_id}/gm" and TOKEN not in page.url
    state = game.state()
    roles = page.locator("#roles").inner_text()
    for p in state.players:
        assert game.driver.ruleset.spec.role_name(p.role) in page.locator(f'#roles li[data-player="{p.name}"]').inner_text()
        assert p.forum_name in roles
    inputs = page.locator("#inputs").inner_text()
    assert "投票" in inputs
    assert page.locator("#preview").inner_text().count("投票截止") == 1  # issue 25 item 11: in words
    assert "延长时段" in page.locator("#overrides").inner_text()
    assert "论坛维护，顺延一小时" in page.locator("#overrides").inner_text()
    outbox = page.locator("#outbox")
    assert "已发" in outbox.inner_text()
    assert outbox.locator("li").count() == len(game.store.outbox(game.driver.game_id))


def test_gm_page_inputs_carry_their_receipts(server, game: Running, page) -> None:
    """A night PM of night 2 (the previous phase) is not listed; today's input is, and a PM
    asking 「票数」 shows the answer it got."""
    alive = game.state().alive()
    from datetime import timedelta

    from tianshen.core.model import PmIn

    game.driver.handle(PmIn(id="pm-count-1", sender=alive[3].name, at=game.clock.now() + timedelta(minutes=6),
                            text="票数"))
    log_in(page, server.url, f"/game/{game.driver.game_id}/gm")
    item = page.locator("#inputs li", has_text="票数")
    assert item.count() == 1
    assert "目前的票数" in item.locator(".receipt").inner_text()


@pytest.mark.parametrize("suffix", ["/gm", "/gm/fragment"])
def test_gm_pages_refuse_a_missing_or_wrong_token(server, game: Running, page, suffix: str) -> None:
    url = f"{server.url}/game/{game.driver.game_id}{suffix}"
    secret = game.driver.ruleset.spec.role_name(game.state().alive()[0].role)
    response = page.goto(url)
    assert response.status == 401
    assert "身份（秘密）" not in page.content()
    response = page.goto(url + f"?token={TOKEN}")  # a token in the URL is never taken
    assert response.status == 401
    assert "身份（秘密）" not in page.content()
    for headers, cookies in (({}, {}), ({"Authorization": "Bearer wrong"}, {}), ({}, {"tianshen_gm": "wrong"}),
                             ({"Authorization": "Basic " + TOKEN}, {})):
        r = httpx.get(url, headers=headers, cookies=cookies)
        assert r.status_code in (401, 403), (headers, cookies)
        assert "论坛账号" not in r.text and secret not in r.text
    assert httpx.get(url, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_new_vote_appears_without_reload(server, game: Running, page) -> None:
    page.goto(f"{server.url}/game/{game.driver.game_id}")
    page.evaluate("window.__same_page = 'yes'")
    alive = game.state().alive()
    voter, target = alive[4], alive[5]
    assert voter.name not in page.locator("#votes details.day .posts").first.inner_text()
    vote(game, voter.name, target.name, "9003", minutes=7)
    post = page.locator("#votes .vote-post", has_text="#9003")
    post.wait_for(timeout=10_000)
    assert voter.name in post.inner_text()
    page.locator("#count", has_text=f"{target.name}：1票").wait_for(timeout=10_000)
    assert page.evaluate("window.__same_page") == "yes"  # no reload happened


def test_screenshots(server, game: Running, browser, tmp_path: Path) -> None:
    """Phone and desktop widths of both pages; kept in docs/screenshots with
    TIANSHEN_WEB_SCREENSHOTS=1 (see docs/web.md)."""
    out = SHOTS if os.environ.get("TIANSHEN_WEB_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    gid = game.driver.game_id
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, locale="zh-CN")
    page = context.new_page()
    for width, label in each_width(context, page, ((390, 844, "phone"), (1280, 900, "desktop"))):
        page.goto(f"{server.url}/game/{gid}")
        page.screenshot(path=str(out / f"public-{label}.png"), full_page=label == "desktop")
        log_in(page, server.url, f"/game/{gid}/gm")
        page.set_viewport_size({"width": width, "height": 1500 if label == "desktop" else 844})
        page.screenshot(path=str(out / f"gm-{label}.png"))  # the top: roles, inputs, preview
    context.close()
    assert (out / "gm-desktop.png").stat().st_size > 10_000


def test_hex_map_in_the_browser(browser, tmp_path: Path) -> None:
    """hex_survival: the public map is cells only; the GM's shows who stands where, with HP."""
    from web_game import Server, at_vote, play_until_now

    from tianshen.web.app import WebSettings, create_app

    game = play_until_now(f"sqlite:///{tmp_path / 'hex.db'}", "hex_survival_12", 5, at_vote(1))
    out = SHOTS if os.environ.get("TIANSHEN_WEB_SCREENSHOTS") == "1" else tmp_path
    with Server(create_app(game.store, WebSettings(token=TOKEN))) as srv:
        context = browser.new_context(viewport={"width": 1000, "height": 900}, locale="zh-CN")
        page = context.new_page()
        page.goto(f"{srv.url}/game/{game.driver.game_id}")
        public_map = page.locator("#map svg")
        assert public_map.locator("g.cell:not(.ghost)").count() == 16
        public_map.locator('g.cell:not(.ghost)[data-cell="b2"]').click()  # its neighbours light up
        near = set(public_map.locator("g.cell.near").evaluate_all("els => els.map(e => e.dataset.cell)"))
        wanted = set(public_map.locator('g.cell:not(.ghost)[data-cell="b2"]').get_attribute("data-neighbours").split())
        assert near == wanted and "c1" in near and len(wanted) == 6
        assert public_map.locator("text.who").count() == 0
        log_in(page, srv.url, f"/game/{game.driver.game_id}/gm")
        who = page.locator("#map svg text.who").all_text_contents()
        alive = game.state().alive()
        assert sorted(who) == sorted(f"{p.name} {p.extra['hp']}" for p in alive)
        page.locator("#map").screenshot(path=str(out / "hex-gm-map.png"))
        context.close()
