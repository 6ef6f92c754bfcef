"""Issue 38 item 1 in Chromium at 1280 and 390 px, a screenshot of each: every announcement of
the log shows the board's time of its post (the forum's clock right after the write) in the
game's zone, never our send time."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_web_board_times import board_time
from test_web_browser_pages import SHOTS, WIDTHS, no_sideways_scroll, open_page
from web_game import TOKEN, Running, Server, at_vote, play_until

from tianshen.core.clock import show
from tianshen.web.app import WebSettings, create_app


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = SHOTS if os.environ.get("TIANSHEN_WEB_SCREENSHOTS") == "1" else tmp_path_factory.mktemp("shots-times")
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def january(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Server]]:
    db = tmp_path_factory.mktemp("times") / "g.db"
    running = play_until(f"sqlite:///{db}", "classic_10", 3, at_vote(1))  # the game runs in January
    with Server(create_app(running.store, WebSettings(token=TOKEN))) as srv:
        yield running, srv


@pytest.mark.parametrize(("width", "label"), WIDTHS)
def test_each_announcement_shows_the_boards_time_of_its_post(january, browser, shots: Path, width: int,
                                                             label: str) -> None:
    running, srv = january
    gid = running.driver.game_id
    sent = [o for o in running.store.outbox(gid) if o.kind == "post" and o.status == "sent"]
    assert len(sent) >= 3 and all(o.sent_at != board_time(running, o) for o in sent)  # two clocks apart
    context, page = open_page(browser, width)
    page.goto(f"{srv.url}/game/{gid}")
    stamps = page.locator("#log li.board-post summary .muted").all_inner_texts()
    zone = running.state().zone
    assert stamps == [show(board_time(running, o), zone) for o in sorted(sent, key=lambda o: o.seq)]
    assert all("1月" in s and "北京时间" in s for s in stamps)
    no_sideways_scroll(page)
    page.locator("#log").screenshot(path=str(shots / f"board-times-{label}.png"))
    context.close()
