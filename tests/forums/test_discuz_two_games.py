"""Issue 27 item 2 on the recorded X3.5 pages: two games on one board write threads of the
same title (「第1天投票帖」, the player list of one variant) and often the same text.  A
write of one game is never taken for the other's: the GM thread already on the board
(tid 1, opened 26 s before) belongs to the first game, the second game's thread is opened."""

from __future__ import annotations

from datetime import UTC, datetime

from forums.discuz_fixtures import make_forum, needs_recordings, x35_board
from tianshen.forum.base import Write

pytestmark = needs_recordings

TITLE = "【杀人游戏】第1局 第一天 投票贴"  # the recorded GM thread tid 1, opened at 13:23:04
BODY = "请各位玩家在本帖投票。\n格式：投票 玩家名\n(截止时间：今晚 22:00)"  # its opening post
OPENED = datetime(2026, 12, 2, 13, 23, 4, tzinfo=UTC)


def test_a_second_games_thread_of_the_same_title_and_text_is_opened() -> None:
    """At 22eaf70 the adapter looked for a GM thread of that title opened in the last 10
    minutes before writing a key it had not seen, found the first game's and posted nothing
    (「… is already on the board; not sending it again」)."""
    board = x35_board()
    board.date = datetime(2026, 12, 2, 13, 23, 30, tzinfo=UTC)
    board.api("POST", "newthread", "api-newthread.json")
    forum = make_forum(board)  # the default recheck window
    forum.login()
    assert forum.create_thread(TITLE, BODY, "游戏乙:5:0") == "2"
    assert len(board.sent("POST", "api/mobile/index.php", module="newthread")) == 1


def test_a_second_games_reply_of_the_same_text_is_posted() -> None:
    """The same for a reply: an identical GM post in the thread (another game's, or another
    message of the same text) does not stand for a write the adapter has not made."""
    board = x35_board()
    board.date = datetime(2026, 12, 2, 13, 26, 0, tzinfo=UTC)
    board.api("POST", "sendreply", "api-sendreply.json")
    forum = make_forum(board)
    forum.login()
    # the GM's last reply in tid 2 (45 s before board.date) holds this text
    assert forum.reply("2", "[b]主持人补充[/b]：投票截止 22:00\n(北京时间)", "游戏乙:9:0") == 19
    assert len(board.sent("POST", "api/mobile/index.php", module="sendreply")) == 1


def test_find_written_takes_no_thread_of_the_same_title_with_another_text() -> None:
    """A crash between opening a thread and recording it: the look-up compares the opening
    post too, through the mobile API as through the PC pages (22eaf70: the title alone, on
    the mobile API)."""
    board = x35_board()
    board.date = datetime(2026, 12, 2, 13, 23, 30, tzinfo=UTC)
    forum = make_forum(board)
    forum.login()
    assert forum.client.mobile
    since = OPENED.replace(second=0)
    other = Write(kind="thread", key="游戏乙:5:0", body="第二局的投票帖：请在本帖投票。", title=TITLE, since=since)
    assert forum.find_written(other) is None
    mine = Write(kind="thread", key="游戏甲:5:0", body=BODY, title=TITLE, since=since)
    assert forum.find_written(mine) == "1"
