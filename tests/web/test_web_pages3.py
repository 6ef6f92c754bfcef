"""Issue 38 items 5–7 without a browser: a finished game without a live clock, the page
without JavaScript, the tab title, the GM page's words, canonical phase links."""

from __future__ import annotations

import re
import warnings

import pytest
from web_game import TOKEN, at_vote, play_until

from tianshen.service.daemon import GameClock, clock_mark
from tianshen.web.app import WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

GM = {"Authorization": f"Bearer {TOKEN}"}


def rehearsed(running, scale: float) -> None:
    """The daemon's rehearsal-clock mark on the game's board row."""
    running.store.set_board(running.driver.game_id, "memory:test")
    board = running.store.board_game("memory:test")
    running.store.set_mark(board, "game_clock", clock_mark(GameClock(running.clock.now(), scale)))


@pytest.fixture(scope="module")
def over(tmp_path_factory: pytest.TempPathFactory):
    db = tmp_path_factory.mktemp("over3") / "g.db"
    running = play_until(f"sqlite:///{db}", "classic_8", 3, lambda s: s.phase.kind == "over", max_steps=80)
    rehearsed(running, 1200.0)
    return running


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):
    db = tmp_path_factory.mktemp("live3") / "g.db"
    running = play_until(f"sqlite:///{db}", "classic_8", 3, at_vote(1))
    rehearsed(running, 1200.0)
    return running


def client(running) -> TestClient:
    return TestClient(create_app(running.store, WebSettings(token=TOKEN)))


def test_a_finished_game_has_no_live_clock_and_says_it_no_longer_updates(over) -> None:
    html = client(over).get(f"/game/{over.driver.game_id}").text
    assert "game-clock" not in html and "排练时钟" not in html and 'class="countdown"' not in html
    assert "本局已结束，页面不再更新" in html and "data-src=" not in html


def test_a_running_game_says_its_rehearsal_speed_in_plain_numbers(live) -> None:
    html = client(live).get(f"/game/{live.driver.game_id}").text
    assert "以 1200 倍速运行" in html and "1200.0 倍速" not in html
    assert 'id="game-clock"' in html


def test_without_javascript_the_page_says_it_does_not_update(live) -> None:
    html = client(live).get(f"/game/{live.driver.game_id}").text
    assert '<span class="js-only" hidden>自动更新，无需刷新</span>' in html  # the script shows it
    assert re.search(r"<noscript>[^<]*不会自动更新", html)
    deadline = re.search(r'<p class="deadline">截止 <time[^>]*>([^<]+)</time>', html)
    assert deadline and "北京时间" in deadline.group(1)  # the deadline as text, without the script


def test_the_tab_title_names_the_phase_and_the_countdown_feeds_it(live) -> None:
    html = client(live).get(f"/game/{live.driver.game_id}").text
    title = re.search(r"<title>([^<]+)</title>", html).group(1)
    assert title.startswith("第1天") and live.driver.name in title
    assert re.search(r'class="countdown" data-deadline="[^"]+" data-title="第1天[^"]*"', html)


def test_phase_links_are_canonical(over) -> None:
    c, gid = client(over), over.driver.game_id
    assert c.get(f"/game/{gid}/day/1").status_code == 200
    for path in ("day/01", "day/001", "day/0", "day/1.0", "day/+1", "night/01"):
        assert c.get(f"/game/{gid}/{path}").status_code == 404, path


def test_the_gm_page_does_not_repeat_a_role_that_names_its_side(tmp_path) -> None:
    running = play_until(f"sqlite:///{tmp_path / 'hex.db'}", "hex_survival_12", 3, lambda s: s.phase.kind == "day")
    html = client(running).get(f"/game/{running.driver.game_id}/gm", headers=GM).text
    assert "红方</strong>" in html
    assert not re.search(r"(红方|蓝方)</strong> · \1", html)


def test_a_phase_page_steps_to_the_previous_and_next_phase(over) -> None:
    c, gid = client(over), over.driver.game_id
    paths = re.findall(rf'href="/game/{gid}/((?:day|night)/\d+)"', c.get(f"/game/{gid}").text)
    assert len(paths) >= 2
    for i, path in enumerate(paths):
        html = c.get(f"/game/{gid}/{path}").text
        steps = re.findall(r'rel="(prev|next)" href="([^"]+)"', html)
        before = [("prev", f"/game/{gid}/{paths[i - 1]}")] if i else []
        after = ("next", f"/game/{gid}/{paths[i + 1]}" if i + 1 < len(paths) else f"/game/{gid}")
        assert steps == before + [after], path
        assert ("没有更早的时段" in html) == (i == 0)


def test_board_texts_render_as_the_board_shows_them(over) -> None:
    """Item 4: the result table as a table, the killer's declaration as a quote, and the
    one-line summaries without pipes or quote marks."""
    html = client(over).get(f"/game/{over.driver.game_id}").text
    table = re.search(r'<table class="board-table"><thead><tr>(.*?)</tr></thead><tbody>(.*?)</tbody>', html)
    assert table and "<th>游戏者</th><th>得票</th>" in table.group(1)
    assert "<td>夜莺</td><td>5票</td>" in table.group(2)
    assert re.search(r"<blockquote>夜色像墨一样", html)
    texts = re.findall(r'<div class="board-text">(.*?)</div>\s*</details>', html, re.S)
    assert texts and not any(re.search(r"^\| |^&gt; ", t, re.M) for t in texts)
    summaries = re.findall(r"</span> ([^<]*)</summary>", html)
    assert summaries and not any("|" in s or s.startswith("&gt;") for s in summaries)


def test_player_text_stays_inert_in_a_board_text() -> None:
    from tianshen.web.app import _board, _short

    out = str(_board("| <b>x</b> | **y** |\n| <script>alert(1)</script> | a |\n> <img src=x onerror=1>\n**z**"))
    assert "<script>" not in out and "<img" not in out and "<b>x</b>" not in out
    assert "<th>&lt;b&gt;x&lt;/b&gt;</th><th><strong>y</strong></th>" in out
    assert "<blockquote>&lt;img src=x onerror=1&gt;</blockquote>" in out and out.endswith("<strong>z</strong>")
    assert _short("| 甲 | 3票 |\n> 引用\n**粗**") == "甲 3票 引用 粗"


# ---- item 6: one player's panel, and his own view after the game ------------------------------


def test_a_players_panel_shows_his_posts_and_votes_but_no_pm_before_the_end(tmp_path) -> None:
    from web_game import vote

    running = play_until(f"sqlite:///{tmp_path / 'p.db'}", "classic_10", 7, at_vote(2))
    state = running.state()
    me, other = [p for p in state.players if p.alive][:2]
    vote(running, me.name, other.name, "8801")
    c, gid = client(running), running.driver.game_id
    assert f'href="/game/{gid}/player/{me.seat}"' in c.get(f"/game/{gid}").text
    html = c.get(f"/game/{gid}/player/{me.seat}").text
    votes = re.search(r'id="player-votes">(.*?)</section>', html, re.S).group(1)
    assert f"投给 <strong>{other.name}</strong>" in votes and "#8801" in votes
    assert "游戏结束后公开" in html
    ruleset = running.driver.ruleset
    revealed = {ruleset.public_identity(state, p) for p in state.players if not p.alive}
    for p in state.alive():
        role = ruleset.spec.role_name(p.role)
        if role not in revealed:
            assert role not in html, role  # the leak scan: no living player's role
    for o in running.store.outbox(gid):
        if o.kind == "pm":
            assert o.body.strip()[:40] not in html  # no PM before the end
    assert str(state.salt) not in html
    for path in ("player/0", "player/01", "player/99", "player/x"):
        assert c.get(f"/game/{gid}/{path}").status_code == 404, path


def test_after_the_game_a_player_sees_his_own_pms_and_no_one_elses(over) -> None:
    c, gid = client(over), over.driver.game_id
    state = over.state()
    outbox = over.store.outbox(gid)
    for p in state.players:
        html = c.get(f"/game/{gid}/player/{p.seat}").text
        mine = [o for o in outbox if o.kind == "pm" and o.status == "sent" and o.target == (p.forum_name or p.name)]
        assert mine, p.name  # his role PM at least
        pms = re.search(r'id="player-pms">(.*?)</section>', html, re.S).group(1)
        for o in mine:
            first = o.body.strip().splitlines()[0].replace("**", "")
            assert first in re.sub(r"<[^>]+>", "", pms), (p.name, first)
        sent = [i for i in over.store.inbound(gid) if i.source == "pm" and i.sender == (p.forum_name or p.name)]
        assert pms.count("<li>") == len(mine) + len(sent), p.name  # his PMs, each once, and no one else's
        assert pms.count("神的使者发给他") == len(mine)


def test_the_hex_gm_page_writes_cells_as_the_map_does_and_no_attack_range_for_the_dead(tmp_path) -> None:
    running = play_until(f"sqlite:///{tmp_path / 'hex2.db'}", "hex_survival_12", 3,
                         lambda s: any(not p.alive for p in s.players) and s.phase.kind == "day")
    state = running.state()
    html = client(running).get(f"/game/{running.driver.game_id}/gm", headers=GM).text
    cells = set(re.findall(r'data-cell="([^"]+)"', html))
    the_map = running.driver.ruleset.board_map(state, True)
    assert cells == set(the_map.cells)  # a1, not A1
    for p in state.players:
        card = re.search(rf'<li class="player-card \w+" data-player="{p.name}">(.*?)</li>', html, re.S).group(1)
        if not p.alive:
            assert "攻击范围" not in card, p.name
    assert any("攻击范围" in re.search(rf'data-player="{p.name}">(.*?)</li>', html, re.S).group(1)
               for p in state.players if p.alive) or "攻击范围" not in html
