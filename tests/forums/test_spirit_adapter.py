"""The django-spirit adapter against a live Spirit 0.14.3 forum (see conftest.py).

Every test works in its own topics and with its own players, so they can share one forum
(this module's own; a second one has the rate limits on).
"""

from __future__ import annotations

import inspect
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from bs4 import BeautifulSoup

from tianshen.forum.base import Forum, ForumError, PlayerSide
from tianshen.forum.spirit import (
    SpiritForum,
    SpiritPlayers,
    content_hash,
    html_to_text,
    parse_spirit_date,
    pm_topic_title,
)

from .spirit_server import SpiritServer

GM = "神的使者"


def key() -> str:
    return f"test:{uuid.uuid4().hex}"


class Counter:
    """An httpx client that counts the requests it makes, by method and path."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.client = httpx.Client(event_hooks={"request": [self._hook]}, timeout=30)

    def _hook(self, request: httpx.Request) -> None:
        self.requests.append((request.method, request.url.path))

    def count(self, method: str, prefix: str = "") -> int:
        return sum(1 for m, p in self.requests if m == method and p.startswith(prefix))


def make_gm(server: SpiritServer, **kw: object) -> SpiritForum:
    kw.setdefault("min_write_interval_s", 0)
    forum = SpiritForum(server.base_url, server.gm_username, server.gm_password,
                        category=server.category, **kw)  # type: ignore[arg-type]
    forum.login()
    return forum


@pytest.fixture(scope="module")
def spirit_server(spirit_server_factory: Callable[..., SpiritServer]) -> SpiritServer:
    """A forum of this module's own: the PMs these tests leave behind stay out of other tests' games."""
    return spirit_server_factory()


@pytest.fixture(scope="module")
def gm(spirit_server: SpiritServer) -> Iterator[SpiritForum]:
    forum = make_gm(spirit_server)
    yield forum
    forum.close()


@pytest.fixture(scope="module")
def players(spirit_server: SpiritServer) -> Iterator[SpiritPlayers]:
    side = SpiritPlayers(spirit_server.base_url, spirit_server.players, GM)
    yield side
    side.close()


def last_pm_id(forum: SpiritForum) -> int | None:
    pms = forum.fetch_pms(None)
    return pms[-1].id if pms else None


# ---- without a forum -----------------------------------------------------------------


def test_parse_spirit_dates() -> None:
    iso = parse_spirit_date("2026-12-02T13:46:49.022167+00:00")
    assert iso == datetime(2026, 12, 2, 13, 46, 49, 22167, tzinfo=UTC)
    assert parse_spirit_date("Dec. 2, 2026, 1:45 p.m.") == datetime(2026, 12, 2, 13, 45, tzinfo=UTC)
    assert parse_spirit_date("May 1, 2026, 3 a.m.") == datetime(2026, 5, 1, 3, 0, tzinfo=UTC)
    assert parse_spirit_date("Sept. 9, 2026, noon") == datetime(2026, 9, 9, 12, 0, tzinfo=UTC)
    assert parse_spirit_date("March 31, 2026, midnight") == datetime(2026, 3, 31, 0, 0, tzinfo=UTC)
    assert parse_spirit_date("Jan. 5, 2026, 12:30 a.m.") == datetime(2026, 1, 5, 0, 30, tzinfo=UTC)
    from zoneinfo import ZoneInfo
    shanghai = parse_spirit_date("Dec. 2, 2026, 9:45 p.m.", ZoneInfo("Asia/Shanghai"))
    assert shanghai == datetime(2026, 12, 2, 13, 45, tzinfo=UTC)
    with pytest.raises(ForumError):
        parse_spirit_date("yesterday")


def test_html_to_text_recovers_lines_quotes_and_lists() -> None:
    html = ("<div><p>杀 丙<br>\n宣言：我是<strong>好人</strong> &lt;b&gt;</p>\n<p>第二段 <code>x</code></p>\n"
            "<blockquote><p>白狐：投票 青竹<br>\n理由</p></blockquote>\n<p>投票：<a href='/u'>@夜莺</a></p>"
            "<ol><li>一</li><li>二</li></ol><ul><li>a</li></ul></div>")
    text = html_to_text(BeautifulSoup(html, "lxml").div)
    assert text == ("杀 丙\n宣言：我是好人 <b>\n\n第二段 x\n\n> 白狐：投票 青竹\n> 理由\n\n投票：@夜莺\n\n"
                    "1. 一\n2. 二\n\n- a")


def test_content_hash_is_32_hex() -> None:
    h = content_hash("game:1:pm:7")
    assert len(h) == 32 and int(h, 16) >= 0 and h == content_hash("game:1:pm:7") != content_hash("x")


# ---- login, session, clock -----------------------------------------------------------


def test_login_and_forum_shape(gm: SpiritForum, players: SpiritPlayers) -> None:
    forum: Forum = gm
    side: PlayerSide = players
    assert forum.account == GM
    assert forum.markup == "markdown" and forum.max_post_chars == 3000
    assert callable(side.pm)


def test_the_spirit_login_is_the_guarded_login_of_the_other_boards() -> None:
    """One login that remembers a refusal (forum.writes.GuardedLogin), not a copy of it; a
    guest's account (no name) never logs in."""
    from tianshen.forum.spirit.client import _Account
    from tianshen.forum.writes import GuardedLogin

    assert issubclass(_Account, GuardedLogin)
    assert "guard.note_refused" not in inspect.getsource(_Account)
    guest = _Account("http://127.0.0.1:9", None, None)
    guest.login()  # no request: nothing listens on port 9
    assert guest.logins == 0 and not guest.logged_in


def test_wrong_password_is_a_clear_error_without_retry(spirit_server: SpiritServer) -> None:
    counter = Counter()
    forum = SpiritForum(spirit_server.base_url, spirit_server.gm_username, "not-the-password-xyz",
                        client=counter.client, min_write_interval_s=0)
    with pytest.raises(ForumError) as err:
        forum.login()
    message = str(err.value)
    assert "password" in message and GM in message
    assert "not-the-password-xyz" not in message and spirit_server.gm_password not in message
    assert counter.count("POST", "/user/login/") == 1


def test_now_is_the_server_clock(gm: SpiritForum) -> None:
    now = gm.now()
    assert now.tzinfo is not None and now.utcoffset() == timedelta(0)
    assert abs((now - datetime.now(UTC)).total_seconds()) < 5


def test_logged_out_session_is_reestablished_once(spirit_server: SpiritServer, players: SpiritPlayers) -> None:
    clock = [1000.0]
    forum = make_gm(spirit_server, monotonic=lambda: clock[0])
    tid = forum.create_thread("会话测试", "开场", key())
    assert forum.logins == 1
    # The forum forgets the GM's sessions (as when they expire or the server's sessions are cleared).
    spirit_server.shell(
        "from django.contrib.sessions.models import Session\n"
        "from django.contrib.auth import get_user_model\n"
        f"gm = get_user_model().objects.get(username='{GM}')\n"
        "n = 0\n"
        "for s in Session.objects.all():\n"
        "    if s.get_decoded().get('_auth_user_id') == str(gm.pk):\n"
        "        s.delete(); n += 1\n"
        "print(n)\n")
    posts = forum.read_thread(tid, None)  # a GET: redirected to the login page -> log in, retry
    assert [p.text for p in posts] == ["开场"]
    assert forum.logins == 2
    # A POST without any cookies (CSRF and session gone) also logs in again, once — the
    # next re-login is allowed a backoff period (60 s) after the last one.
    forum._http.client.cookies.clear()
    with pytest.raises(ForumError, match="not logging in again for 60 s"):
        forum.reply(tid, "第二帖", key())
    clock[0] += 61
    pk = forum.reply(tid, "第二帖", key())
    assert forum.logins == 3
    assert [p.id for p in forum.read_thread(tid, None)][-1] == pk
    forum.close()


# ---- PMs -------------------------------------------------------------------------------


def test_pm_player_to_gm_with_high_water_mark(gm: SpiritForum, players: SpiritPlayers) -> None:
    mark = last_pm_id(gm)
    before = datetime.now(UTC)
    pk = players.pm("灯笼", GM, "杀 丙\n宣言：我是预言家，验了**茶壶**", subject="夜间行动")
    pms = gm.fetch_pms(mark)
    assert [(p.id, p.sender, p.subject, p.text) for p in pms] == \
        [(pk, "灯笼", "夜间行动", "杀 丙\n宣言：我是预言家，验了茶壶")]
    assert abs((pms[0].sent_at - before).total_seconds()) < 5
    assert gm.fetch_pms(pk) == []
    pk2 = players.pm("灯笼", GM, "补充：\n\n第二段")
    assert [(p.id, p.text) for p in gm.fetch_pms(pk)] == [(pk2, "补充：\n\n第二段")]
    assert pk2 > pk
    # A lower mark (the bot re-reads after a crash) gets both again.
    assert [p.id for p in gm.fetch_pms(mark)] == [pk, pk2]


def test_fetch_pms_does_not_reread_unchanged_topics(spirit_server: SpiritServer, players: SpiritPlayers) -> None:
    counter = Counter()
    forum = make_gm(spirit_server, client=counter.client)
    forum.fetch_pms(None)
    counter.requests.clear()
    assert forum.fetch_pms(None) == forum.fetch_pms(None)
    assert counter.count("GET", "/topic/private/") > 0
    assert all(p == "/topic/private/" for _, p in counter.requests)  # only the list, no topic pages
    mark = last_pm_id(forum)
    counter.requests.clear()
    pk = players.pm("雨伞", GM, "新消息")
    assert [p.id for p in forum.fetch_pms(mark)] == [pk]
    topic_pages = [p for _, p in counter.requests if p != "/topic/private/"]
    assert len(topic_pages) <= 2, topic_pages
    forum.close()


def test_a_restart_reads_only_the_private_topics_with_news(spirit_server: SpiritServer,
                                                            players: SpiritPlayers) -> None:
    """A new process given the last one's `pm_positions` reads only the topics that changed
    since (not every private topic of the GM), from where the last one stopped, and hands out
    only the PMs the last one had not."""
    first = make_gm(spirit_server)
    for sender in ("寒梅", "bob", "石榴"):  # players no other test here PMs with: topics of their own
        players.pm(sender, GM, f"{sender}的第一条")
        players.pm(sender, GM, f"{sender}的第二条")
    first.fetch_pms(None)
    positions = first.pm_positions()
    first.close()
    pk = players.pm("bob", GM, "重启后的新消息")
    counter = Counter()
    again = make_gm(spirit_server, client=counter.client)
    again.resume_pms(positions)
    counter.requests.clear()
    assert [(p.id, p.text) for p in again.fetch_pms(None)] == [(pk, "重启后的新消息")]
    topic_pages = {p for _, p in counter.requests if p != "/topic/private/"}
    assert len(topic_pages) == 1 and len([p for _, p in counter.requests if p in topic_pages]) <= 2, counter.requests
    # positions it cannot read: every topic is read again
    cold = make_gm(spirit_server)
    cold.resume_pms("not json")
    assert pk in [p.id for p in cold.fetch_pms(None)] and len(cold.fetch_pms(None)) > 1
    again.close()
    cold.close()


def test_pm_gm_to_player_one_topic_per_player(gm: SpiritForum, players: SpiritPlayers) -> None:
    gm.send_pm("铜铃", "你的身份", "你是**平民**。\n白天投票，夜里睡觉。", key())
    gm.send_pm("铜铃", "", "第二条私信", key())
    inbox = players.inbox("铜铃")
    assert [(p.sender, p.subject, p.text) for p in inbox] == [
        (GM, pm_topic_title(GM, "铜铃"), "你的身份\n\n你是平民。\n白天投票，夜里睡觉。"),
        (GM, pm_topic_title(GM, "铜铃"), "第二条私信"),
    ]
    assert inbox[0].id < inbox[1].id
    # The player answers in that topic; the GM sees it with the topic's title as subject.
    mark = last_pm_id(gm)
    pk = players.pm("铜铃", GM, "收到")
    assert [(p.id, p.sender, p.subject, p.text) for p in gm.fetch_pms(mark)] == \
        [(pk, "铜铃", pm_topic_title(GM, "铜铃"), "收到")]
    assert len(players.session("铜铃").private_topics()) == 1
    # Other players do not see it.
    assert all(p.sender != GM or "铜铃" not in p.subject for p in players.inbox("alice"))


def test_send_pm_retry_with_same_key_is_not_duplicated(spirit_server: SpiritServer, gm: SpiritForum,
                                                       players: SpiritPlayers) -> None:
    k = key()
    gm.send_pm("纸鸢", "", "你的身份是警察", k)  # opens the topic
    gm.send_pm("纸鸢", "", "你的身份是警察", k)  # same adapter: remembered
    k2 = key()
    gm.send_pm("纸鸢", "", "第一晚请验人", k2)
    restarted = make_gm(spirit_server)  # a restarted bot: only the forum's hash can tell
    restarted.send_pm("纸鸢", "", "第一晚请验人", k2)
    assert [p.text for p in players.inbox("纸鸢")] == ["你的身份是警察", "第一晚请验人"]
    restarted.close()


def test_pm_from_player_without_gm_topic_opens_one(gm: SpiritForum, players: SpiritPlayers) -> None:
    mark = last_pm_id(gm)
    pk = players.pm("松鼠", GM, "请问规则？")
    pms = gm.fetch_pms(mark)
    assert [(p.id, p.sender, p.subject, p.text) for p in pms] == [(pk, "松鼠", "松鼠的私信", "请问规则？")]


def test_rendered_announcement_reads_back_as_its_text(gm: SpiritForum, players: SpiritPlayers) -> None:
    from tianshen.forum.render import render_parts
    body = ("公告：\n> 白狐：我是**好人**\n1. 不是列表\n*星号* _下划线_ [链接] #标题 a|b ~c~\n"
            "| 玩家 | 票数 |\n| 白狐 | 2 |\n| 青竹 | 1 |\n结束")
    parts = render_parts(body, gm.markup, gm.max_post_chars)
    for i, part in enumerate(parts):
        gm.send_pm("茶壶", "", part, key() + f"#{i}")
    [got] = players.inbox("茶壶")
    # Markdown makes the quote and the table blocks of their own (blank lines around them);
    # bold keeps only its text.
    assert got.text == ("公告：\n\n> 白狐：我是好人\n\n1. 不是列表\n*星号* _下划线_ [链接] #标题 a|b ~c~\n\n"
                        "| 玩家 | 票数 |\n| 白狐 | 2 |\n| 青竹 | 1 |\n\n结束")


# ---- public threads --------------------------------------------------------------------


def test_thread_across_pages_and_from_after_id(spirit_server: SpiritServer, gm: SpiritForum,
                                               players: SpiritPlayers) -> None:
    tid = gm.create_thread("第1天 投票", "请在此帖投票：投票：名字", key())
    authors = ["白狐", "铜铃", "夜莺", "孤舟", "纸鸢", "石榴", "墨鱼", "飞燕", "老槐", "山雀", "灯笼"]
    pks = [players.post(a, tid, f"投票：{authors[(i + 1) % len(authors)]}") for i, a in enumerate(authors)]
    gm_pk = gm.reply(tid, "**统计**\n白狐 2 票", key())
    posts = gm.read_thread(tid, None)
    assert len(posts) == 13 > 2 * 5  # comments_per_page is 5: three pages
    assert [p.position for p in posts] == list(range(1, 14))
    assert [p.author for p in posts] == [GM] + authors + [GM]
    assert [p.id for p in posts[1:]] == pks + [gm_pk]
    assert all(a < b for a, b in zip([p.id for p in posts], [p.id for p in posts][1:], strict=False))
    assert posts[-1].text == "统计\n白狐 2 票"
    assert all(p.thread_id == tid and not p.edited and p.original_text is None for p in posts)
    assert posts[0].posted_at <= posts[-1].posted_at
    # From a high-water mark: only newer posts; the page that holds the mark is the first read.
    assert [p.id for p in gm.read_thread(tid, pks[6])] == pks[7:] + [gm_pk]
    assert gm.read_thread(tid, gm_pk) == []
    # A fresh adapter with a mark (no page cache) finds them by searching back from the last page.
    counter = Counter()
    fresh = make_gm(spirit_server, client=counter.client)
    counter.requests.clear()
    assert [p.id for p in fresh.read_thread(tid, pks[8])] == pks[9:] + [gm_pk]
    assert counter.count("GET", "/topic/") <= 4
    counter.requests.clear()
    players.post("飞燕", tid, "投票：灯笼")
    assert [p.author for p in fresh.read_thread(tid, gm_pk)] == ["飞燕"]
    assert counter.count("GET", "/topic/") == 1  # only the last page
    fresh.close()
    assert players.thread_posts(tid)[-1].text == "投票：灯笼"


def test_moderation_and_removed_rows_are_skipped(gm: SpiritForum, players: SpiritPlayers) -> None:
    tid = gm.create_thread("第2天 投票", "投票开始", key())
    a = players.post("老槐", tid, "投票：山雀")
    b = players.post("山雀", tid, "投票：老槐")
    r = gm._http.post_form(f"/comment/{b}/delete/", {})
    assert r.status_code == 302
    r = gm._http.post_form(f"/topic/moderate/lock/{tid}/", {})
    assert r.status_code == 302
    posts = gm.read_thread(tid, None)
    assert [(p.id, p.position, p.text) for p in posts] == [(posts[0].id, 1, "投票开始"), (a, 2, "投票：山雀")]
    soup = BeautifulSoup(gm._http.get(f"/topic/{tid}/").text, "lxml")
    assert "closed this" in soup.select_one("div.comments_list").get_text()  # the row is there, skipped
    with pytest.raises(ForumError, match="closed"):
        players.post("老槐", tid, "太晚了")
    # Edits stay possible after the lock (Spirit allows them).
    players.edit(a, "老槐", "投票：灯笼")
    [_, edited] = gm.read_thread(tid, None)
    assert (edited.text, edited.edited, edited.original_text) == ("投票：灯笼", True, "投票：山雀")


def test_edited_post_has_original_text(gm: SpiritForum, players: SpiritPlayers) -> None:
    tid = gm.create_thread("编辑测试", "开始", key())
    pk = players.post("灯笼", tid, "投票：雨伞\n理由：发言太少")
    other = players.post("雨伞", tid, "投票：灯笼")
    players.edit(pk, "灯笼", "投票：铜铃")
    players.edit(pk, "灯笼", "投票：纸鸢")
    posts = {p.id: p for p in gm.read_thread(tid, None)}
    assert posts[pk].edited and posts[pk].text == "投票：纸鸢"
    assert posts[pk].original_text == "投票：雨伞\n理由：发言太少"
    assert not posts[other].edited and posts[other].original_text is None
    with pytest.raises(ForumError):
        players.edit(other, "灯笼", "改别人的帖子")


def test_identical_consecutive_posts_both_land(gm: SpiritForum, players: SpiritPlayers) -> None:
    tid = gm.create_thread("重复测试", "开始", key())
    p1 = players.post("铜铃", tid, "投票：纸鸢")
    p2 = players.post("铜铃", tid, "投票：纸鸢")
    assert p1 != p2
    assert [p.id for p in gm.read_thread(tid, None)][1:] == [p1, p2]


def test_gm_retry_with_same_key_is_not_duplicated(spirit_server: SpiritServer, gm: SpiritForum,
                                                  players: SpiritPlayers) -> None:
    k_thread = key()
    tid = gm.create_thread("重试测试", "开场", k_thread)
    # The answer was lost and the bot restarted: the forum drops the repeat (same topic_hash).
    assert make_gm(spirit_server).create_thread("重试测试", "开场", k_thread) == tid
    k = key()
    pk = gm.reply(tid, "天亮了", k)
    assert gm.reply(tid, "天亮了", k) == pk  # remembered by this adapter
    players.post("松鼠", tid, "投票：茶壶")  # someone posts before the retry
    restarted = make_gm(spirit_server)
    assert restarted.reply(tid, "天亮了", k) == pk  # dropped by the forum (same comment_hash)
    texts = [(p.author, p.text) for p in gm.read_thread(tid, None)]
    assert texts == [(GM, "开场"), (GM, "天亮了"), ("松鼠", "投票：茶壶")]
    # The same text with a new key is a new post (announcements may repeat).
    pk2 = restarted.reply(tid, "天亮了", key())
    assert pk2 > pk
    restarted.close()


def test_gm_writes_are_spaced(spirit_server: SpiritServer) -> None:
    waits: list[float] = []
    forum = make_gm(spirit_server, min_write_interval_s=10, sleep=waits.append)
    tid = forum.create_thread("间隔测试", "一", key())
    forum.reply(tid, "二", key())
    assert len(waits) == 1 and 8 < waits[0] <= 10
    forum.close()


# ---- rate limits on (a second forum) ---------------------------------------------------


@pytest.fixture(scope="module")
def limited(spirit_server_factory: Callable[..., SpiritServer]) -> SpiritServer:
    # Rate limits on, and Spirit's default minute-precision dates.
    return spirit_server_factory(ratelimit=True, iso_dates=False, players=("白狐", "铜铃"))


def _in_one_window(period: int, margin: float) -> None:
    """Return at a moment when `margin` seconds are still left of a rate-limit window of
    `period` seconds (spirit's `fixed_window`: a bucket is `now - now % period`), so that two
    writes in a row taking less than `margin` share it.  Now, if the window is young enough;
    else just after the next one began (the adapter waits out what is left of the window
    the writes share, so starting early in it only lengthens the test)."""
    deadline = time.monotonic() + period + 1
    while period - margin < time.time() % period and time.monotonic() < deadline:
        time.sleep(0.05)


def test_throttled_reply_is_waited_out_and_not_duplicated(limited: SpiritServer) -> None:
    waits: list[float] = []

    def sleep(s: float) -> None:
        waits.append(s)
        time.sleep(s)

    forum = make_gm(limited, sleep=sleep, min_write_interval_s=0, max_throttle_waits=0)
    t0 = time.monotonic()
    tid = forum.create_thread("限流测试", "开场", key())  # the topic bucket
    write_s = time.monotonic() - t0  # a write's time on this machine now: the margin below
    # Spirit's buckets are fixed 10 s windows of its clock (ours: one machine); the reply and
    # the refused one must fall in the same window: at least 2 s, or 6 writes' time, left of it
    _in_one_window(10, margin=min(9.0, max(2.0, 6 * write_s)))
    first = forum.reply(tid, "第一条", key())  # the comment bucket
    k = key()
    with pytest.raises(ForumError, match="Too many submissions"):
        forum.reply(tid, "第二条", k)  # within 10 s, no waits allowed: refused, not posted
    assert waits == []
    forum._http.max_throttle_waits = 3
    second = forum.reply(tid, "第二条", k)
    assert len(waits) == 1 and 1 <= waits[0] <= 11
    assert second > first
    posts = forum.read_thread(tid, None)
    assert [p.text for p in posts] == ["开场", "第一条", "第二条"]
    # Minute-precision dates (no format module) are read too.
    assert all(p.posted_at.second == 0 and p.posted_at.microsecond == 0 for p in posts)
    assert abs((posts[-1].posted_at - forum.now()).total_seconds()) < 120
    forum.close()


def test_throttled_login_says_to_wait(limited: SpiritServer) -> None:
    # 5 logins per 5 minutes per IP: the GM used one; wrong passwords use up the rest.
    errors = []
    for _ in range(12):  # 6 are enough, unless a 5-minute window starts in between
        forum = SpiritForum(limited.base_url, "铜铃", "wrong-password", min_write_interval_s=0)
        with pytest.raises(ForumError) as err:
            forum.login()
        errors.append(str(err.value))
        forum.close()
        if "too many attempts" in errors[-1]:
            break
    assert "wait 5m" in errors[-1] and "password" in errors[0] and len(errors) > 1


def test_subject_goes_first_on_its_own_when_the_body_fills_the_cap(gm: SpiritForum, players: SpiritPlayers) -> None:
    body = "长" * 2995
    gm.send_pm("alice", "你的身份", body, key())
    assert [p.text for p in players.inbox("alice")][-2:] == ["你的身份", body]
