"""Issue 38, what it must show: the leak scan extended to each player's panel and his own view,
in Chromium.  Before the end no panel shows a living player's role, a forum account, a PM,
the seed or the salt; after the end each panel shows its player's own PMs and no one else's,
and not before the end post is on the board."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import update
from test_web_browser import secret_role_names
from test_web_browser_pages import SHOTS, WIDTHS, each_width, open_page
from web_game import TOKEN, Running, Server, play_until

from tianshen.store.models import OutboxRow
from tianshen.web.app import WebSettings, create_app

PLAYER_TEXT = """() => { const c = document.body.cloneNode(true);
    c.querySelectorAll('.vote-post .board-text').forEach(e => e.remove()); return c.innerText; }"""


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = SHOTS if os.environ.get("TIANSHEN_WEB_SCREENSHOTS") == "1" else tmp_path_factory.mktemp("shots-leaks")
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def ended(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Server]]:
    db = tmp_path_factory.mktemp("leaks") / "g.db"
    running = play_until(f"sqlite:///{db}", "classic_8", 5, lambda s: s.phase.kind == "over", max_steps=80)
    with Server(create_app(running.store, WebSettings(token=TOKEN))) as srv:
        yield running, srv


def _pm_texts(running: Running) -> list[tuple[str, str]]:
    """(account, a line of the PM) of every PM either way, long enough to be its own."""
    gid = running.driver.game_id
    out = [(o.target, line) for o in running.store.outbox(gid) if o.kind == "pm" and o.status == "sent"
           for line in o.body.replace("**", "").splitlines()[:1]]
    out += [(i.sender, i.text.strip()) for i in running.store.inbound(gid) if i.source == "pm"]
    return [(who, text) for who, text in out if len(text) >= 6]


def test_no_panel_leaks_before_the_end(server, game: Running, browser, shots: Path) -> None:
    state, gid = game.state(), game.driver.game_id
    hidden = secret_role_names(game)
    assert hidden and state.salt
    context, page = open_page(browser, 1280)
    for p in state.players:
        page.goto(f"{server.url}/game/{gid}/player/{p.seat}")
        page.locator("details").evaluate_all("els => els.forEach(e => e.open = true)")
        text, html = page.evaluate(PLAYER_TEXT), page.content()
        for role in hidden:
            assert role not in text, (p.name, role)
        for q in state.players:
            assert q.forum_name not in html, (p.name, q.forum_name)
        for _, pm in _pm_texts(game):
            assert pm not in text, (p.name, pm)
        assert "游戏结束后公开" in page.locator("#player-pms").inner_text()
        assert str(state.salt) not in html and "种子" not in text
    page.screenshot(path=str(shots / "panel-before-the-end.png"), full_page=True)
    context.close()


def test_after_the_end_each_panel_shows_his_own_pms_only(ended, browser, shots: Path) -> None:
    running, srv = ended
    state, gid = running.state(), running.driver.game_id
    pms = _pm_texts(running)
    context, page = open_page(browser, WIDTHS[0][0])
    for _, label in each_width(context, page):
        for p in state.players:
            page.goto(f"{srv.url}/game/{gid}/player/{p.seat}")
            shown = page.locator("#player-pms").inner_text()
            account = p.forum_name or p.name
            mine = [text for who, text in pms if who == account]
            assert mine, p.name
            for text in mine:
                assert text in shown, (p.name, text)
            for who, text in pms:
                if who != account and all(text not in m for m in mine):
                    assert text not in shown, (p.name, who, text)  # no one else's
        page.screenshot(path=str(shots / f"panel-own-pms-{label}.png"), full_page=True)
    context.close()


def test_no_own_view_while_the_end_post_is_not_on_the_board(ended, browser) -> None:
    running, srv = ended
    gid = running.driver.game_id
    end = max((o for o in running.store.outbox(gid) if o.kind == "post"), key=lambda o: o.seq)
    seat = running.state().players[0].seat
    context, page = open_page(browser, 390)
    try:
        with running.store.engine.begin() as conn:  # the end post still to send (the board was down)
            conn.execute(update(OutboxRow).where(OutboxRow.id == end.id).values(status="pending"))
        page.goto(f"{srv.url}/game/{gid}/player/{seat}")
        assert "游戏结束后公开" in page.locator("#player-pms").inner_text()
        assert page.locator("#player-pms li").count() == 0
    finally:
        with running.store.engine.begin() as conn:
            conn.execute(update(OutboxRow).where(OutboxRow.id == end.id).values(status="sent"))
    page.goto(f"{srv.url}/game/{gid}/player/{seat}")
    assert page.locator("#player-pms li").count() >= 1
    context.close()
