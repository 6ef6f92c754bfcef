"""The pages of every ruleset family, rendered without a browser (Starlette's test client)."""

from __future__ import annotations

import re
import warnings

import pytest
from web_game import TOKEN, at_vote, play_until

from tianshen.config import WebConfig
from tianshen.web.app import WebSettings, create_app
from tianshen.web.views import PostLinks, link_templates

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def client(running) -> TestClient:
    return TestClient(create_app(running.store, WebSettings(token=TOKEN)))


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize("variant", ["classic_8", "game_ten", "n_lives", "butterfly_elder", "hex_survival_12"])
def test_every_family_renders_at_its_first_vote(tmp_path, variant: str) -> None:
    first_day = (lambda s: s.phase.kind == "day") if variant == "butterfly_elder" else at_vote(1)  # no vote step
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", variant, 3, first_day)
    c = client(running)
    gid = running.driver.game_id
    public = c.get(f"/game/{gid}")
    assert public.status_code == 200
    said = "第1轮 · 投票" if variant == "butterfly_elder" else "第1天"  # issue 25 item 4: as the board says it
    assert said in public.text and "当前票数" in public.text
    for p in running.state().players:
        assert p.forum_name not in public.text
    gm = c.get(f"/game/{gid}/gm", headers={"Authorization": f"Bearer {TOKEN}"})
    assert gm.status_code == 200 and "身份（秘密）" in gm.text
    assert c.get("/").status_code == 200


def test_hex_map_public_shows_no_position_gm_shows_all(tmp_path) -> None:
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "hex_survival_12", 5, at_vote(1))
    c = client(running)
    gid = running.driver.game_id
    svg = re.search(r"<svg class=\"hexmap\".*?</svg>", c.get(f"/game/{gid}").text, re.S).group(0)
    assert svg.count('<g class="cell"') == 16  # the wrap-around copies are "cell ghost"
    assert 'class="who"' not in svg and 'class="depth"' not in svg
    for p in running.state().players:
        assert p.name not in svg
    gm_svg = re.search(r"<svg class=\"hexmap\".*?</svg>",
                       c.get(f"/game/{gid}/gm", headers={"Authorization": f"Bearer {TOKEN}"}).text, re.S).group(0)
    for p in running.state().alive():
        assert f"{p.name} {p.extra['hp']}" in gm_svg


def test_player_text_is_escaped(tmp_path) -> None:
    from datetime import timedelta

    from tianshen.core.model import PostIn

    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    author = running.state().alive()[0].name
    running.driver.handle(PostIn(id="77", thread="vote:1", author=author, text="<script>alert(1)</script>",
                                 at=running.clock.now() + timedelta(minutes=2)))
    html = client(running).get(f"/game/{running.driver.game_id}").text
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html


def test_post_links() -> None:
    assert link_templates("memory", "") == (None, None)
    links = PostLinks(link_templates("discuz", "https://bbs.example/"), {"vote:1": "123"})
    assert links.post("vote:1", "456") == "https://bbs.example/forum.php?mod=redirect&goto=findpost&ptid=123&pid=456"
    assert links.thread("vote:1") == "https://bbs.example/forum.php?mod=viewthread&tid=123"
    assert links.post("vote:2", "456") is None
    spirit = PostLinks(link_templates("spirit", "https://s.example"), {"vote:1": "9"})
    assert spirit.post("vote:1", "77") == "https://s.example/comment/77/find/"
    assert PostLinks((None, None), {"vote:1": "123"}).post("vote:1", "4") is None


def test_public_page_links_posts_by_the_template(tmp_path) -> None:
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    from datetime import timedelta

    from tianshen.core.model import PostIn

    a = running.state().alive()
    running.driver.handle(PostIn(id="4242", thread="vote:1", author=a[0].name, text=f"投票 {a[1].name}",
                                 at=running.clock.now() + timedelta(minutes=2)))
    thread = running.store.thread_id(running.driver.game_id, "vote:1")
    settings = WebSettings(token=TOKEN, post_url="https://b.example/p/{thread}/{post}",
                           thread_url="https://b.example/t/{thread}")
    html = TestClient(create_app(running.store, settings)).get(f"/game/{running.driver.game_id}").text
    assert f'href="https://b.example/p/{thread}/4242"' in html
    assert f'href="https://b.example/t/{thread}"' in html


def test_web_token_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("GM_WEB_TOKEN", "abc-def-ghi-jkl-mno")
    assert WebConfig(token_env="GM_WEB_TOKEN").secret() == "abc-def-ghi-jkl-mno"
    monkeypatch.delenv("GM_WEB_TOKEN")
    assert WebConfig(token_env="GM_WEB_TOKEN").secret() is None
    assert WebConfig().secret() is None and WebConfig().port == 8040


def test_no_token_configured_closes_the_gm_pages(tmp_path) -> None:
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    c = TestClient(create_app(running.store, WebSettings(token=None)))
    gid = running.driver.game_id
    assert c.get(f"/game/{gid}/gm").status_code == 401
    assert c.get(f"/game/{gid}/gm", headers={"Authorization": "Bearer x"}).status_code == 403
    assert c.get(f"/game/{gid}/gm/fragment?token=").status_code == 401


def test_replayed_events_give_the_stored_state(tmp_path) -> None:
    from tianshen.web.views import replay_state

    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_10", 7, lambda s: s.phase.kind == "over")
    events = running.store.events(running.driver.game_id)
    assert len(events) > 20
    assert replay_state(running.driver.ruleset, events) == running.state()
    assert replay_state(running.driver.ruleset, events, before_seq=2).phase.label == "night 1"


def test_a_death_not_yet_posted_stays_off_the_public_page(tmp_path) -> None:
    """The forum is down at the vote's end: the count is committed, its post waits in the
    outbox, and the public page still shows the day as the board does."""
    from tianshen.core.model import DeadlineIn
    from tianshen.service.driver import GameDriver, OfflineForum

    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    gid = running.driver.game_id
    c = client(running)
    before = text_of(c.get(f"/game/{gid}").text)
    offline = GameDriver(running.store, OfflineForum(), gid)
    due = offline.ruleset.next_deadline(offline.state())
    offline.handle(DeadlineIn(id="down", at=due.at, kind=due.kind))
    assert offline.state().phase.label != "day 1"
    assert any(o.status == "pending" and o.kind == "post" for o in running.store.outbox(gid))
    held = c.get(f"/game/{gid}").text
    day_tag = '<span class="tag big">第1天</span>'
    assert "还在发出中" in held and day_tag in held
    assert text_of(held).count("出局") == before.count("出局")
    running.driver.flush()  # the forum is back: everything is on the board
    after = c.get(f"/game/{gid}").text
    assert "还在发出中" not in after and day_tag not in after
    assert text_of(after).count("出局") > before.count("出局")  # someone went out at the count


def test_web_command_serves_the_config(tmp_path, monkeypatch) -> None:
    """`tianshen web --config`: the database and token of the file, the port given."""
    import uvicorn
    from typer.testing import CliRunner

    from tianshen.cli import app

    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "g.db"}"\n[web]\ntoken_env = "WEB_T"\n',
                      encoding="utf-8")
    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app_, **kw: served.update(app=app_, **kw))
    monkeypatch.setenv("WEB_T", "from-env-0123456789")
    result = CliRunner().invoke(app, ["web", "--config", str(config), "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert served["host"] == "127.0.0.1" and served["port"] == 8123 and served["server_header"] is False
    c = TestClient(served["app"])
    gid = running.driver.game_id
    assert c.get(f"/game/{gid}/gm", headers={"Authorization": "Bearer from-env-0123456789"}).status_code == 200
    assert c.get(f"/game/{gid}/gm", headers={"Authorization": "Bearer x"}).status_code == 403


def test_the_pages_show_times_in_the_games_zone(tmp_path) -> None:
    """Issue 23 item 1: the deadline, the GM page's next deadline and preview, and the input
    times go through the one formatter, in the game's zone — never `UTC` beside a local hour."""
    from tianshen.core.clock import show

    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    c = client(running)
    gid = running.driver.game_id
    state = running.state()
    due = running.driver.ruleset.next_deadline(state)
    public = text_of(c.get(f"/game/{gid}").text)
    assert "截止 " + show(due.at, state.zone) in public and "UTC" not in public
    gm = text_of(c.get(f"/game/{gid}/gm", headers={"Authorization": f"Bearer {TOKEN}"}).text)
    assert show(due.at, state.zone) in gm and "UTC" not in gm
    assert gm.count("（北京时间）") >= 3, gm  # next deadline, preview, inputs
