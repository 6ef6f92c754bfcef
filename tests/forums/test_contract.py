"""The adapter contract: every `Forum` adapter (and its `PlayerSide`) must pass these, so
the adapters cannot drift apart.  Runs on the built-in board, on a live Spirit forum and on
the PHPWind adapter over a board made of its recorded pages (`phpwind_live.py`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from tianshen.forum.base import Forum, PlayerSide
from tianshen.forum.memory import MemoryBoard


@dataclass
class Adapter:
    forum: Forum
    players: PlayerSide
    alice: str
    bob: str


def _memory() -> Adapter:
    board = MemoryBoard(lambda: datetime.now(UTC))
    forum = board.gm()
    forum.login()
    return Adapter(forum, board, "白狐", "青竹")


def _spirit(request: pytest.FixtureRequest) -> Adapter:
    from tianshen.forum.spirit import SpiritForum, SpiritPlayers

    server = request.getfixturevalue("spirit_server")
    forum = SpiritForum(server.base_url, server.gm_username, server.gm_password, min_write_interval_s=0)
    forum.login()
    alice, bob = list(server.players)[:2]
    players = SpiritPlayers(server.base_url, server.players, forum.account)
    return Adapter(forum, players, alice, bob)


def _phpwind() -> Adapter:
    from forums.phpwind_fixtures import PAGES

    if not PAGES.is_dir():
        pytest.skip(f"recorded PHPWind pages not found in {PAGES} (docs/testing.md)")
    from forums.phpwind_live import BASE, GM_NAME, LivePhpwind, PhpwindPlayers
    from tianshen.forum.phpwind import PhpwindForum

    board = LivePhpwind(lambda: datetime.now(UTC))
    board.uid("白狐"), board.uid("青竹")  # registered
    forum = PhpwindForum(BASE, GM_NAME, "gm123456", board.fid, transport=board.transport(), flood_interval_s=0)
    forum.login()
    return Adapter(forum, PhpwindPlayers(board), "白狐", "青竹")


# PHPWind deviates in two: an edit within post_modify_time leaves no mark and no first version
# is kept; an opening post has no pid, so `board_posts` lists replies only (docs/forums.md)
PHPWIND_DEVIATES = ("test_an_edited_post_shows_its_first_version", "test_board_posts_list_every_thread_from_a_point")


@pytest.fixture(params=["memory", "spirit", "phpwind"])
def adapter(request: pytest.FixtureRequest) -> Adapter:
    if request.param == "phpwind":
        if request.node.originalname in PHPWIND_DEVIATES:
            pytest.skip("PHPWind deviates here (see PHPWIND_DEVIATES)")
        return _phpwind()
    return _memory() if request.param == "memory" else _spirit(request)


def tag() -> str:
    return uuid.uuid4().hex[:8]


def test_the_clock_is_the_servers_and_timezone_aware(adapter: Adapter) -> None:
    now = adapter.forum.now()
    assert now.tzinfo is not None
    assert abs(now - datetime.now(UTC)) < timedelta(minutes=5)
    assert adapter.forum.markup in ("bbcode", "markdown", "plain")
    assert adapter.forum.max_post_chars is None or adapter.forum.max_post_chars >= 1000


def test_a_players_pm_reaches_the_gm_once_with_its_lines(adapter: Adapter) -> None:
    before = adapter.forum.fetch_pms(None)
    mark = max((pm.id for pm in before), default=None)
    t = tag()
    text = f"杀 {adapter.bob}\n宣言{t}：月黑风高，全角标点。"
    pm_id = adapter.players.pm(adapter.alice, adapter.forum.account, text, subject="行动")
    new = adapter.forum.fetch_pms(mark)
    assert [(pm.id, pm.sender, pm.text) for pm in new] == [(pm_id, adapter.alice, text)]
    assert new[0].sent_at.tzinfo is not None
    assert abs(new[0].sent_at - adapter.forum.now()) < timedelta(minutes=5)
    assert adapter.forum.fetch_pms(pm_id) == []  # the high-water mark


def test_pm_ids_grow_in_the_order_sent(adapter: Adapter) -> None:
    mark = max((pm.id for pm in adapter.forum.fetch_pms(None)), default=None)
    first = adapter.players.pm(adapter.alice, adapter.forum.account, f"祈祷 {adapter.bob} {tag()}")
    second = adapter.players.pm(adapter.bob, adapter.forum.account, f"祈祷 {adapter.alice} {tag()}")
    assert second > first
    assert [pm.id for pm in adapter.forum.fetch_pms(mark)] == [first, second]


def test_the_gms_pm_reaches_the_player_once_even_when_retried(adapter: Adapter) -> None:
    t = tag()
    key = f"contract:{t}"
    adapter.forum.send_pm(adapter.alice, "天神回复", f"已收到：占卜 {t}", key)
    adapter.forum.send_pm(adapter.alice, "天神回复", f"已收到：占卜 {t}", key)  # a retry
    got = [pm for pm in adapter.players.inbox(adapter.alice) if t in pm.text]
    assert len(got) == 1
    assert got[0].sender == adapter.forum.account


def test_threads_are_read_in_order_across_pages_and_from_a_point(adapter: Adapter) -> None:
    t = tag()
    thread = adapter.forum.create_thread(f"第1天投票帖 {t}", "请投票", key=f"thread:{t}")
    ids = [adapter.players.post(adapter.alice if i % 2 else adapter.bob, thread, f"投票 某人{i} {t}")
           for i in range(7)]  # more than one page on the test Spirit (5 a page)
    posts = adapter.forum.read_thread(thread, None)
    assert posts[0].author == adapter.forum.account  # the opening post is the GM's
    replies = posts[1:]
    assert [p.id for p in replies] == ids == sorted(ids)
    assert [p.position for p in posts] == sorted(p.position for p in posts)
    assert [p.text for p in replies] == [f"投票 某人{i} {t}" for i in range(7)]
    assert [p.author for p in replies[:2]] == [adapter.bob, adapter.alice]
    assert [p.id for p in adapter.forum.read_thread(thread, ids[3])] == ids[4:]
    assert all(p.posted_at.tzinfo is not None for p in posts)


def test_identical_consecutive_posts_both_land(adapter: Adapter) -> None:
    t = tag()
    thread = adapter.forum.create_thread(f"投票帖 {t}", "开帖", key=f"thread:{t}")
    a = adapter.players.post(adapter.alice, thread, "投票 青竹")
    b = adapter.players.post(adapter.alice, thread, "投票 青竹")
    assert a != b
    assert [p.id for p in adapter.forum.read_thread(thread, None)[1:]] == [a, b]


def test_the_gms_reply_is_not_doubled_by_a_retry(adapter: Adapter) -> None:
    t = tag()
    thread = adapter.forum.create_thread(f"公告 {t}", "开帖", key=f"thread:{t}")
    first = adapter.forum.reply(thread, f"天亮了 {t}", key=f"dawn:{t}")
    again = adapter.forum.reply(thread, f"天亮了 {t}", key=f"dawn:{t}")
    assert first == again
    assert [p.text for p in adapter.forum.read_thread(thread, None)].count(f"天亮了 {t}") == 1


def test_an_edited_post_shows_its_first_version(adapter: Adapter) -> None:
    t = tag()
    thread = adapter.forum.create_thread(f"投票帖 {t}", "开帖", key=f"thread:{t}")
    post = adapter.players.post(adapter.bob, thread, f"投票 白狐 {t}")
    adapter.players.edit(post, adapter.bob, f"投票 夜莺 {t}")
    seen = next(p for p in adapter.forum.read_thread(thread, None) if p.id == post)
    assert seen.edited
    assert seen.text == f"投票 夜莺 {t}"
    assert seen.original_text == f"投票 白狐 {t}"
    untouched = adapter.forum.read_thread(thread, None)[0]
    assert not untouched.edited and untouched.original_text is None


def test_board_posts_list_every_thread_from_a_point(adapter: Adapter) -> None:
    t = tag()
    start = max((p.id for p in adapter.forum.board_posts(None)), default=None)
    older = adapter.forum.create_thread(f"第1天讨论帖 {t}", f"请发言 {t}", key=f"thread:{t}:a")
    a1 = adapter.players.post(adapter.alice, older, f"分析一 {t}")
    newer = adapter.forum.create_thread(f"第1天投票帖 {t}", f"请投票 {t}", key=f"thread:{t}:b")
    b1 = adapter.players.post(adapter.bob, newer, f"投票 {adapter.alice} {t}")
    a2 = adapter.players.post(adapter.bob, older, f"分析二 {t}")
    b2 = adapter.players.post(adapter.alice, newer, f"投票 {adapter.bob} {t}")

    everything = adapter.forum.board_posts(None)
    ids = [p.id for p in everything]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    mine = [(p.thread_id, p.author, p.text) for p in everything if t in p.text]
    assert mine == [(older, adapter.forum.account, f"请发言 {t}"), (older, adapter.alice, f"分析一 {t}"),
                    (newer, adapter.forum.account, f"请投票 {t}"), (newer, adapter.bob, f"投票 {adapter.alice} {t}"),
                    (older, adapter.bob, f"分析二 {t}"), (newer, adapter.alice, f"投票 {adapter.bob} {t}")]
    assert {p.id for p in everything if t in p.text} >= {a1, b1, a2, b2}
    assert all(p.posted_at.tzinfo is not None for p in everything)

    since_start = adapter.forum.board_posts(start)
    assert [p.id for p in since_start] == [p.id for p in everything if start is None or p.id > start]
    opening = adapter.forum.read_thread(newer, None)[0].id  # the GM's, between a1 and b1
    assert [(p.id, p.thread_id) for p in adapter.forum.board_posts(a1)] == \
        [(opening, newer), (b1, newer), (a2, older), (b2, newer)]
    assert adapter.forum.board_posts(b2) == []

    a3 = adapter.players.post(adapter.alice, older, f"分析三 {t}")  # the older thread again
    again = adapter.forum.board_posts(b2)
    assert [(p.id, p.thread_id, p.author, p.text) for p in again] == [(a3, older, adapter.alice, f"分析三 {t}")]
    assert adapter.forum.board_posts(a3) == []
