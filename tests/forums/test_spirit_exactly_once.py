"""Issue 13 on a live django-spirit 0.14.3 forum: `find_written` after a crash, player text
that stays text, two requests an idle poll, edits seen by a full re-read, refused logins."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup

from tianshen.forum.base import LoginRefused, Write
from tianshen.forum.render import render_post
from tianshen.forum.spirit import SpiritForum, SpiritPlayers

from .spirit_server import SpiritServer
from .test_spirit_adapter import Counter

GM = "神的使者"


def key() -> str:
    return f"t13:{uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def server(spirit_server_factory: Callable[..., SpiritServer]) -> SpiritServer:
    return spirit_server_factory(players=("白狐", "青竹", "夜莺", "alice"))


@pytest.fixture(scope="module")
def players(server: SpiritServer) -> Iterator[SpiritPlayers]:
    side = SpiritPlayers(server.base_url, server.players, GM)
    yield side
    side.close()


def gm_of(server: SpiritServer, **kw: object) -> SpiritForum:
    kw.setdefault("min_write_interval_s", 0)
    forum = SpiritForum(server.base_url, server.gm_username, server.gm_password, category=server.category,
                        **kw)  # type: ignore[arg-type]
    forum.login()
    return forum


def test_a_message_killed_after_part_two_is_found_part_by_part(server: SpiritServer) -> None:
    gm = gm_of(server)
    since = gm.now()
    tid = gm.create_thread("第1天 公告", "第一部分：天亮了", "m")
    parts = [render_post("第二部分：白狐说 https://2130706433/ @青竹", "markdown"), "第三部分"]
    pk2 = gm.reply(tid, parts[0], "m#2")
    gm.close()
    fresh = gm_of(server)  # the restarted daemon: nothing in memory
    assert fresh.find_written(Write("thread", "m", "第一部分：天亮了", title="第1天 公告", since=since)) == tid
    assert fresh.find_written(Write("reply", "m#2", parts[0], thread_id=tid, since=since)) == str(pk2)
    assert fresh.find_written(Write("reply", "m#3", parts[1], thread_id=tid, since=since)) is None
    # the part that did not arrive is sent; the rest are not sent again: 3 comments, not 5
    fresh.reply(tid, parts[1], "m#3")
    assert len(fresh.read_thread(tid, None)) == 3
    assert fresh.find_written(Write("thread", "m", "别的开场", title="第1天 公告", since=since)) is None
    assert fresh.find_written(Write("thread", "m", "第一部分：天亮了", title="第2天 公告", since=since)) is None
    later = fresh.now() + timedelta(minutes=5)
    assert fresh.find_written(Write("reply", "m#2", parts[0], thread_id=tid, since=later)) is None
    fresh.close()


def test_a_pm_is_found_in_the_private_topic(server: SpiritServer) -> None:
    gm = gm_of(server)
    since = gm.now()
    gm.send_pm("夜莺", "你的身份", "你是**村民**。", "p1")
    fresh = gm_of(server)
    assert fresh.find_written(Write("pm", "p1", "你是**村民**。", to="夜莺", subject="你的身份", since=since))
    assert fresh.find_written(Write("pm", "p2", "你是杀手。", to="夜莺", subject="你的身份", since=since)) is None
    assert fresh.find_written(Write("pm", "p1", "你是**村民**。", to="alice", subject="你的身份", since=since)) is None
    gm.close()
    fresh.close()


def test_player_text_in_an_announcement_is_no_link_image_mention_or_heading(
        server: SpiritServer, players: SpiritPlayers) -> None:
    gm = gm_of(server)
    tid = gm.create_thread("宣言", "白狐的宣言如下", key())
    declaration = ("https://2130706433/\nhttp://evil.example/cat.png\n@青竹 快看\n标题\n===\n副标题\n---\n"
                   ":smile: <http://x.org> &#64;alice")
    body = render_post("白狐宣言：\n" + "\n".join(f"> {line}" for line in declaration.split("\n")), "markdown")
    pk = gm.reply(tid, body, key())
    soup = BeautifulSoup(gm._http.get(f"/topic/{tid}/").text, "lxml")
    comment = soup.select_one(f'div.js-comment[data-pk="{pk}"] div.comment__text')
    assert comment is not None
    html = str(comment)
    assert comment.select("a, img, h1, h2, iframe, video, audio, i.tw") == [], html
    text = comment.get_text(" ")
    for literal in ("https://2130706433/", "http://evil.example/cat.png", "@青竹", "===", "---", ":smile:",
                    "<http://x.org>", "&#64;alice"):
        assert literal in text, (literal, text)
    assert gm.find_written(Write("reply", "k", body, thread_id=tid, since=gm.now() - timedelta(minutes=2))) == str(pk)
    # the player who was "mentioned" got no notification
    qingzhu = players.session("青竹")
    notes = qingzhu.client.get(server.base_url + "/topic/notification/ajax/",
                               headers={"X-Requested-With": "XMLHttpRequest"})
    assert notes.status_code == 200 and "宣言" not in notes.text
    gm.close()


def test_nul_in_a_post_is_dropped_not_refused(server: SpiritServer) -> None:
    gm = gm_of(server)
    tid = gm.create_thread("NUL 测试", "开场", key())
    gm.reply(tid, "投票\x00 白狐", key())
    assert [p.text for p in gm.read_thread(tid, None)][-1] == "投票 白狐"
    gm.close()


def test_an_idle_poll_makes_two_requests(server: SpiritServer, players: SpiritPlayers) -> None:
    counter = Counter()
    gm = gm_of(server, client=counter.client)
    tid = gm.create_thread("第1天 投票", "请投票", key())
    players.post("白狐", tid, "投票 青竹")
    players.pm("白狐", GM, "查验 青竹")
    pms = gm.fetch_pms(None)
    posts = gm.read_thread(tid, None)
    for mark in (None, pms[-1].id):  # before the first PM settled, and after
        for _ in range(2):
            asked = len(counter.requests)
            assert [p.id for p in gm.fetch_pms(mark)] == ([p.id for p in pms] if mark is None else [])
            assert gm.read_thread(tid, posts[-1].id) == []
            gm.now()  # the clock comes from the answers' Date headers
            assert len(counter.requests) - asked == 2, counter.requests[asked:]
    gm.close()


def test_a_full_re_read_sees_every_edit_and_reads_a_history_only_after_an_edit(
        server: SpiritServer, players: SpiritPlayers) -> None:
    counter = Counter()
    gm = gm_of(server, client=counter.client)
    tid = gm.create_thread("改票测试", "请投票", key())
    pk = players.post("青竹", tid, "投票 白狐")
    other = players.post("夜莺", tid, "投票 青竹")
    assert [p.edited for p in gm.read_thread(tid, None)] == [False, False, False]
    players.edit(pk, "青竹", "投票 夜莺")
    posts = {p.id: p for p in gm.read_thread(tid, None)}
    assert posts[pk].edited and posts[pk].text == "投票 夜莺" and posts[pk].original_text == "投票 白狐"
    assert not posts[other].edited and posts[other].original_text is None
    asked = len(counter.requests)
    again = {p.id: p for p in gm.read_thread(tid, None)}
    assert again[pk].edited and again[pk].original_text == "投票 白狐"
    assert counter.count("GET", "/comment/history/") == 1  # not read again while unchanged
    assert len(counter.requests) - asked == 1  # the one page
    players.edit(pk, "青竹", "投票 白狐")
    third = {p.id: p for p in gm.read_thread(tid, None)}
    assert third[pk].text == "投票 白狐" and third[pk].original_text == "投票 白狐"
    assert counter.count("GET", "/comment/history/") == 2
    gm.close()


def test_a_refused_password_is_never_sent_again(server: SpiritServer) -> None:
    counter = Counter()
    forum = SpiritForum(server.base_url, "alice", "wrong-password", client=counter.client, min_write_interval_s=0)
    with pytest.raises(LoginRefused, match="check the account name and password"):
        forum.login()
    posts = counter.count("POST", "/user/login/")
    asked = len(counter.requests)
    for call in (forum.login, lambda: forum.fetch_pms(None), lambda: forum.read_thread("1", None)):
        with pytest.raises(LoginRefused):
            call()
    assert posts == 1 and len(counter.requests) == asked
    assert server.players["alice"] not in str(forum.__dict__)  # no credentials kept in plain sight
    forum.close()
