"""Reading recorded Discuz! pages: threads, PMs, times, every recorded error answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from forums.discuz_fixtures import X34, X35, needs_recordings
from tianshen.forum.discuz import parse

pytestmark = needs_recordings
CST = timezone(timedelta(hours=8))


def page(version: str, name: str) -> str:
    folder = X35 if version == "x3.5" else X34
    raw = (folder / name).read_bytes()
    return parse.decode(raw, "gbk" if version == "x3.4" else "utf-8")


def posts(version: str, name: str) -> dict[int, parse.RawPost]:
    return {p.pid: p for p in parse.thread_page(page(version, name), CST).posts}


@pytest.mark.parametrize("version", ["x3.5", "x3.4"])
def test_thread_pages_give_pid_floor_author_and_exact_time(version: str) -> None:
    tp = parse.thread_page(page(version, "html-viewthread-tid1-page1.html"), CST)
    assert (tp.page, tp.pages) == (1, 2)
    assert [p.position for p in tp.posts] == list(range(1, 11))
    first = tp.posts[0]
    assert first.author == "mafiagm" and first.pid == 1
    assert first.posted[0] == first.posted[1]  # exact to the second
    p2 = tp.posts[1]
    assert p2.author == "player1" and p2.author_uid == (2 if version == "x3.5" else 3)
    p2b = parse.thread_page(page(version, "html-viewthread-tid1-page2.html"), CST)
    assert p2b.page == 2 and p2b.posts[0].position == 11


def test_the_edited_posts_carry_the_marker_and_keep_only_the_new_text() -> None:
    got = posts("x3.5", "html-viewthread-tid1-page1.html")
    assert got[3].body.edited_by == "player2" and got[3].body.edited_at_text == "2026-12-2 21:25"
    assert got[3].body.text.startswith("投票 狼人甲") and "本帖最后由" not in got[3].body.text
    assert got[4].body.edited_by == "狼人甲"
    assert got[2].body.edited_by is None and got[5].body.edited_by is None


def test_the_gbk_edited_posts_read_the_same() -> None:
    got = posts("x3.4", "html-viewthread-tid1-page1.html")
    assert got[3].body.edited_by == "player2"
    assert got[4].body.edited_by == "狼人甲" and got[4].body.edited_at_text == "2026-12-2 22:12"
    assert "本帖最后由" not in got[4].body.full_text


@pytest.mark.parametrize("version", ["x3.5", "x3.4"])
def test_a_quote_is_left_out_of_the_vote_text(version: str) -> None:
    quote = posts(version, "html-viewthread-tid1-page1.html")[9].body
    assert "blockquote" not in quote.text
    assert quote.full_text != quote.text
    if version == "x3.5":
        assert quote.text == "我不同意楼上，投票 player1"
        assert "投票 player3" in quote.full_text and "投票 player3" not in quote.text


def test_the_api_quote_is_left_out_too() -> None:
    body = parse.message_body('<div class="reply_wrap"><font color="#999999">player1 发表于 刚刚</font><br />\n'
                              "投票 player3</div>我不同意楼上，投票 player1")
    assert body.text == "我不同意楼上，投票 player1"


def test_what_readers_do_not_see_is_not_read() -> None:
    """Comments stay hidden even across lines, and a stray `</div>` in an API message loses
    nothing after it (the BeautifulSoup parser read 「a cd b」 and 「a」 here)."""
    assert parse.message_body("a<!-- c\nd -->b").text == "ab"
    assert parse.message_body("投票 a</div> player3").text == "投票 a player3"


@pytest.mark.parametrize("version", ["x3.5", "x3.4"])
def test_back_dated_posts_have_exact_times_in_every_format(version: str) -> None:
    got = parse.thread_page(page(version, "html-viewthread-tid3-olddates.html"), CST).posts
    assert all(p.posted[0] == p.posted[1] for p in got)
    if version == "x3.5":
        assert [p.posted[0] for p in got] == [
            datetime(2026, 11, 20, 13, 25, 53, tzinfo=UTC), datetime(2026, 11, 20, 13, 35, 53, tzinfo=UTC),
            datetime(2026, 11, 29, 13, 25, 53, tzinfo=UTC), datetime(2026, 12, 1, 13, 20, 53, tzinfo=UTC)]


def test_a_gbk_page_with_mojibake_posts_still_decodes() -> None:
    raw = (X34 / "html-viewthread-tid2-encoding-tests.html").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("gbk")
    got = {p.pid: p for p in parse.thread_page(parse.decode(raw, "gbk"), CST).posts}
    assert got[16].body.text == "这条回复用 GBK 字节提交：投票 狼人甲"
    assert "&#128512;" in got[17].body.text  # what readers see
    assert 15 in got and 18 in got


@pytest.mark.parametrize("version,unread", [("x3.5", {2, 4, 6}), ("x3.4", {3, 5})])
def test_the_pc_inbox_marks_unread_conversations(version: str, unread: set[int]) -> None:
    name = "html-pm-list.html" if version == "x3.5" else "html-pm-list-newpm.html"
    convs, _, _ = parse.pm_list(page(version, name))
    assert {c.plid for c in convs if c.unread} == unread
    player3 = next(c for c in convs if c.other_name == "player3")
    assert player3.last_text in ("查验 狼人甲",)


def test_the_pc_conversation_has_pmid_sender_and_minute_time() -> None:
    msgs, _, _ = parse.pm_view(page("x3.5", "html-pm-view-touid2.html"), CST, 10, "mafiagm")
    assert [(m.pmid, m.sender, m.sender_uid) for m in msgs] == [(1, "mafiagm", 10), (8, "player1", 2),
                                                                (12, "mafiagm", 10)]
    assert msgs[1].text == "夜晚行动：我(狼人)选择杀 player5"
    assert msgs[1].when == (datetime(2026, 12, 2, 13, 24, tzinfo=UTC), datetime(2026, 12, 2, 13, 24, 59, tzinfo=UTC))


def test_relative_times_become_intervals() -> None:
    now = datetime(2026, 12, 2, 13, 25, 30, tzinfo=UTC)  # 21:25:30 board time
    assert parse.time_interval("12&nbsp;秒前", now, CST) == (now - timedelta(seconds=12),) * 2
    lo, hi = parse.time_interval("2&nbsp;分钟前", now, CST)  # type: ignore[misc]
    assert hi - lo == timedelta(seconds=59) and hi == now - timedelta(minutes=2)
    lo, hi = parse.time_interval("昨天&nbsp;21:20", now, CST)  # type: ignore[misc]
    assert lo == datetime(2026, 12, 1, 13, 20, tzinfo=UTC)
    lo, hi = parse.time_interval("3&nbsp;天前", now, CST)  # type: ignore[misc]
    assert lo == datetime(2026, 11, 28, 16, 0, tzinfo=UTC)
    assert parse.time_interval("2026-11-20 21:25:53", now, CST) == (datetime(2026, 11, 20, 13, 25, 53, tzinfo=UTC),) * 2
    assert parse.time_interval("刚刚", now, CST) == (now, now)
    assert parse.time_interval("半小时前", now, CST) is not None
    assert parse.time_interval("player1", now, CST) is None


def test_the_best_time_is_the_latest_the_page_allows_but_not_after_first_seen() -> None:
    lo = datetime(2026, 12, 2, 14, 0, tzinfo=UTC)
    hi = lo + timedelta(seconds=59)
    assert parse.estimate((lo, hi), lo + timedelta(seconds=20)) == lo + timedelta(seconds=20)
    assert parse.estimate((lo, hi), lo + timedelta(minutes=5)) == hi
    assert parse.estimate((lo, lo), lo + timedelta(minutes=5)) == lo


def test_the_footer_states_the_board_time_offset() -> None:
    assert parse.footer_offset(page("x3.5", "html-forumdisplay-fid3.html")) == CST
    assert parse.footer_offset(page("x3.4", "html-forumdisplay-fid36.html")) == CST
    assert parse.parse_offset("UTC-3:30") == timezone(-timedelta(hours=3, minutes=30))


ANSWERS = [
    # (board, file, ok, key or message fragment)
    ("x3.5", "html-error-flood-reply-ajax.xml", False, "两次发表间隔少于 15 秒"),
    ("x3.5", "html-error-flood-reply.html", False, "两次发表间隔少于 15 秒"),
    ("x3.5", "html-error-pm-flood-ajax.xml", False, "两次发送短消息太快"),
    ("x3.5", "html-error-pm-flood.html", False, "两次发送短消息太快"),
    ("x3.5", "html-error-minpostsize-reply-ajax.xml", False, "小于 10 个字符"),
    ("x3.5", "html-error-login-strike-ajax.xml", False, "密码错误次数过多"),
    ("x3.5", "html-login-post-badpw-ajax.xml", False, "登录失败"),
    ("x3.5", "html-login-post-seccode-error-ajax.xml", False, "验证码"),
    ("x3.5", "html-login-post-success-ajax.xml", True, ""),
    ("x3.5", "html-pm-send-ok-ajax.xml", True, "操作成功"),
    ("x3.5", "html-reply-post-guest-ajax.xml", False, "尚未登录"),
    ("x3.5", "html-reply-guest-notloggedin.html", False, "尚未登录"),
    ("x3.5", "html-pm-list-guest-notloggedin.html", False, "请先登录"),
    ("x3.5", "html-viewthread-nonexistent.html", False, "主题不存在"),
    ("x3.5", "api-error-flood-sendreply.json", False, "post_flood_ctrl"),
    ("x3.5", "api-error-pm-flood.json", False, "message_can_not_send_2"),
    ("x3.5", "api-error-login-strike.json", False, "login_strike"),
    ("x3.5", "api-login-v3-badpw.json", False, "login_invalid"),
    ("x3.5", "api-login-seccode-required.json", False, "submit_seccode_invalid"),
    ("x3.5", "api-mypm-guest.json", False, "login_before_enter_home//1"),
    ("x3.5", "api-module-not-exists.json", False, "module_not_exists"),
    ("x3.5", "api-sendreply-badformhash.json", False, "非法字符"),
    ("x3.5", "api-error-request-tainting-empty-formhash.html", False, "非法字符"),
    ("x3.5", "api-login-v4-503-missing-wechat-wsq.html", False, "wsq.class.php"),
    ("x3.4", "html-error-flood-reply-ajax.xml", False, "两次发表间隔少于 15 秒"),
    ("x3.4", "html-error-flood-reply.html", False, "两次发表间隔少于 15 秒"),
    ("x3.4", "html-error-pm-flood-ajax.xml", False, "两次发送短消息太快"),
    ("x3.4", "html-error-pm-flood-right-after-post-ajax.xml", False, "两次发送短消息太快"),
    ("x3.4", "html-error-minpostsize-reply-ajax.xml", False, "字符"),
    ("x3.4", "html-error-login-strike-ajax.xml", False, "密码错误次数过多"),
    ("x3.4", "html-login-post-badpw-ajax.xml", False, "登录失败"),
    ("x3.4", "html-login-post-utf8-username-ajax.xml", False, "登录失败"),
    ("x3.4", "html-login-post-success-gbk-username-ajax.xml", True, ""),
    ("x3.4", "html-reply-post-ajax-player1.xml", True, "回复发布成功"),
    ("x3.4", "html-reply-flood-first-ok-ajax.xml", True, "回复发布成功"),
    ("x3.4", "html-reply-post-utf8-bytes-ajax.xml", True, "回复发布成功"),
    ("x3.4", "html-reply-post-guest-ajax.xml", False, "尚未登录"),
    ("x3.4", "html-reply-page-guest-notloggedin.html", False, "尚未登录"),
    ("x3.4", "html-pm-list-guest-notloggedin.html", False, "请先登录"),
    ("x3.4", "html-viewthread-nonexistent.html", False, "主题不存在"),
    ("x3.4", "api-error-flood-sendreply.json", False, "post_flood_ctrl"),
    ("x3.4", "api-error-pm-flood.json", False, "message_can_not_send_2"),
    ("x3.4", "api-error-login-strike.json", False, "login_strike"),
    ("x3.4", "api-error-login-strike-correct-password.json", False, "login_strike"),
    ("x3.4", "api-login-v3-badpw.json", False, "login_invalid"),
    ("x3.4", "api-login-v4-utf8-username-no-charset-param.json", False, "login_invalid"),
    ("x3.4", "api-mypm-guest.json", False, "login_before_enter_home//1"),
    ("x3.4", "api-sendreply-guest.json", False, "replyperm_login_nopermission//1"),
    ("x3.4", "api-sendpm-guest.json", False, "to_login//1"),
    ("x3.4", "api-viewthread-nonexistent.json", False, "thread_nonexistence"),
    ("x3.4", "api-forumindex-mobile-closed-default.json", False, "mobile_is_closed"),
    ("x3.4", "api-sendreply-empty-formhash.json", False, "非法字符"),
    ("x3.4", "api-sendreply-wrong-formhash.json", False, "非法字符"),
    ("x3.4", "api-viewthread-tid1-v3.json", False, "mobileoem"),
]


@pytest.mark.parametrize("version,name,ok,says", ANSWERS)
def test_every_recorded_answer_is_understood(version: str, name: str, ok: bool, says: str) -> None:
    folder = X35 if version == "x3.5" else X34
    raw = (folder / name).read_bytes()
    text = raw.decode("utf-8") if raw.lstrip()[:1] == b"{" else parse.decode(raw, "gbk" if version == "x3.4" else "utf-8")
    a = parse.read_answer(text)
    assert a.ok is ok or a.key.endswith("succeed")
    assert says in (a.key + " " + a.message + " " + a.error), (a.kind, a.key, a.message)


def test_login_forms_show_whether_a_captcha_is_demanded() -> None:
    for version in ("x3.5", "x3.4"):
        plain = parse.login_form(page(version, "html-login-page.html"))
        assert plain is not None and not plain.captcha and "loginhash=" in plain.action
        assert plain.fields["formhash"]
        demanding = parse.login_form(page(version, "html-login-page-default-with-seccode.html"))
        assert demanding is not None and demanding.captcha


def test_gbk_boards_get_only_what_gbk_can_store() -> None:
    assert parse.fit_charset("投票 狼人甲 😀", "gbk") == "投票 狼人甲 ?"
    assert parse.fit_charset("😀", "utf-8") == "😀"
