"""Issue 38, fast under many games: a game's public page is kept as a view of the game at
its newest event (and what its outbox sent); a request for a game that did not change folds
nothing and renders nothing, a new event or a sent post makes the next request see it."""

from __future__ import annotations

import re
import warnings
from datetime import datetime, timedelta

import pytest
from web_game import TOKEN, at_vote, play_until, vote

import tianshen.web.app as web_app
from tianshen.store import OutboxItem
from tianshen.web.app import UNSET_NOW, WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def counted(tmp_path, monkeypatch):
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    made: list[int] = []
    real = web_app._public_context

    def counting(store, settings, game_id, *args):
        made.append(game_id)
        return real(store, settings, game_id, *args)

    monkeypatch.setattr(web_app, "_public_context", counting)
    return running, made


def test_an_unchanged_game_is_served_from_its_view(counted) -> None:
    running, made = counted
    c, gid = TestClient(create_app(running.store, WebSettings(token=TOKEN))), running.driver.game_id
    first = c.get(f"/game/{gid}").text
    for _ in range(5):
        again = c.get(f"/game/{gid}").text
        assert again.split('data-game-now="')[0] == first.split('data-game-now="')[0]
    assert made == [gid]  # one fold and one render for six requests (no page cache: cache_s 0)
    c.get(f"/game/{gid}/fragment")
    assert made == [gid, gid]  # the fragment is a view of its own

    voter, target = running.state().players[0].name, running.state().players[1].name
    vote(running, voter, target, "9001")
    page = c.get(f"/game/{gid}").text
    assert len(made) == 3 and "#9001" in page  # a new event: folded once, and shown


def test_a_post_sent_meanwhile_shows_at_the_next_request(counted) -> None:
    running, made = counted
    c, gid = TestClient(create_app(running.store, WebSettings(token=TOKEN))), running.driver.game_id
    c.get(f"/game/{gid}")
    running.store.add_outbox(gid, [OutboxItem(kind="post", target="main", body="**补充说明**：测试的公告")])
    assert len(made) == 1 and "测试的公告" not in c.get(f"/game/{gid}").text  # pending: not on the board
    assert len(made) == 2
    assert running.driver.sender.send(running.store.pending_outbox(gid)) == 1
    assert "测试的公告" in c.get(f"/game/{gid}").text and len(made) == 3


def test_every_request_gets_the_games_time_of_its_own(counted, monkeypatch) -> None:
    running, _ = counted
    from tianshen.service.daemon import GameClock, clock_mark

    gid = running.driver.game_id
    running.store.set_board(gid, "memory:views")
    board = running.store.board_game("memory:views")
    running.store.set_mark(board, "game_clock", clock_mark(GameClock(running.clock.now(), 60.0)))
    c = TestClient(create_app(running.store, WebSettings(token=TOKEN)))
    stamps = []
    for _ in range(2):
        html = c.get(f"/game/{gid}").text
        assert UNSET_NOW.isoformat() not in html and "1901" not in html
        now = re.search(r'data-game-now="([^"]+)"', html).group(1)
        shown = re.search(r'现在游戏时间是 <time datetime="([^"]+)">([^<]+)</time>', html)
        assert shown.group(1) == now and "北京时间" in shown.group(2)
        stamps.append(datetime.fromisoformat(now))
    assert timedelta(0) < stamps[1] - stamps[0] < timedelta(minutes=30)  # 60 times real time, not the kept view's


def test_the_index_is_kept_until_a_game_is_added_or_steps(counted, monkeypatch) -> None:
    running, _ = counted
    read: list[object] = []
    real = web_app.index_page
    monkeypatch.setattr(web_app, "index_page", lambda *a, **k: read.append(a[1]) or real(*a, **k))
    c = TestClient(create_app(running.store, WebSettings(token=TOKEN)))
    first = c.get("/").text
    assert c.get("/").text == first and len(read) == 1  # the same games: read once (no page cache)
    c.get("/?status=running")
    assert len(read) == 2  # another query is a page of its own
    voter, target = running.state().players[0].name, running.state().players[1].name
    vote(running, voter, target, "9101")  # the game steps
    c.get("/")
    assert len(read) == 3


def test_a_post_the_board_refused_for_good_releases_the_held_page(counted) -> None:
    """pending -> failed changes neither the rows nor the sent ones: the view follows it too."""
    running, made = counted
    c, gid = TestClient(create_app(running.store, WebSettings(token=TOKEN))), running.driver.game_id
    running.store.add_outbox(gid, [OutboxItem(kind="post", target="main", body="等着发")])
    c.get(f"/game/{gid}")
    row = running.store.pending_outbox(gid)[-1]
    running.store.fail_outbox(row.id, "refused")
    c.get(f"/game/{gid}")
    assert len(made) == 2
