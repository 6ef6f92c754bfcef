"""Issue 38 item 1: each announcement is stamped with the board's time of its post (the
forum's clock right after the write), in the game's clock — never our send time."""

from __future__ import annotations

import warnings
from datetime import datetime

from web_game import TOKEN, at_vote, play_until

from tianshen.web.app import WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def board_time(running, o) -> datetime:
    """When the board shows an outbox row's post (one that opened its thread: the first post)."""
    if o.forum_ref == running.store.thread_id(running.driver.game_id, o.target):
        return running.board.thread_posts(o.forum_ref)[0].posted_at
    return running.board.get_post(int(o.forum_ref)).posted_at


def test_announcements_carry_the_boards_time_of_their_post(tmp_path) -> None:
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_10", 3, at_vote(1))  # the game runs in January
    sent = [o for o in running.store.outbox(running.driver.game_id) if o.kind == "post" and o.status == "sent"]
    assert len(sent) >= 3
    for o in sent:
        assert o.board_at == board_time(running, o), o.key
    record = TestClient(create_app(running.store, WebSettings(token=TOKEN))).get(
        f"/game/{running.driver.game_id}/record.json").json()
    stamps = [datetime.fromisoformat(a["at"]) for a in record["announcements"]]
    assert stamps == [board_time(running, o) for o in sent]
    assert all(s.year == 2026 and s.month == 1 for s in stamps)  # the game's clock, not today's
    page = TestClient(create_app(running.store, WebSettings(token=TOKEN))).get(f"/game/{running.driver.game_id}")
    assert "1月2日" in page.text
    running.store.close()
