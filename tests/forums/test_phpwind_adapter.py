"""Issue 39: the PHPWind 9 adapter over every recorded page and refusal (`shared/forums/phpwind9`)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import httpx
import pytest

from forums.phpwind_fixtures import (
    GM,
    RECORDED_AT,
    Sleeps,
    make_forum,
    needs_recordings,
    page,
    recorded_board,
    text,
)
from tianshen.forum.base import ForumError, LoginRefused, Undeliverable, Write
from tianshen.forum.phpwind import parse

pytestmark = needs_recordings
TZ8 = parse.minute("2026-12-06 09:39", timezone(timedelta(hours=8)))


def logins(board) -> int:
    return len(board.sent("POST", m="u", c="login", a="dorun"))


# ---- login ---------------------------------------------------------------------------------------


def test_the_three_step_login_keeps_the_prefix_cookie_and_the_csrf_pair() -> None:
    board = recorded_board()
    forum = make_forum(board)
    forum.login()
    c = forum.client
    assert (c.account, c.uid, c.cookiepre) == ("神的使者", 2, "GVd_")
    assert c.http.cookies.get("GVd_winduser")
    (req, form), = board.sent("POST", a="dorun")
    assert req.headers["X-Requested-With"] == "XMLHttpRequest"
    assert form["csrf_token"] == "62c49ecabea3a196" == c.csrf()  # the field equals the cookie
    assert form["username"] == "神的使者" and form["password"] == "gm123456"
    assert len(board.sent("GET", a="welcome", m="u")) == 1  # the step that sets the cookie


@pytest.mark.parametrize("answer", ["login-post-badpw.json", "login-post-badpw.html",
                                    "login-post-strike-correct-password.json", "login-post-unknown-user.json"])
def test_a_refused_login_is_tried_once_per_start_never_again(answer: str) -> None:
    """The login-lockout rule: 3 wrong passwords from one IP lock every login behind a captcha
    for a day, so one start makes at most one failed login, whatever is called after it."""
    board = recorded_board()
    board.on("POST", "index.php", answer, m="u", c="login", a="dorun")
    forum = make_forum(board, password="wrong")
    with pytest.raises(LoginRefused) as first:
        forum.login()
    assert ("demands a captcha" in str(first.value)) == ("strike" in answer or "unknown" in answer)
    for call in (forum.login, lambda: forum.fetch_pms(None), lambda: forum.read_thread("4", None),
                 lambda: forum.reply("4", "天亮了", "k"), lambda: forum.send_pm("player1", "", "x", "k2"),
                 lambda: forum.user_exists("player3"), forum.check_board):
        with pytest.raises(LoginRefused):
            call()
    assert logins(board) == 1


def test_a_captcha_on_the_login_form_is_refused_without_sending_the_password() -> None:
    board = recorded_board()
    board.on("GET", "index.php", "login-form-captcha-required.html", m="u", c="login")
    forum = make_forum(board)
    with pytest.raises(LoginRefused, match="captcha"):
        forum.login()
    assert logins(board) == 0 and forum.client.login_captcha is True


def test_a_guest_answer_logs_in_again_once() -> None:
    board = recorded_board()
    forum = make_forum(board)
    forum.login()
    board.on("POST", "index.php", ["guest-reply-post.json", "reply-post-ok.json"], c="post", a="doreply")
    assert forum.reply("4", "天亮了，昨晚平安夜。", "dawn") == 1
    assert logins(board) == 2


def test_a_redirect_to_the_login_page_logs_in_again() -> None:
    board = recorded_board()
    forum = make_forum(board)
    forum.login()
    board.on("GET", "index.php", ["guest-pm-inbox.html", "pm-inbox-gm.html"], m="message", c="message")
    assert [pm.id for pm in forum.fetch_pms(9)] == [10]  # read after the second login
    assert logins(board) == 2


# ---- PMs -------------------------------------------------------------------------------------------


def test_pms_are_read_once_by_message_id_with_the_minute_and_the_first_seen_time() -> None:
    board = recorded_board()
    forum = make_forum(board)
    forum.login()
    pms = forum.fetch_pms(None)
    assert [(p.id, p.sender) for p in pms] == [(1, "player1"), (2, "player2"), (3, "player3"), (4, "player4"),
                                                (5, "player1"), (6, "player7"), (7, "player6"), (10, "player8")]
    assert all(p.sender != forum.account for p in pms)  # the GM's own (message 8, 「我」) are not PMs to him
    four = next(p for p in pms if p.id == 4)
    assert four.text == "我选择 保护 player1\n第二行：请确认收到"  # the raw newline of the page
    assert four.sent_between == TZ8 and four.sent_between[0] == datetime(2026, 12, 6, 1, 39, tzinfo=UTC)
    assert four.seen_at is not None and four.sent_at == min(four.sent_between[1], four.seen_at)
    assert [p.id for p in forum.fetch_pms(5)] == [6, 7, 10]
    assert forum.fetch_pms(10) == []


def test_a_pm_first_seen_within_its_minute_is_dated_when_it_was_seen() -> None:
    board = recorded_board()
    board.date = datetime(2026, 12, 6, 1, 39, 20, tzinfo=UTC)  # the board's clock: 09:39:20 site time
    forum = make_forum(board)
    forum.login()
    first = forum.fetch_pms(None)[0]
    assert abs((first.sent_at - board.date).total_seconds()) < 2  # not 09:39:59, after a 09:39:30 deadline
    board.date += timedelta(minutes=5)
    assert forum.fetch_pms(None)[0].sent_at == first.sent_at  # the first-seen time is kept


def test_a_foreign_dialog_is_an_error_not_an_empty_one() -> None:
    board = recorded_board()
    board.on("GET", "index.php", "pm-dialog-player1-foreign-dialogid2.html", m="message", c="message", a="dialog",
             dialogid="2")
    forum = make_forum(board)
    forum.login()
    with pytest.raises(ForumError, match="非法请求"):
        forum.fetch_pms(None)


def test_a_pm_is_sent_by_name_with_the_csrf_token_and_once_per_key() -> None:
    board = recorded_board()
    board.on("POST", "index.php", "pm-send-post-gm-to-player8.json", m="message", c="message", a="doAddMessage")
    forum = make_forum(board)
    forum.login()
    forum.send_pm("player8", "天神回复", "已收到：[b]查验[/b] player3", "k")
    forum.send_pm("player8", "天神回复", "已收到：[b]查验[/b] player3", "k")
    (req, form), = board.sent("POST", a="doAddMessage")
    # no markup in a PM: PHPWind shows a PM's text as typed (its raw line breaks too)
    assert form["usernames[]"] == "player8" and form["content"] == "【天神回复】\n已收到：查验 player3"
    assert form["csrf_token"] == forum.client.csrf() and req.url.params["_json"] == "1"


@pytest.mark.parametrize("answer", ["pm-send-post-gm-unknown-user.json", "pm-send-post-gm-toolong.json",
                                    "pm-send-post-player8-daily-limit-2.json"])
def test_pm_refusals_fail_that_pm_alone(answer: str) -> None:
    board = recorded_board()
    board.on("POST", "index.php", answer, m="message", c="message", a="doAddMessage")
    forum = make_forum(board)
    forum.login()
    with pytest.raises(Undeliverable, match="refused"):
        forum.send_pm("不存在的人", "", "你好", "k")


def test_the_daily_pm_limit_fails_pms_without_a_request_until_the_boards_next_day() -> None:
    board = recorded_board()
    board.on("POST", "index.php", ["pm-send-post-player8-daily-limit-2.json", "pm-send-post-player1.json"],
             m="message", c="message", a="doAddMessage")
    board.on("POST", "index.php", "reply-post-ok.json", c="post", a="doreply")
    forum = make_forum(board)
    forum.login()
    with pytest.raises(Undeliverable, match="每日发送条数.*admin resend"):
        forum.send_pm("player8", "", "第二条", "a")
    with pytest.raises(Undeliverable, match="until 2026-12-07 00:00 board time"):
        forum.send_pm("player1", "", "第三条", "b")  # no request: the board would refuse it
    assert len(board.sent("POST", a="doAddMessage")) == 1
    assert forum.reply("4", "天亮了，昨晚平安夜。", "dawn") == 1  # posts go on
    board.date = datetime(2026, 12, 6, 16, 0, 5, tzinfo=UTC)  # 00:00:05 site time
    forum.fetch_pms(10)  # the next poll reads the board's clock
    forum.send_pm("player1", "", "第三条", "b")
    assert len(board.sent("POST", a="doAddMessage")) == 2


# ---- threads -----------------------------------------------------------------------------------


def test_the_vote_thread_by_pid_and_floor_with_quotes_and_edit_marks() -> None:
    board = recorded_board()
    forum = make_forum(board)
    forum.login()
    posts = forum.read_thread("4", None)
    assert [(p.id, p.position) for p in posts][:2] == [(0, 1), (1, 2)]
    assert [(p.id, p.position) for p in posts][-2:] == [(15, 16), (17, 17)]  # floor 16 is pid 17
    assert posts[0].author == forum.account and posts[0].text.startswith("请在本帖投票")
    by = {p.id: p for p in posts}
    assert by[4].edited and by[4].edited_by == "player4" and by[4].edited_at == datetime(2026, 12, 6, 1, 40,
                                                                                         tzinfo=UTC)
    assert not by[5].edited and by[5].text == "投票 player4（改票，之前投错了）"  # the silent edit: no mark
    assert by[6].text == "投票 player3 你昨晚明明说了话" and by[6].quoted_pids == (3,)
    assert "我是好人" in by[6].full_text
    assert by[11].text.startswith("我不同意") and by[11].quoted_pids == (4,)
    assert by[10].text == "投票player4" and by[17].author == "player5" and by[17].author_uid == 7
    assert all(p.original_text is None and p.posted_at.tzinfo is not None for p in posts)


def test_reading_from_a_mark_starts_at_its_page() -> None:
    board = recorded_board()
    forum = make_forum(board)
    forum.login()
    assert [p.id for p in forum.read_thread("4", 14)] == [15, 17]
    pages = [r.url.params.get("page") for r in board.requests if r.url.path == "/read.php"]
    assert pages == ["1", "2"]  # the jump redirect (recorded for pid 12) says page 1
    fresh = make_forum(board)
    fresh.login()
    before = len(board.requests)
    assert [p.id for p in fresh.read_thread("4", 12)] == [13, 14, 15, 17]
    asked = board.requests[before:]
    assert any(r.url.params.get("a") == "jump" for r in asked)  # the board says where pid 12 is
    assert forum.read_thread("4", 17) == []


def test_board_posts_are_the_replies_of_the_board_from_a_point() -> None:
    board = recorded_board()
    players = text("thread-tid1-players.html")
    start = players.index('<a name="16"></a>')
    opening_only = players[:start] + players[players.index("</table>\n</div>", start) + len("</table>\n</div>"):]
    board.on("GET", "read.php", page(opening_only), tid="2")
    board.on("GET", "read.php", page(opening_only), tid="3")
    forum = make_forum(board)
    forum.login()
    everything = forum.board_posts(None)
    ids = [p.id for p in everything]
    assert ids == sorted(ids) and 0 not in ids
    assert {(p.id, p.thread_id) for p in everything} >= {(16, "1"), (17, "4"), (1, "4")}
    assert [p.id for p in forum.board_posts(15)] == [16, 17]
    assert forum.board_posts(17) == []


# ---- writing -----------------------------------------------------------------------------------


def test_a_thread_and_a_reply_return_their_ids_from_the_answers() -> None:
    board = recorded_board()
    board.on("POST", "index.php", "newthread-post-ok.json", c="post", a="doadd")
    board.on("POST", "index.php", "reply-post-ok.json", c="post", a="doreply")
    forum = make_forum(board)
    forum.login()
    assert forum.create_thread("第1天投票帖", "请投票", "t") == "1"
    assert forum.reply("4", "天亮了", "r") == 1
    assert forum.reply("4", "天亮了", "r") == 1  # a retry: not sent again
    (_, thread), = board.sent("POST", a="doadd")
    assert thread["atc_title"] == "第1天投票帖" and thread["atc_content"] == "请投票"
    (req, reply), = board.sent("POST", a="doreply")
    assert reply["tid"] == "4" and req.url.params["fid"] == "3" and reply["csrf_token"] == forum.client.csrf()


def test_flood_control_waits_the_seconds_it_names_then_sends_again() -> None:
    board = recorded_board()
    board.on("POST", "index.php", ["newthread-post-flood.json", "newthread-post-ok.json"], c="post", a="doadd")
    sleeps = Sleeps()
    forum = make_forum(board, sleeps)
    forum.login()
    assert forum.create_thread("第1天投票帖", "请投票", "t") == "1"
    assert forum.flood_interval_s == 3 and sum(sleeps.calls) == pytest.approx(3)
    assert len(board.sent("POST", a="doadd")) == 2


def test_a_short_post_is_padded_once() -> None:
    board = recorded_board()
    board.on("POST", "index.php", ["newthread-post-tooshort.json", "newthread-post-ok.json"], c="post", a="doadd")
    forum = make_forum(board)
    forum.login()
    assert forum.create_thread("好", "好", "t") == "1"
    first, second = (f["atc_content"] for _, f in board.sent("POST", a="doadd"))
    assert first == "好" and second.startswith("好\u3000") and len(second.strip()) < len(second)
    board.on("POST", "index.php", "newthread-post-tooshort.json", c="post", a="doadd")
    with pytest.raises(ForumError, match="too short"):
        forum.create_thread("好", "好", "t2")


def test_a_lost_answer_is_looked_up_on_the_board_before_it_is_sent_again() -> None:
    board = recorded_board()
    board.date = datetime(2026, 12, 6, 1, 40, 10, tzinfo=UTC)  # the notice (pid 15) went out at 09:39

    def lost(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("lost", request=request)
    board.on("POST", "index.php", lost, c="post", a="doreply")
    forum = make_forum(board)
    forum.login()
    found = forum.reply("4", "【公告】投票将于 22:00 截止，请尚未投票的玩家尽快投票。", "notice")
    assert found == 15  # the GM's post of that text, made since the first try's minute
    assert len(board.sent("POST", a="doreply")) == 1


def test_find_written_finds_the_gms_posts_threads_and_pms() -> None:
    board = recorded_board()
    forum = make_forum(board)
    forum.login()
    since = datetime(2026, 12, 6, 1, 39, tzinfo=UTC)
    notice = "【公告】投票将于 22:00 截止，请尚未投票的玩家尽快投票。"
    assert forum.find_written(Write("reply", "k", notice, thread_id="4", since=since)) == "15"
    assert forum.find_written(Write("reply", "k", notice, thread_id="4", since=since, known=1)) is None
    assert forum.find_written(Write("reply", "k", "投票 player3", thread_id="4", since=since)) is None  # a player's
    assert forum.find_written(Write("reply", "k", notice, thread_id="4", since=since + timedelta(minutes=5))) is None
    opening = forum.read_thread("4", None)[0].text
    assert forum.find_written(Write("thread", "k", opening, title="第1天投票帖", since=since)) == "4"
    assert forum.find_written(Write("thread", "k", "别的内容", title="第1天投票帖", since=since)) is None
    assert forum.find_written(Write("pm", "k", "收到。player1 查验结果：player3 是好人。", to="player1",
                                    since=since)) == "8"
    assert forum.find_written(Write("pm", "k", "你的身份是：村民。", to="player1", since=since)) is None


# ---- forum check ------------------------------------------------------------------------------


def test_the_board_and_the_accounts_are_checked() -> None:
    board = recorded_board()
    forum = make_forum(board)
    forum.login()
    assert forum.check_board() == "杀人游戏 (fid 3)"
    assert forum.user_exists("player3") is True
    assert forum.user_exists("不存在的人") is False


def test_a_missing_board_names_the_boards_there() -> None:
    from tianshen.forum.phpwind import PhpwindForum

    board = recorded_board()
    s = Sleeps()
    forum = PhpwindForum(board.base_url, GM[0], "gm123456", 9, transport=board.transport(), sleep=s.sleep,
                         monotonic=s.monotonic)
    forum.login()
    with pytest.raises(ForumError, match=r"no forum fid=9 .*杀人游戏 \(fid 3\).*fid="):
        forum.check_board()


def test_the_clock_is_the_date_header() -> None:
    board = recorded_board()
    forum = make_forum(board)
    assert abs(forum.now() - RECORDED_AT) < timedelta(seconds=5)
    assert "UTC+8" in forum.describe()[0]


def test_a_pm_over_500_characters_goes_in_parts_each_once() -> None:
    board = recorded_board()
    board.on("POST", "index.php", "pm-send-post-player1.json", m="message", c="message", a="doAddMessage")
    forum = make_forum(board)
    forum.login()
    lines = [f"第{i}行：" + "字" * 95 for i in range(8)]  # 8 lines of 99 characters
    forum.send_pm("player1", "你的身份", "\n".join(lines), "role")
    forum.send_pm("player1", "你的身份", "\n".join(lines), "role")  # a retry
    sent = [f["content"] for _, f in board.sent("POST", a="doAddMessage")]
    assert len(sent) == 2 and all(len(part) <= 500 for part in sent)
    assert "\n".join(sent) == "【你的身份】\n" + "\n".join(lines)


# ---- every recorded page: what the adapter reads of it ----------------------------------------------

# each recorded response, and what the adapter (or its player-side reading) concludes from it
ANSWERS = {
    "login-post-badpw.json": (False, "帐号或密码错误,您还可以尝试2次"),
    "login-post-badpw.html": (False, "帐号或密码错误,您还可以尝试4次"),
    "login-post-strike-correct-password.json": (False, "验证码输入错误"),
    "login-post-unknown-user.json": (False, "验证码输入错误"),
    "login-post-ok.json": (True, ""),
    "login-post-ok.html": (True, ""),  # 成功提示, its link the welcome step
    "newthread-post-ok.json": (True, "操作成功"),
    "newthread-post-badcsrf.json": (True, "操作成功"),  # the build's CSRF oddity: accepted
    "newthread-post-toolong.json": (True, "操作成功"),
    "newthread-post-flood.json": (False, "灌水预防机制已经打开，在3秒内不能连续发帖"),
    "newthread-post-tooshort.json": (False, "帖子内容不得少于3个字"),
    "reply-post-ok.json": (True, "操作成功"),
    "edit-post-ok.json": (True, "操作成功"),
    "edit-post-after-1min.json": (True, "操作成功"),
    "edit-form-other-user-refused.html": (False, "您没有权限编辑其他人的帖子"),
    "guest-reply-post.json": (False, "您所属的用户组 (游客) 没有发布回复的权限"),
    "pm-send-post-player1.json": (True, "操作成功"),
    "pm-send-post-gm-to-player8.json": (True, "操作成功"),
    "pm-send-post-player8-daily-limit-1.json": (True, "操作成功"),
    "pm-send-post-player8-daily-limit-2.json": (False, "已达当日发送条数上限，已发送1条，上限为1条"),
    "pm-send-dialog-post-gm-to-player1.json": (True, "操作成功"),
    "pm-send-dialog-post-player6.json": (True, "操作成功"),
    "pm-send-post-gm-unknown-user.json": (False, "接收用户不存在"),
    "pm-send-post-gm-toolong.json": (False, "私信内容不得超过500字"),
    "pm-checkreaded-gm.json": (False, "请选择操作对象"),
    "pm-follows-gm.json": (False, ""),
    "forum-list-ajax.json": (True, "操作成功"),
    "pm-dialog-player1-foreign-dialogid2.html": (False, "非法请求"),
    "profile-username-nonexistent.html": (False, "页面不存在"),
}
# full pages and whose they are (U_ID): the GM's, a player's, a guest's
OWNERS = {"home-gm.html": 2, "forumlist.html": 2, "board-fid3.html": 2, "thread-tid1-players.html": 2,
          "thread-tid4-page1.html": 2, "thread-tid4-page2.html": 2, "thread-tid4-page1-guest.html": 0,
          "login-form.html": 0, "login-form-captcha-required.html": 0, "reply-form-tid4.html": 3,
          "newthread-form-fid3.html": 2, "edit-form-tid4-pid5.html": 7, "pm-inbox-gm.html": 2,
          "pm-inbox-player1.html": 3, "pm-dialog-gm-dialogid2-player1.html": 2,
          "pm-dialog-gm-dialogid2-after-gm-reply.html": 2, "pm-dialog-gm-dialogid8-player4-multiline.html": 2,
          "pm-dialog-player1-dialogid1-with-gm.html": 3, "pm-add-form-gm.html": 2, "pm-add-form-player1.html": 3,
          "notice-list-gm.html": 2, "profile-username-player3.html": 2, "profile-uid5.html": 2}
REDIRECTS = {"login-welcome.html": "http://127.0.0.1:18070", "logout.html": "index.php?m=u&c=login",
             "guest-pm-inbox.html": "index.php?m=u&c=login", "post-jump-tid4-pid12.html": "page=1#12"}
FRAGMENTS = ("fastreply-tid4-pid3.html", "fastreply-tid4-pid3-with-subreply.html", "reply-post-floorreply-pid3.html",
             "notice-minilist-gm.html", "pm-pop-form-gm-uid10.html", "usercard-uid5.html")


def test_every_recorded_response_is_accounted_for() -> None:
    from forums.phpwind_fixtures import PAGES, load

    names = {p.name for p in PAGES.iterdir() if not p.name.endswith(".headers.txt")}
    assert len(names) == 62 and names == set(ANSWERS) | set(OWNERS) | set(REDIRECTS) | set(FRAGMENTS)
    for name, (ok, message) in ANSWERS.items():
        answer = parse.read_answer(text(name))
        assert (answer.ok, answer.message) == (ok, message), name
    assert "a=welcome&_statu=" in parse.read_answer(text("login-post-ok.html")).referer
    for name, uid in OWNERS.items():
        assert parse.page_uid(text(name)) == uid, name
        token = parse.csrf_token(text(name))
        assert token is None or re.fullmatch(r"[0-9a-f]{16}", token), name  # the field of the csrf pair
    for name, target in REDIRECTS.items():
        status, headers, _ = load(name)
        assert status == 302 and target in dict(headers)["Location"], name
    for name in FRAGMENTS:  # fragments of the page: no frame, so never taken for a guest page
        assert parse.page_uid(text(name)) is None, name


def test_the_refusals_of_players_and_guests_read_as_what_they_are() -> None:
    from forums.phpwind_fixtures import load
    from tianshen.forum.phpwind.client import PhpwindClient, Reply

    client = PhpwindClient("http://127.0.0.1:18070/", "神的使者", "x")

    def reply(name: str) -> Reply:
        status, headers, _ = load(name)
        return Reply(status, text(name), parse.read_answer(text(name)), httpx.Headers(headers))

    assert client.logged_out(reply("guest-reply-post.json"))  # the guest refusal: the session ended
    assert client.logged_out(reply("guest-pm-inbox.html"))  # a redirect to the login page
    assert client.logged_out(reply("thread-tid4-page1-guest.html"))  # a guest's page frame
    assert not client.logged_out(reply("login-welcome.html"))
    assert not client.logged_out(reply("edit-form-other-user-refused.html"))  # a refusal, not a logout
    assert not client.logged_out(reply("newthread-post-flood.json"))
    assert not client.logged_out(reply("thread-tid4-page1.html"))
    guest = parse.thread_page(text("thread-tid4-page1-guest.html"), timezone(timedelta(hours=8)))
    assert guest is not None and len(guest.posts) == 15  # a guest sees the same floors
    own = parse.pm_dialog(text("pm-dialog-player1-dialogid1-with-gm.html"), timezone(timedelta(hours=8)))
    assert own is not None and [(m.message_id, m.mine) for m in own[0]] == [(8, False), (5, True), (1, True)]
    assert parse.pm_inbox(text("pm-inbox-player1.html"))[0][0].other_name == "神的使者"


# ---- on the board made of the recordings (`phpwind_live.py`) ------------------------------------


def _live(start: datetime):  # noqa: ANN202
    from forums.phpwind_live import BASE, GM_NAME, LivePhpwind, PhpwindPlayers
    from tianshen.forum.phpwind import PhpwindForum

    now = [start]
    board = LivePhpwind(lambda: now[0])
    for name in ("白狐", "青竹"):
        board.uid(name)
    forum = PhpwindForum(BASE, GM_NAME, "gm123456", board.fid, transport=board.transport(), flood_interval_s=0,
                         clock=lambda: now[0])
    forum.login()
    return board, forum, PhpwindPlayers(board), now


def test_a_dialog_counting_more_than_its_pages_show_is_read_again() -> None:
    """A message the dialog list counts (共N条) but the dialog page does not show yet: the
    dialog is opened again at the next poll, though the list's last text did not change and
    nothing is unread any more (opening it marked it read)."""
    board, forum, players, now = _live(datetime(2026, 12, 6, 12, 0, tzinfo=UTC))
    first = players.pm("白狐", "神的使者", "杀 青竹")
    second = players.pm("白狐", "神的使者", "补充：宣言")
    board.hidden.add(second)
    assert [p.id for p in forum.fetch_pms(None)] == [first]
    board.hidden.clear()
    assert [p.id for p in forum.fetch_pms(first)] == [second]
    asked = board.requests
    assert forum.fetch_pms(second) == []
    assert board.requests - asked == 1  # the counts agree: the list alone


def test_edits_silent_within_the_grace_and_marked_after_it() -> None:
    board, forum, players, now = _live(datetime(2026, 12, 6, 12, 0, tzinfo=UTC))
    tid = forum.create_thread("第1天投票帖", "请投票", "t")
    quiet = players.post("白狐", tid, "投票 青竹")
    marked = players.post("青竹", tid, "投票 白狐")
    assert [p.text for p in forum.read_thread(tid, None)[1:]] == ["投票 青竹", "投票 白狐"]
    now[0] += timedelta(seconds=25)
    players.edit(quiet, "白狐", "投票 夜莺")  # within post_modify_time: no mark
    now[0] += timedelta(seconds=50)
    players.edit(marked, "青竹", "投票 夜莺")  # 75 s after posting: 「[青竹于… 编辑了帖子]」
    by = {p.id: p for p in forum.read_thread(tid, None)}
    assert (by[quiet].text, by[quiet].edited) == ("投票 夜莺", False)  # only the text shows it
    assert (by[marked].text, by[marked].edited, by[marked].edited_by) == ("投票 夜莺", True, "青竹")
    assert by[marked].edited_at == datetime(2026, 12, 6, 12, 1, tzinfo=UTC)
    with pytest.raises(PermissionError):  # 「您没有权限编辑其他人的帖子」
        players.edit(quiet, "青竹", "投票 白狐")


def test_the_welcome_step_is_asked_under_the_boards_own_path() -> None:
    from tianshen.forum.phpwind.client import PhpwindClient

    welcome = "http://127.0.0.1:18070/bbs/index.php?m=u&c=login&a=welcome&_statu=x"
    assert PhpwindClient("https://example.org/bbs/", "a", "b").relative(welcome) == \
        "index.php?m=u&c=login&a=welcome&_statu=x"
    assert PhpwindClient("http://127.0.0.1:18070", "a", "b").relative(welcome) == \
        "bbs/index.php?m=u&c=login&a=welcome&_statu=x"
    assert PhpwindClient("http://h/", "a", "b").relative("http://h") == "index.php"
