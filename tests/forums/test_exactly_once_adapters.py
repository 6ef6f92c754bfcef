"""Issue 13 in the adapters, on the recorded Discuz pages and the memory board: `find_written`
after a crash, refused logins never retried, flood pacing on a fake clock, idle polls that
cost two requests, text a board cannot store, and player text that must stay text."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from forums.discuz_fixtures import (
    RecordedBoard,
    Sleeps,
    json_page,
    load,
    make_forum,
    needs_recordings,
    thread_page_with_reply,
    x34_board,
    x35_board,
)
from tianshen.forum.base import LOOK_BACK, ForumError, LoginRefused, Write, look_back_from
from tianshen.forum.memory import MemoryBoard
from tianshen.forum.pacing import Pacer

BOARDS = {"x3.5": x35_board, "x3.4": x34_board}
LONG_AGO = datetime(2026, 12, 1, tzinfo=UTC)


def logins(board: RecordedBoard) -> int:
    return len(board.sent("POST", "member.php")) + len(board.sent("POST", "api/mobile/index.php", module="login"))


def all_read(version: str) -> object:
    """The recorded inbox with every conversation read (a state the recordings lack)."""
    entries = json.loads(load(version, "api-mypm-list.json")[2])["Variables"]["list"]
    return json_page(version, "api-mypm-list.json", list=[{**e, "isnew": "0"} for e in entries])


# ---- find_written: the GM's write is on the board (answer lost, crash) or not ----------------------


@needs_recordings
def test_a_recorded_gm_reply_is_found_and_other_text_is_not() -> None:
    board = x34_board()
    board.date = datetime(2026, 12, 2, 14, 30, tzinfo=UTC)
    forum = make_forum(board)  # a fresh process: nothing in memory of the write
    text = "【主持人】目前票数：狼人甲 4 票，player3 1 票，player4 1 票。"
    since = datetime(2026, 12, 2, 14, 11, tzinfo=UTC)
    assert forum.find_written(Write("reply", "k", text, thread_id="1", since=since)) == "10"
    assert forum.find_written(Write("reply", "k", " 【主持人】目前票数：狼人甲 4 票，\nplayer3 1 票，player4 1 票。 ",
                                    thread_id="1", since=since)) == "10"  # whitespace aside
    assert forum.find_written(Write("reply", "k", "【主持人】今天无人出局。", thread_id="1", since=since)) is None
    later = since + timedelta(minutes=10)  # posted before the first attempt: not this write
    assert forum.find_written(Write("reply", "k", text, thread_id="1", since=later)) is None


@needs_recordings
def test_a_reply_whose_answer_was_lost_is_found_on_the_page_it_landed_on() -> None:
    board = x35_board(api=False)
    board.date = datetime(2026, 12, 2, 13, 30, tzinfo=UTC)
    text = "天亮了，昨晚 player5 死亡。"
    board.on("GET", "forum.php", thread_page_with_reply("x3.5", "html-viewthread-tid1-page2.html", 30, 19,
                                                        "mafiagm", 10, text, "2026-12-2 21:29:10"),
             mod="viewthread", tid="1", page="2")
    forum = make_forum(board)
    since = datetime(2026, 12, 2, 13, 28, tzinfo=UTC)
    assert forum.find_written(Write("reply", "k", text, thread_id="1", since=since)) == "30"
    assert forum.find_written(Write("reply", "k", "天亮了，昨晚平安夜。", thread_id="1", since=since)) is None


@needs_recordings
@pytest.mark.parametrize("api", [True, False])
def test_a_gm_thread_is_found_in_the_board_list(api: bool) -> None:
    board = x35_board(api=api)
    board.date = datetime(2026, 12, 2, 13, 30, tzinfo=UTC)
    forum = make_forum(board)
    title = "【杀人游戏】第1局 第一天 投票贴"
    first = forum.read_thread("1", None)[0].text
    assert forum.find_written(Write("thread", "k", first, title=title, since=LONG_AGO)) == "1"
    assert forum.find_written(Write("thread", "k", first, title="【杀人游戏】第1局 第二天 投票贴",
                                    since=LONG_AGO)) is None
    # both paths read the opening post: another text is another thread (issue 27: another game's)
    assert forum.find_written(Write("thread", "k", "别的内容", title=title, since=LONG_AGO)) is None


@needs_recordings
def test_a_gm_pm_is_found_in_the_conversation() -> None:
    board = x35_board()
    forum = make_forum(board)
    ref = forum.find_written(Write("pm", "k", "收到你的夜晚行动。", to="player1", since=LONG_AGO))
    assert ref == "12"
    assert forum.find_written(Write("pm", "k", "你的身份是：村民。", to="player1", since=LONG_AGO)) is None
    assert forum.find_written(Write("pm", "k", "收到你的夜晚行动。", to="nobody", since=LONG_AGO)) is None


def test_the_memory_board_finds_writes_on_the_board_not_in_its_keys() -> None:
    t = [datetime(2026, 12, 2, 12, 0, tzinfo=UTC)]
    board = MemoryBoard(lambda: t[0])
    gm = board.gm()
    gm.login()
    assert gm.remembers_keys is True
    since = t[0]
    tid = gm.create_thread("第1天 投票", "请投票", "a")
    pid = gm.reply(tid, "第二部分", "a#2")
    gm.send_pm("白狐", "身份", "你是村民", "b")
    fresh = board.gm()  # a restarted adapter: the writes are found by looking
    fresh.login()
    assert fresh.find_written(Write("thread", "a", "请投票", title="第1天 投票", since=since)) == tid
    assert fresh.find_written(Write("reply", "a#2", "第二部分", thread_id=tid, since=since)) == str(pid)
    assert fresh.find_written(Write("reply", "a#3", "第三部分", thread_id=tid, since=since)) is None
    assert fresh.find_written(Write("reply", "a", "请投票", thread_id=tid, since=since)) is None  # the opener
    assert fresh.find_written(Write("pm", "b", "你是村民", to="白狐", since=since))
    assert fresh.find_written(Write("pm", "b", "你是村民", to="青竹", since=since)) is None
    # the look-back (issue 22): a whole minute before the first try, and no further
    assert fresh.find_written(Write("pm", "b", "你是村民", to="白狐", since=since + timedelta(seconds=119)))
    assert fresh.find_written(Write("pm", "b", "你是村民", to="白狐", since=since + timedelta(minutes=2))) is None
    fresh.note_last_write(t[0])  # accepted, nothing to do


# ---- a refused login is never tried again; an expired session is renewed with backoff -------------


@needs_recordings
@pytest.mark.parametrize(("version", "page"), [("x3.5", "api-error-login-strike.json"),
                                               ("x3.4", "api-error-login-strike-correct-password.json"),
                                               ("x3.4", "api-login-v3-badpw.json")])
def test_a_refused_login_raises_login_refused_and_is_never_sent_again(version: str, page: str) -> None:
    board = BOARDS[version]()
    board.api("POST", "login", page)
    forum = make_forum(board)
    with pytest.raises(LoginRefused):
        forum.login()
    asked = len(board.requests)
    for call in (forum.login, lambda: forum.fetch_pms(None), lambda: forum.read_thread("1", None),
                 lambda: forum.reply("1", "投票 player3", "k")):
        with pytest.raises(LoginRefused):
            call()
    assert len(board.requests) == asked and logins(board) == 1


@needs_recordings
def test_a_captcha_at_login_is_a_refusal_too() -> None:
    board = x35_board()
    board.on("GET", "member.php", "html-login-page-default-with-seccode.html", mod="logging", action="login")
    forum = make_forum(board)
    with pytest.raises(LoginRefused):
        forum.login()
    with pytest.raises(LoginRefused):
        forum.fetch_pms(None)
    assert len(board.sent("GET", "member.php")) == 1


@needs_recordings
def test_an_expired_session_is_renewed_once_then_not_again_within_the_backoff() -> None:
    board = x35_board()
    board.api("GET", "mypm", ["api-mypm-guest.json", "api-mypm-list.json", "api-mypm-guest.json",
                              "api-mypm-list.json", "api-mypm-guest.json", "api-mypm-list.json"])
    sleeps = Sleeps()
    forum = make_forum(board, sleeps)
    forum.login()
    forum.fetch_pms(None)  # logged out: logged in again, once
    assert logins(board) == 2
    with pytest.raises(ForumError, match="not logging in again") as err:
        forum.fetch_pms(None)  # logged out again at once: no third login yet
    assert not isinstance(err.value, LoginRefused) and logins(board) == 2
    sleeps.t += 61
    forum.fetch_pms(None)
    assert logins(board) == 3


# ---- pacing on a fake clock ----------------------------------------------------------------------


@needs_recordings
def test_a_refusal_is_sent_again_when_due_not_after_a_second_interval() -> None:
    board = x35_board()
    board.api("POST", "sendpm", ["api-sendpm-ok.json", "api-error-pm-flood.json", "api-sendpm-ok.json"])
    sleeps = Sleeps()
    forum = make_forum(board, sleeps, flood_interval_s=30)
    forum.login()
    start = sleeps.t
    forum.send_pm("player1", "", "一", "k1")
    # due at 30 s and refused (another write from the account, say): sent again 30 s after the
    # refusal — the old code slept 31 s, then 30 s more
    forum.send_pm("player1", "", "二", "k2")
    forum.send_pm("player1", "", "三", "k3")
    assert sleeps.calls == [30, 30, 30] and forum.flood_interval_s == 30
    assert sleeps.t - start == 90


@needs_recordings
def test_refusals_without_a_number_on_time_twice_running_double_the_interval() -> None:
    board = x35_board()
    ok, flood = "api-sendpm-ok.json", "api-error-pm-flood.json"  # 「两次发送短消息太快」 names no interval
    board.api("POST", "sendpm", [ok, flood, ok, flood, ok, ok])  # a board at 60 s
    sleeps = Sleeps()
    forum = make_forum(board, sleeps, flood_interval_s=30)
    forum.login()
    for i in range(4):
        forum.send_pm("player1", "", f"第{i}条", f"k{i}")
    assert forum.flood_interval_s == 60  # learned, not left at 30
    assert sleeps.calls == [30, 30, 30, 30, 60]


@needs_recordings
def test_an_unconfigured_board_learns_its_interval_from_the_refusals() -> None:
    board = x35_board(api=False)
    ok = bytes("<?xml version=\"1.0\" encoding=\"utf-8\"?><root><![CDATA[<script>succeedhandle_fastpost("
               "'forum.php?mod=viewthread&tid=1&pid=40&page=2&extra=#pid40', '非常感谢，回复发布成功', "
               "{'fid':'3','tid':'1','pid':'40'});</script>]]></root>", "utf-8")
    board.on("POST", "forum.php", [ok, "html-error-flood-reply-ajax.xml", ok, ok], mod="post", action="reply")
    sleeps = Sleeps()
    forum = make_forum(board, sleeps, recheck_window_s=0)
    forum.login()
    assert forum.flood_interval_s == 0  # not below what the board allows: start at nothing, learn
    forum.reply("1", "第一条公告内容", "k1")
    forum.reply("1", "第二条公告内容", "k2")  # refused 「间隔少于 15 秒」: learned, due 15 s after the first
    forum.reply("1", "第三条公告内容", "k3")
    assert forum.flood_interval_s == 15 and sleeps.calls == [15, 15]


@needs_recordings
def test_a_board_without_flood_control_is_not_paced() -> None:
    board = x35_board()
    board.api("POST", "sendpm", "api-sendpm-ok.json")
    sleeps = Sleeps()
    forum = make_forum(board, sleeps, flood_interval_s=0)
    forum.login()
    for i in range(5):
        forum.send_pm("player1", "", f"身份通知 {i}", f"k{i}")
    assert sleeps.calls == []


@needs_recordings
def test_the_last_write_before_a_restart_is_counted_from() -> None:
    board = x35_board()
    board.api("POST", "sendpm", "api-sendpm-ok.json")
    sleeps = Sleeps()
    wall = datetime(2026, 12, 2, 13, 30, tzinfo=UTC)
    forum = make_forum(board, sleeps, flood_interval_s=15, clock=lambda: wall)
    forum.login()
    forum.note_last_write(wall - timedelta(seconds=5))
    forum.send_pm("player1", "", "重启后的第一条", "k")
    assert sleeps.calls == [10]
    fresh = make_forum(board, Sleeps(), flood_interval_s=15, clock=lambda: wall)
    fresh.note_last_write(wall - timedelta(hours=1))  # long ago: at once
    fresh.login()
    fresh.send_pm("player1", "", "又一条", "k2")


def test_n_writes_take_at_most_n_intervals_plus_one_second() -> None:
    """The pacer against a board that counts from its last accepted write (whole seconds)."""
    for interval, start_s in ((0, 0), (15, 0), (30, 0), (15, 15), (30, 15), (30, 30)):
        clock = Sleeps()
        pacer = Pacer(start_s, sleep=clock.sleep, monotonic=clock.monotonic)
        board_last: float | None = None
        start = clock.t
        for _ in range(10):
            while True:
                pacer.wait_turn()
                now = int(clock.t)
                if board_last is None or now - board_last >= interval:
                    board_last = now
                    pacer.accepted()
                    break
                pacer.refused(named_s=interval)
        assert clock.t - start <= 10 * interval + 1, (interval, clock.calls)


# ---- idle polls: two requests (the PM inbox, the vote thread), from the first poll ------------------


@needs_recordings
@pytest.mark.parametrize("version", ["x3.5", "x3.4"])
def test_an_idle_poll_without_a_pm_mark_makes_two_requests(version: str) -> None:
    board = BOARDS[version]()
    board.api("GET", "mypm", all_read(version))
    forum = make_forum(board)
    forum.login()
    pms = forum.fetch_pms(None)  # the first look reads every conversation, once
    posts = forum.read_thread("1", None)
    for _ in range(3):
        asked = len(board.requests)
        assert forum.fetch_pms(None) == pms
        assert forum.read_thread("1", posts[-1].id) == []
        assert len(board.requests) - asked == 2, [str(r.url) for r in board.requests[asked:]]


@needs_recordings
def test_a_cold_adapter_with_a_mark_reads_back_once_then_polls_with_one_request() -> None:
    board = x35_board()
    board.api("GET", "mypm", all_read("x3.5"))
    forum = make_forum(board)  # restarted: the driver's mark is above every PM
    forum.login()
    views = len(board.sent("GET", "api/mobile/index.php", subop="view"))
    assert forum.fetch_pms(500) == []
    assert len(board.sent("GET", "api/mobile/index.php", subop="view")) - views == 1  # the newest only
    for _ in range(3):
        asked = len(board.requests)
        assert forum.fetch_pms(500) == []
        assert len(board.requests) - asked == 1


@needs_recordings
def test_an_idle_poll_of_a_one_page_thread_needs_no_findpost() -> None:
    board = x34_board()
    forum = make_forum(board)
    forum.login()
    posts = forum.read_thread("3", None)
    asked = len(board.requests)
    assert forum.read_thread("3", posts[-1].id) == []
    assert [r.url.params.get("mod") for r in board.requests[asked:]] == ["viewthread"]


@needs_recordings
def test_a_new_pm_in_a_read_conversation_is_still_seen() -> None:
    board = x35_board()
    entries = json.loads(load("x3.5", "api-mypm-list.json")[2])["Variables"]["list"]
    quiet = [{**e, "isnew": "0"} for e in entries]
    changed = [{**quiet[0], "isnew": "1", "message": "新消息"}] + quiet[1:]
    board.api("GET", "mypm", [json_page("x3.5", "api-mypm-list.json", list=quiet),
                              json_page("x3.5", "api-mypm-list.json", list=quiet),
                              json_page("x3.5", "api-mypm-list.json", list=changed)])
    forum = make_forum(board)
    forum.login()
    forum.fetch_pms(None)
    forum.fetch_pms(None)
    views = len(board.sent("GET", "api/mobile/index.php", subop="view"))
    forum.fetch_pms(None)
    assert len(board.sent("GET", "api/mobile/index.php", subop="view")) - views == 1  # only that one


# ---- a full re-read sees edits ---------------------------------------------------------------------


@needs_recordings
@pytest.mark.parametrize("version", ["x3.5", "x3.4"])
def test_a_full_re_read_reports_every_edit_and_reads_each_page_once(version: str) -> None:
    board = BOARDS[version]()
    forum = make_forum(board)
    forum.login()
    forum.read_thread("1", None)
    forum.read_thread("1", 5)  # incremental reads between counts do not hide edits later
    asked = len(board.requests)
    posts = forum.read_thread("1", None)
    assert {p.id for p in posts if p.edited} == {3, 4}
    assert all(p.original_text is None for p in posts)  # Discuz shows no earlier version
    edited = next(p for p in posts if p.id == 3)
    assert edited.edited_by == "player2" and edited.edited_at is not None  # type: ignore[attr-defined]
    assert len(board.requests) - asked == 2  # the two pages, nothing more


# ---- what the board cannot store, and player text that must stay text --------------------------------


@needs_recordings
def test_text_outside_gbk_and_nul_never_break_a_write_on_the_gbk_board() -> None:
    board = x34_board(api=False)
    board.on("POST", "forum.php", "html-reply-post-ajax-player1.xml", mod="post", action="reply")
    forum = make_forum(board, recheck_window_s=0)
    forum.login()
    forum.reply("1", "投票 白狐 😀 价格€5\x00后面", "k")
    _, form = board.sent("POST", "forum.php", action="reply")[-1]
    assert form["message"] == "投票 白狐 ? 价格EUR5后面"
    assert form["parseurloff"] == "1" and form["smileyoff"] == "1"


@needs_recordings
def test_nul_is_dropped_and_markup_switched_off_on_every_write() -> None:
    board = x35_board()
    for module, page in (("sendreply", "api-sendreply.json"), ("newthread", "api-newthread.json"),
                         ("sendpm", "api-sendpm-ok.json")):
        board.api("POST", module, page)
    forum = make_forum(board, recheck_window_s=0, flood_interval_s=0)
    forum.login()
    forum.reply("1", "看 https://2130706433/ :)\x00", "k1")
    forum.create_thread("第二天", "开始\x00", "k2")
    forum.send_pm("player1", "", "😀\x00", "k3")
    forms = [f for r, f in board.sent("POST", "api/mobile/index.php") if r.url.params["module"] != "login"]
    assert [f["message"] for f in forms] == ["看 https://2130706433/ :)", "开始", "😀"]
    assert all(f["parseurloff"] == "1" and f["smileyoff"] == "1" for f in forms)


def test_bad_input_to_find_written_is_refused() -> None:
    board = MemoryBoard(lambda: datetime(2026, 12, 2, tzinfo=UTC))
    gm = board.gm()
    with pytest.raises(ForumError, match="not logged in"):
        gm.find_written(Write("pm", "k", "x", to="白狐"))
    gm.login()
    assert gm.find_written(Write("reply", "k", "x", thread_id="404")) is None


def test_the_transport_counts_requests() -> None:
    """The request counter the bench reads is the client's own."""
    from tianshen.forum.discuz.client import DiscuzClient

    client = DiscuzClient("http://b/", "gm", "pw", transport=httpx.MockTransport(
        lambda r: httpx.Response(200, text="<html></html>", headers={"Date": "Wed, 02 Dec 2026 13:00:00 GMT"})))
    client.server_now()
    client.server_now()
    assert client.requests == 1


# ---- Spirit's pacing and clock on a fake clock (a minimal Spirit-like server) -------------------------


def _spirit_like(clock: Sleeps, throttled: list[bool]) -> httpx.MockTransport:
    def page(body: str) -> str:
        return f'<html><body><a href="/user/logout/">out</a>{body}</body></html>'

    def handle(request: httpx.Request) -> httpx.Response:
        date = {"Date": format_datetime(EPOCH + timedelta(seconds=clock.t), usegmt=True),
                "Content-Type": "text/html; charset=utf-8"}
        path = request.url.path
        if path == "/user/login/" and request.method == "GET":
            return httpx.Response(200, headers={**date, "Set-Cookie": "csrftoken=t; Path=/"},
                                  text='<input name="csrfmiddlewaretoken" value="t">')
        if path == "/user/login/":
            return httpx.Response(302, headers={**date, "Location": "/user/", "Set-Cookie": "sessionid=s; Path=/"})
        if path == "/user/":
            return httpx.Response(200, headers=date, text=page('<a data-related=".js-user-content">神的使者</a>'))
        if path == "/comment/7/publish/":
            if throttled and throttled.pop(0):
                return httpx.Response(200, headers=date, text=page("Too many submissions, wait 10s."))
            return httpx.Response(302, headers={**date, "Location": "/comment/100/find/"})
        if path.startswith("/topic/7/"):
            return httpx.Response(200, headers=date, text=page(
                '<div class="comments_list"><div class="comments_list__comment js-comment" data-number="1" '
                'data-pk="100"><a class="comment__info__username__link" href="/user/1/x/"><span>神的使者</span></a>'
                '<ul class="comment__info__date"><li title="2026-12-02T13:30:00+00:00">now</li></ul>'
                '<div class="comment__text"><p>x</p></div></div></div>'))
        return httpx.Response(404, headers=date, text="no")
    return httpx.MockTransport(handle)


EPOCH = datetime(2026, 12, 2, 13, 30, tzinfo=UTC)


def _spirit(clock: Sleeps, throttled: list[bool], interval: float):
    from tianshen.forum.spirit import SpiritForum

    wall = lambda: EPOCH + timedelta(seconds=clock.t)  # noqa: E731
    forum = SpiritForum("http://spirit.test", "神的使者", "pw", min_write_interval_s=interval,
                        client=httpx.Client(transport=_spirit_like(clock, throttled)), sleep=clock.sleep,
                        monotonic=clock.monotonic, clock=wall)
    forum.login()
    return forum


def test_spirit_writes_are_spaced_and_a_throttle_is_waited_out_once() -> None:
    clock = Sleeps()
    clock.t = 3.0  # 3 s into a 10-s window of the forum's clock (epoch-aligned)
    forum = _spirit(clock, [False, True, False, False], interval=10)
    for i in range(3):
        forum.reply("7", f"第{i}条", f"k{i}")
    # the 2nd, sent at 13 s, was throttled in the window [10, 20): sent again when the next one
    # opened (+1 s for the Date's precision), with no spacing wait on top; the 3rd 10 s later
    assert clock.calls == [10, 8, 10]


def test_spirit_counts_from_the_last_write_before_a_restart_and_reads_its_clock_from_answers() -> None:
    clock = Sleeps()
    forum = _spirit(clock, [], interval=10)
    forum.note_last_write(EPOCH + timedelta(seconds=clock.t - 4))
    asked = forum._http.requests
    assert abs((forum.now() - (EPOCH + timedelta(seconds=clock.t))).total_seconds()) < 1
    assert forum._http.requests == asked  # no request for the clock
    forum.reply("7", "重启后第一条", "k")
    assert clock.calls == [6]


@needs_recordings
@pytest.mark.parametrize("version", ["x3.5", "x3.4"])
def test_a_full_re_read_parses_only_the_pages_that_changed(version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tianshen.forum.discuz import parse

    parsed: list[str] = []
    real = parse.thread_page

    def counting(text: str, tz: object) -> object:
        parsed.append(text[:0])
        return real(text, tz)  # type: ignore[arg-type]

    monkeypatch.setattr(parse, "thread_page", counting)
    board = BOARDS[version]()
    forum = make_forum(board)
    forum.login()
    first = forum.read_thread("1", None)
    assert len(parsed) == 2
    assert forum.read_thread("1", None) == first and len(parsed) == 2  # both pages unchanged
    # a new post (and relative times that moved on) on page 2: page 2 is parsed again, page 1 not
    name = "html-viewthread-tid1-page2.html"
    when = "2026-12-2 21:29:10" if version == "x3.5" else "2026-12-2 22:15:00"
    board.on("GET", "forum.php", thread_page_with_reply(version, name, 40, 30, "player1", 2, "投票 狼人甲", when),
             mod="viewthread", tid="1", page="2")
    again = forum.read_thread("1", None)
    assert len(parsed) == 3 and [p.id for p in again] == [p.id for p in first] + [40]
    assert {p.id for p in again if p.edited} == {3, 4}


def test_the_digest_ignores_relative_times_only() -> None:
    from tianshen.forum.discuz.pages import thread_digest

    page = ('<div class="pg"><strong>1</strong></div><div id="post_1"><em id="authorposton1">发表于 '
            '<span title="2026-12-2 21:23:14">{rel}</span></em><td id="postmessage_1">{body}</td>'
            '<div id="postlistreply">')
    base = thread_digest(page.format(rel="2 分钟前", body="投票 A"))
    assert base is not None and base == thread_digest(page.format(rel="3 分钟前", body="投票 A"))
    assert base != thread_digest(page.format(rel="2 分钟前", body="投票 B"))
    assert thread_digest("<html>not a thread</html>") is None


@needs_recordings
def test_the_discuz_look_back_is_the_shared_window_to_the_minute() -> None:
    """Issue 22 item 8: Discuz looks back exactly as far as `look_back_from` says (the window
    the sender counts its known copies in), a whole minute, whether a page shows seconds or not."""
    board = x34_board()
    board.date = datetime(2026, 12, 2, 14, 30, tzinfo=UTC)
    forum = make_forum(board)
    text = "【主持人】目前票数：狼人甲 4 票，player3 1 票，player4 1 票。"
    shown = next(p.posted_at for p in forum.read_thread("1", None) if p.id == 10)
    last = shown.replace(second=0) + LOOK_BACK + timedelta(seconds=59)  # the latest first try that shows it
    assert look_back_from(last) <= shown < look_back_from(last + timedelta(seconds=1))
    assert forum.find_written(Write("reply", "k", text, thread_id="1", since=last)) == "10"
    assert forum.find_written(Write("reply", "k", text, thread_id="1", since=last + timedelta(seconds=1))) is None
    assert forum.find_written(Write("reply", "k", text, thread_id="1", since=last, known=1)) is None


# ---- the same for PHPWind (issue 39): recorded pages, and the board made of them --------------------


def _phpwind():  # noqa: ANN202
    from forums import phpwind_fixtures as pw

    if not pw.PAGES.is_dir():
        pytest.skip("recorded PHPWind pages not found (docs/testing.md)")
    return pw


@pytest.mark.parametrize("page", ["login-post-badpw.json", "login-post-strike-correct-password.json"])
def test_phpwind_a_refused_login_raises_login_refused_and_is_never_sent_again(page: str) -> None:
    pw = _phpwind()
    board = pw.recorded_board()
    board.on("POST", "index.php", page, m="u", c="login", a="dorun")
    forum = pw.make_forum(board)
    with pytest.raises(LoginRefused):
        forum.login()
    asked = len(board.requests)
    for call in (forum.login, lambda: forum.fetch_pms(None), lambda: forum.read_thread("4", None),
                 lambda: forum.reply("4", "投票 player3", "k")):
        with pytest.raises(LoginRefused):
            call()
    assert len(board.requests) == asked and len(board.sent("POST", a="dorun")) == 1


def test_phpwind_an_expired_session_is_renewed_once_then_not_again_within_the_backoff() -> None:
    pw = _phpwind()
    board = pw.recorded_board()
    board.on("GET", "index.php", ["guest-pm-inbox.html", "pm-inbox-gm.html"] * 3, m="message", c="message")
    sleeps = pw.Sleeps()
    forum = pw.make_forum(board, sleeps)
    forum.login()
    forum.fetch_pms(None)  # sent to the login page: logged in again, once
    assert len(board.sent("POST", a="dorun")) == 2
    with pytest.raises(ForumError, match="not logging in again") as err:
        forum.fetch_pms(None)
    assert not isinstance(err.value, LoginRefused) and len(board.sent("POST", a="dorun")) == 2
    sleeps.t += 61
    forum.fetch_pms(None)
    assert len(board.sent("POST", a="dorun")) == 3


def test_phpwind_an_idle_poll_makes_two_requests() -> None:
    pw = _phpwind()
    from forums.phpwind_live import BASE, GM_NAME, LivePhpwind, PhpwindPlayers
    from tianshen.forum.phpwind import PhpwindForum

    board = LivePhpwind(lambda: datetime.now(UTC))
    forum = PhpwindForum(BASE, GM_NAME, "gm123456", board.fid, transport=board.transport(), flood_interval_s=0)
    forum.login()
    players = PhpwindPlayers(board)
    tid = forum.create_thread("第1天投票帖", "请投票", "t")
    for i in range(17):  # two pages
        players.post("白狐", tid, f"投票 青竹 {i}")
    players.pm("白狐", GM_NAME, "杀 青竹")
    players.pm("青竹", GM_NAME, "验 白狐")
    pms = forum.fetch_pms(None)
    posts = forum.read_thread(tid, None)
    for _ in range(3):
        asked = board.requests
        assert forum.fetch_pms(None) == pms
        assert forum.read_thread(tid, posts[-1].id) == []
        assert board.requests - asked == 2
    assert pw


def test_phpwind_nul_is_dropped_on_every_write() -> None:
    pw = _phpwind()
    board = pw.recorded_board()
    board.on("POST", "index.php", "reply-post-ok.json", c="post", a="doreply")
    board.on("POST", "index.php", "newthread-post-ok.json", c="post", a="doadd")
    board.on("POST", "index.php", "pm-send-post-player1.json", m="message", c="message", a="doAddMessage")
    forum = pw.make_forum(board, flood_interval_s=0)
    forum.login()
    forum.reply("4", "看 https://2130706433/ :)\x00", "k1")
    forum.create_thread("第二天", "开始\x00了", "k2")
    forum.send_pm("player1", "", "😀\x00", "k3")
    sent = [f.get("atc_content") or f.get("content") for _, f in board.sent("POST") if "csrf_token" in f
            and "password" not in f]
    assert sent == ["看 https://2130706433/ :)", "开始了", "😀"]
