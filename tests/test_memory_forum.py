from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from tianshen.forum.base import Forum, ForumError
from tianshen.forum.memory import MemoryBoard, MemoryForum

GM = "神的使者"
T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self, t: datetime = T0) -> None:
        self.t = t

    def __call__(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def board(clock: Clock) -> MemoryBoard:
    return MemoryBoard(clock)


@pytest.fixture
def gm(board: MemoryBoard) -> MemoryForum:
    forum = board.gm()
    forum.login()
    return forum


def test_gm_adapter_implements_forum_protocol(gm: MemoryForum) -> None:
    forum: Forum = gm  # static check; and the runtime shape:
    assert forum.markup == "bbcode"
    for name in ("login", "now", "fetch_pms", "read_thread", "create_thread", "reply", "send_pm"):
        assert callable(getattr(forum, name))


def test_ids_increase_across_threads_and_pms(board: MemoryBoard) -> None:
    t1 = board.new_thread("alice", "vote 1", "opening")
    t2 = board.new_thread("bob", "vote 2", "opening")
    assert (t1, t2) == ("1", "2")
    p1 = board.post("carol", t1, "a")
    p2 = board.post("carol", t2, "b")
    p3 = board.post("carol", t1, "c")
    assert p1 < p2 < p3
    m1 = board.pm("alice", GM, "x")
    m2 = board.pm("bob", GM, "y")
    assert m1 < m2
    assert [p.position for p in board.thread_posts(t1)] == [1, 2, 3]
    assert board.threads() == [("1", "vote 1"), ("2", "vote 2")]
    assert board.thread_title(t2) == "vote 2"


def test_timestamps_come_from_the_clock_at_write_time(board: MemoryBoard, gm: MemoryForum,
                                                     clock: Clock) -> None:
    tid = board.new_thread("alice", "t", "first")
    clock.advance(90)
    board.post("bob", tid, "second")
    board.pm("bob", GM, "hi")
    clock.advance(30)
    posts = gm.read_thread(tid, None)
    assert [p.posted_at for p in posts] == [T0, T0 + timedelta(seconds=90)]
    assert gm.fetch_pms(None)[0].sent_at == T0 + timedelta(seconds=90)
    assert gm.now() == T0 + timedelta(seconds=120)


def test_timestamps_are_normalised_to_utc() -> None:
    east8 = timezone(timedelta(hours=8))
    board = MemoryBoard(lambda: datetime(2024, 3, 1, 20, 0, tzinfo=east8))
    board.pm("alice", GM, "hi")
    sent = board.inbox(GM)[0].sent_at
    assert sent == T0 and sent.utcoffset() == timedelta(0)


def test_naive_clock_is_rejected() -> None:
    board = MemoryBoard(lambda: datetime(2024, 3, 1, 12, 0))
    with pytest.raises(ValueError):
        board.pm("alice", GM, "hi")


def test_fetch_pms_after_high_water_mark(board: MemoryBoard, gm: MemoryForum) -> None:
    a = board.pm("alice", GM, "one", subject="s1")
    board.pm("alice", "bob", "not for the GM")
    b = board.pm("bob", GM, "two")
    got = gm.fetch_pms(None)
    assert [(m.id, m.sender, m.text) for m in got] == [(a, "alice", "one"), (b, "bob", "two")]
    assert got[0].subject == "s1"
    assert gm.fetch_pms(b) == []
    c = board.pm("carol", GM, "three")
    assert [m.id for m in gm.fetch_pms(b)] == [c]
    assert [m.id for m in gm.fetch_pms(a)] == [b, c]


def test_pm_read_flags_and_inbox(board: MemoryBoard, gm: MemoryForum) -> None:
    board.pm("alice", GM, "hi")
    assert board.unread(GM) == 1
    gm.fetch_pms(None)
    assert board.unread(GM) == 0
    gm.send_pm("alice", "你的身份", "你是平民", key="role:alice")
    assert board.unread("alice") == 1
    inbox = board.inbox("alice")
    assert [(m.sender, m.subject, m.text) for m in inbox] == [(GM, "你的身份", "你是平民")]
    assert board.unread("alice") == 0


def test_read_thread_from_a_point(board: MemoryBoard, gm: MemoryForum) -> None:
    tid = board.new_thread("alice", "t", "p1")
    ids = [board.post("bob", tid, f"p{i}") for i in range(2, 5)]
    other = board.new_thread("carol", "other", "elsewhere")
    board.post("carol", other, "noise")
    assert [p.text for p in gm.read_thread(tid, None)] == ["p1", "p2", "p3", "p4"]
    after = gm.read_thread(tid, ids[0])
    assert [p.text for p in after] == ["p3", "p4"]
    assert [p.position for p in after] == [3, 4]
    assert all(p.thread_id == tid for p in after)
    assert gm.read_thread(tid, ids[-1]) == []


def test_read_unknown_thread_fails(gm: MemoryForum) -> None:
    with pytest.raises(ForumError):
        gm.read_thread("99", None)


def test_post_to_unknown_thread_fails(board: MemoryBoard) -> None:
    with pytest.raises(ForumError):
        board.post("alice", "99", "x")


def test_edits_keep_original_and_history(board: MemoryBoard, gm: MemoryForum, clock: Clock) -> None:
    tid = board.new_thread("alice", "vote", "opening")
    pid = board.post("bob", tid, "投 carol")
    clock.advance(60)
    board.edit(pid, "bob", "投 dave")
    clock.advance(60)
    board.edit(pid, "bob", "投 erin")
    stored = board.get_post(pid)
    assert stored.original_text == "投 carol"
    assert stored.text == "投 erin"
    assert stored.history == [(T0 + timedelta(seconds=60), "投 dave"),
                              (T0 + timedelta(seconds=120), "投 erin")]
    seen = gm.read_thread(tid, None)[1]
    assert seen.edited and seen.text == "投 erin" and seen.posted_at == T0
    assert seen.original_text == "投 carol"  # the first version, as a forum with edit history shows it
    assert not gm.read_thread(tid, None)[0].edited
    assert gm.read_thread(tid, None)[0].original_text is None


def test_only_the_author_may_edit(board: MemoryBoard) -> None:
    tid = board.new_thread("alice", "vote", "opening")
    pid = board.post("bob", tid, "mine")
    with pytest.raises(ForumError):
        board.edit(pid, "mallory", "hijacked")
    assert board.get_post(pid).text == "mine"
    assert not board.get_post(pid).edited


def test_gm_writes_are_idempotent_by_key(board: MemoryBoard, gm: MemoryForum) -> None:
    tid = gm.create_thread("第1天投票", "开帖", key="thread:vote:1")
    assert gm.create_thread("第1天投票", "开帖", key="thread:vote:1") == tid
    assert board.threads() == [(tid, "第1天投票")]
    p = gm.reply(tid, "结果", key="reply:1")
    assert gm.reply(tid, "结果 (retry)", key="reply:1") == p
    assert [x.text for x in board.thread_posts(tid)] == ["开帖", "结果"]
    gm.send_pm("alice", "s", "b", key="pm:1")
    gm.send_pm("alice", "s", "b", key="pm:1")
    assert len(board.inbox("alice")) == 1
    # keys live on the board: a restarted adapter cannot duplicate either
    again = board.gm()
    again.login()
    assert again.reply(tid, "结果", key="reply:1") == p
    assert len(board.thread_posts(tid)) == 2
    assert board.get_post(p).author == GM


def test_a_board_told_to_forget_keys_behaves_like_discuz_and_spirit(clock: Clock) -> None:
    """Issue 27: keys kept per adapter (a restart forgets them), titles repeat, and
    `find_written` looks at the posts: a thread of the same title with another text is not
    this write."""
    from tianshen.forum.base import Write

    board = MemoryBoard(clock, remembers_keys=False)
    gm = board.gm()
    gm.login()
    assert gm.remembers_keys is False
    first = gm.create_thread("第1天投票帖", "甲局的投票帖", key="甲:5:0")
    assert gm.create_thread("第1天投票帖", "甲局的投票帖", key="甲:5:0") == first  # this process wrote it
    second = gm.create_thread("第1天投票帖", "乙局的投票帖", key="乙:5:0")
    assert second != first and [t for _, t in board.threads()] == ["第1天投票帖"] * 2
    again = board.gm()  # a restart: the key is forgotten, the write made twice arrives twice
    again.login()
    assert again.create_thread("第1天投票帖", "甲局的投票帖", key="甲:5:0") not in (first, second)
    asked = Write(kind="thread", key="乙:5:0", body="乙局的投票帖", title="第1天投票帖", since=T0)
    assert again.find_written(asked) == second


def test_key_reused_for_another_operation_is_a_bug(gm: MemoryForum) -> None:
    tid = gm.create_thread("t", "b", key="k")
    with pytest.raises(ValueError):
        gm.reply(tid, "x", key="k")


def test_fail_next_before_write(board: MemoryBoard, gm: MemoryForum) -> None:
    tid = gm.create_thread("t", "b", key="t")
    board.fail_next(2, "reply")
    for _ in range(2):
        with pytest.raises(ForumError, match="simulated outage"):
            gm.reply(tid, "x", key="r")
    assert len(board.thread_posts(tid)) == 1
    gm.send_pm("alice", "s", "not affected", key="pm")  # other operations unaffected
    assert gm.reply(tid, "x", key="r") > 0
    assert [p.text for p in board.thread_posts(tid)] == ["b", "x"]


def test_fail_next_after_write_then_retry_does_not_duplicate(board: MemoryBoard, gm: MemoryForum) -> None:
    tid = gm.create_thread("t", "b", key="t")
    board.fail_next(1, "reply", after_write=True)
    with pytest.raises(ForumError, match="simulated outage"):
        gm.reply(tid, "x", key="r")
    assert [p.text for p in board.thread_posts(tid)] == ["b", "x"]  # it was written
    pid = gm.reply(tid, "x", key="r")
    assert [p.text for p in board.thread_posts(tid)] == ["b", "x"]
    assert board.thread_posts(tid)[1].id == pid

    board.fail_next(1, "send_pm", after_write=True)
    with pytest.raises(ForumError):
        gm.send_pm("alice", "s", "role", key="role")
    gm.send_pm("alice", "s", "role", key="role")
    assert [m.text for m in board.inbox("alice")] == ["role"]

    board.fail_next(1, "create_thread", after_write=True)
    with pytest.raises(ForumError):
        gm.create_thread("t2", "b2", key="t2")
    assert gm.create_thread("t2", "b2", key="t2") == "2"
    assert len(board.threads()) == 2


def test_fail_next_reads_and_any(board: MemoryBoard, gm: MemoryForum) -> None:
    tid = board.new_thread("alice", "t", "b")
    board.pm("alice", GM, "hi")
    board.fail_next(1, "fetch_pms")
    with pytest.raises(ForumError):
        gm.fetch_pms(None)
    assert len(gm.fetch_pms(None)) == 1
    board.fail_next(1, "read_thread")
    with pytest.raises(ForumError):
        gm.read_thread(tid, None)
    assert len(gm.read_thread(tid, None)) == 1
    board.fail_next(2, "any")
    with pytest.raises(ForumError):
        gm.fetch_pms(None)
    with pytest.raises(ForumError):
        gm.reply(tid, "x", key="k")
    assert gm.reply(tid, "x", key="k") > 0


def test_login_required(board: MemoryBoard) -> None:
    fresh = board.gm()
    tid = board.new_thread("alice", "t", "b")
    calls = [
        lambda: fresh.fetch_pms(None),
        lambda: fresh.read_thread(tid, None),
        lambda: fresh.create_thread("t", "b", key="a"),
        lambda: fresh.reply(tid, "b", key="b"),
        lambda: fresh.send_pm("alice", "s", "b", key="c"),
    ]
    for call in calls:
        with pytest.raises(ForumError, match="not logged in"):
            call()
    assert board.inbox("alice") == [] and len(board.threads()) == 1
    fresh.login()
    assert board.logins == [T0]
    assert fresh.read_thread(tid, None)[0].text == "b"


def test_flood_control(clock: Clock) -> None:
    board = MemoryBoard(clock, flood_interval_s=30)
    gm = board.gm()
    gm.login()
    tid = gm.create_thread("t", "b", key="t")
    clock.advance(10)
    with pytest.raises(ForumError, match=r"flood control: wait 20 s"):
        gm.reply(tid, "x", key="r")
    assert len(board.thread_posts(tid)) == 1
    board.pm("alice", GM, "players are not flood-limited here")
    assert len(gm.fetch_pms(None)) == 1  # reads are not limited
    assert gm.create_thread("t", "b", key="t") == tid  # a replayed key writes nothing: no flood
    clock.advance(20)
    gm.reply(tid, "x", key="r")
    with pytest.raises(ForumError, match="flood control"):
        gm.send_pm("alice", "s", "b", key="p")
    clock.advance(30)
    gm.send_pm("alice", "s", "b", key="p")
    assert len(board.inbox("alice")) == 1


def test_flood_control_off_by_default(board: MemoryBoard, gm: MemoryForum) -> None:
    tid = gm.create_thread("t", "b", key="t")
    for i in range(5):
        gm.reply(tid, str(i), key=f"r{i}")
    assert len(board.thread_posts(tid)) == 6


def test_a_read_hands_out_the_views_it_made_until_the_post_changes(board: MemoryBoard, gm: MemoryForum,
                                                                    clock: Clock) -> None:
    """Issue 37: a read does not build (and clean) every post's view again; an edit, or a
    post changed in place, shows at once."""
    tid = board.new_thread("alice", "vote", "opening")
    pid = board.post("bob", tid, "投 carol")
    first = gm.read_thread(tid, None)
    again = gm.read_thread(tid, None)
    assert [p is q for p, q in zip(first, again, strict=True)] == [True, True]
    assert gm.read_thread(tid, first[0].id) == [first[1]]  # after an id: only the later posts
    clock.advance(60)
    board.edit(pid, "bob", "投 dave")
    edited = gm.read_thread(tid, None)[1]
    assert edited is not first[1] and (edited.text, edited.edited, edited.original_text) == ("投 dave", True, "投 carol")
    board.get_post(pid).text = "投 erin\x00"  # changed in place: still shown, and cleaned
    assert gm.read_thread(tid, pid - 1)[0].text == "投 erin"
    pm = board.pm("bob", GM, "查验 carol")
    assert gm.fetch_pms(None)[0] is gm.fetch_pms(None)[0] and gm.fetch_pms(None)[0].id == pm


class _Untouchable:
    """Stands for an old item: any look at it fails the test."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"an old item was read ({name})")


def test_reads_after_an_id_look_only_at_the_newer_items(board: MemoryBoard, gm: MemoryForum, clock: Clock) -> None:
    """Issue 37: a read after an id (the GM's PMs, a transcript's catch-up) does not walk
    the whole board, only what came after it, still in order."""
    tid = board.new_thread("alice", "vote", "opening")
    old_pm = board.pm("bob", GM, "旧")
    old_post = board.post("bob", tid, "旧帖")
    board._pms[old_pm] = _Untouchable()  # type: ignore[assignment]
    board._posts[old_post] = _Untouchable()  # type: ignore[assignment]
    clock.advance(60)
    a = board.pm("carol", GM, "新一")
    board.pm("carol", "dave", "不是给天神的")
    b = board.pm("erin", GM, "新二")
    p = board.post("carol", tid, "新帖")
    assert [pm.id for pm in gm.fetch_pms(old_pm)] == [a, b]
    assert [(type(x).__name__, x.id) for x in board.activity(old_post, old_pm)] == \
        [("StoredPost", p), ("StoredPm", a), ("StoredPm", a + 1), ("StoredPm", b)]


def test_a_read_after_an_id_looks_only_at_the_newer_posts(clock: Clock) -> None:
    """Issue 37: a thread's ids increase, so a read after an id finds the newer posts by
    bisection, without a look at every post of a long thread; the same posts as before."""
    board = MemoryBoard(clock)
    gm = board.gm()
    gm.login()
    thread = board.new_thread("甲", "主帖", "开始")
    other = board.new_thread("乙", "别的", "别的")
    ids = [board.post("甲" if n % 2 else "乙", thread if n % 3 else other, f"第{n}帖") for n in range(30)]
    mine = [i for i in [1, *ids] if board.get_post(i).thread_id == thread]

    class Counted(list):
        walks = 0

        def __iter__(self):  # a look at every post of the thread
            Counted.walks += 1
            return super().__iter__()

    board._threads[thread].post_ids = Counted(board._threads[thread].post_ids)
    for after in (None, 0, 1, mine[5], mine[5] + 1, mine[-2], mine[-1], 10**6):
        walks = Counted.walks
        got = [p.id for p in gm.read_thread(thread, after)]
        assert got == [i for i in mine if after is None or i > after]
        assert Counted.walks == walks + (after is None)


def test_a_call_looks_for_faults_only_when_some_are_set(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: without an outage set, a GM call does not look through the faults; with
    one, before and after the write as before."""
    board = MemoryBoard(clock)
    gm = board.gm()
    gm.login()
    looked: list[bool] = []
    real = board._take_fault
    monkeypatch.setattr(board, "_take_fault", lambda op, after_write: looked.append(after_write) or real(op, after_write))
    thread = gm.create_thread("主帖", "开始", key="k1")
    gm.reply(thread, "一", key="k2")
    gm.fetch_pms(None)
    assert looked == []
    board.fail_next(1, "reply", after_write=True)
    with pytest.raises(ForumError, match="simulated outage"):
        gm.reply(thread, "二", key="k3")
    assert looked == [False, True] and [p.text for p in gm.read_thread(thread, None)] == ["开始", "一", "二"]
