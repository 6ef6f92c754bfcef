"""An in-process forum, faithful enough that the engine runs on it exactly as on a real one.

`MemoryBoard` is the server: it holds threads, posts and PMs, stamps every write with its
clock (like a forum server's own time), and offers the player-side API that simulated
players and tests use (`pm`, `post`, `edit`, `new_thread`, `inbox`, …).  `board.gm()` returns a
`MemoryForum`, the GM account's view implementing the `Forum` protocol of `forum.base`.

Idempotency keys live on the board, so a restarted adapter (a new `gm()`) still cannot
post twice with the same key.  `MemoryBoard(remembers_keys=False)` behaves like Discuz and
Spirit instead: each adapter keeps the keys it wrote, a restarted one has forgotten them,
and `find_written` must look at the posts (titles may repeat: two games of one variant).
`fail_next` injects outages, before or after the write, and `flood_interval_s` imitates a
board's flood control for the GM account.  `users` makes the board know its accounts: a PM
to any other name is then refused for good (`Undeliverable`), as a real board refuses an
unknown recipient; without it (the demo, rehearsals) every name is an account.
`pm_lag_s` imitates a board whose PM list lags behind (issue 27 item 1, Discuz X3.5's mobile
API): a PM reaches the GM's reads only that many seconds after it was sent.
`pm_same_second` imitates UCenter's conversation view (issue 31 item 1, Discuz X3.4/X3.5):
a read lists only PMs older than its own second, so a PM written in the second of a read
reaches the GM on a later one.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal, TypeVar, cast

from tianshen.forum.base import ForumError, ForumPm, ForumPost, Undeliverable, Write, look_back_from

Operation = Literal["reply", "send_pm", "create_thread", "fetch_pms", "read_thread", "board_posts", "any"]
_WRITES = ("reply", "send_pm", "create_thread")
_MICROSECOND = timedelta(microseconds=1)
T = TypeVar("T")
S = TypeVar("S")


@dataclass
class StoredPost:
    id: int
    thread_id: str
    author: str
    posted_at: datetime
    text: str  # current text
    original_text: str
    position: int  # 1 = the opening post
    history: list[tuple[datetime, str]] = field(default_factory=list)  # (edit time, new text)
    edited: bool = False
    _view: tuple[tuple[object, ...], ForumPost] | None = field(default=None, repr=False, compare=False)

    def view(self) -> ForumPost:
        """The post as a read shows it; made again only when the post changed since (a
        view is frozen, so every read may hand out the same one)."""
        fields = (self.id, self.thread_id, self.author, self.posted_at, self.text, self.edited, self.position,
                  self.original_text if self.edited else None)
        if self._view is None or self._view[0] != fields:
            self._view = (fields, ForumPost(*fields))  # type: ignore[arg-type]
        return self._view[1]


@dataclass
class StoredPm:
    id: int
    sender: str
    recipient: str
    sent_at: datetime
    subject: str
    text: str
    read: bool = False
    _view: tuple[tuple[object, ...], ForumPm] | None = field(default=None, repr=False, compare=False)

    def view(self) -> ForumPm:
        """The PM as a read shows it, made again only when it changed since (see `StoredPost.view`)."""
        fields = (self.id, self.sender, self.sent_at, self.subject, self.text)
        if self._view is None or self._view[0] != fields:
            self._view = (fields, ForumPm(*fields))  # type: ignore[arg-type]
        return self._view[1]


@dataclass
class StoredThread:
    id: str
    title: str
    author: str
    post_ids: list[int] = field(default_factory=list)


@dataclass
class _Fault:
    operation: Operation
    remaining: int
    after_write: bool


class MemoryBoard:
    def __init__(self, clock: Callable[[], datetime], gm_account: str = "神的使者",
                 board_name: str = "杀人游戏", flood_interval_s: float = 0, remembers_keys: bool = True,
                 users: Iterable[str] | None = None, pm_lag_s: float = 0, pm_same_second: bool = False) -> None:
        self.clock = clock
        self.pm_lag = timedelta(seconds=pm_lag_s)  # the GM sees a PM this long after it was sent
        self.pm_same_second = pm_same_second  # a read does not show the PMs of its own second
        # the accounts of the board (None: any name is one); the GM's is always one
        self.users: set[str] | None = None if users is None else {*users, gm_account}
        self.remembers_keys = remembers_keys  # False: keys kept per adapter, as on Discuz and Spirit
        self.gm_account = gm_account
        self.board_name = board_name
        self.flood_interval_s = flood_interval_s
        self._threads: dict[str, StoredThread] = {}
        self._posts: dict[int, StoredPost] = {}
        self._pms: dict[int, StoredPm] = {}
        self._next_post = 1
        self._next_pm = 1
        self._keys: dict[str, tuple[str, object]] = {}  # key -> (operation, result)
        self._faults: list[_Fault] = []
        self.edits: list[tuple[int, str]] = []  # (post id, new text) of every edit, in order
        self._last_gm_write: datetime | None = None
        self.logins: list[datetime] = []

    # ---- server time -----------------------------------------------------------------

    def now(self) -> datetime:
        t = self.clock()
        if t.tzinfo is UTC:
            return t
        if t.tzinfo is None:
            raise ValueError("the board's clock must return timezone-aware datetimes")
        return t.astimezone(UTC)

    # ---- accounts ----------------------------------------------------------------------

    def register(self, *names: str) -> None:
        """Accounts made on the board (from then on, only known accounts exist)."""
        self.users = (self.users if self.users is not None else {self.gm_account}) | set(names)

    def has_user(self, name: str) -> bool:
        return self.users is None or name in self.users

    # ---- player-side API -------------------------------------------------------------

    def pm(self, sender: str, to: str, text: str, subject: str = "") -> int:
        pm = StoredPm(self._next_pm, sender, to, self.now(), subject, text)
        self._pms[pm.id] = pm
        self._next_pm += 1
        return pm.id

    def new_thread(self, author: str, title: str, text: str) -> str:
        thread_id = str(len(self._threads) + 1)
        self._threads[thread_id] = StoredThread(thread_id, title, author)
        self.post(author, thread_id, text)
        return thread_id

    def post(self, author: str, thread_id: str, text: str) -> int:
        thread = self._thread(thread_id)
        post = StoredPost(self._next_post, thread_id, author, self.now(), text, text,
                          position=len(thread.post_ids) + 1)
        self._posts[post.id] = post
        thread.post_ids.append(post.id)
        self._next_post += 1
        return post.id

    def edit(self, post_id: int, author: str, new_text: str) -> None:
        post = self.get_post(post_id)
        if post.author != author:
            raise ForumError(f"{author} may not edit post {post_id} by {post.author}")
        post.history.append((self.now(), new_text))
        post.text = new_text
        post.edited = True
        self.edits.append((post_id, new_text))

    def inbox(self, user: str) -> list[ForumPm]:
        """PMs received by `user`, oldest first; marks them read."""
        mine = [pm for pm in self._pms.values() if pm.recipient == user]
        for pm in mine:
            pm.read = True
        return [pm.view() for pm in mine]

    def unread(self, user: str) -> int:
        return sum(1 for pm in self._pms.values() if pm.recipient == user and not pm.read)

    def thread_posts(self, thread_id: str, after_id: int | None = None) -> list[ForumPost]:
        """The thread's posts (those with an id above `after_id`), oldest first.  A thread's
        ids increase (the board gives them in order): the newer ones found by bisection, not
        by a look at every post of the thread (issue 37: most reads find a post or none)."""
        ids = self._thread(thread_id).post_ids
        posts = self._posts
        return [posts[i].view() for i in (ids if after_id is None else ids[bisect_right(ids, after_id):])]

    def newest(self) -> tuple[int, int, int]:
        """The newest post's and PM's ids and the number of edits so far."""
        return self._next_post - 1, self._next_pm - 1, len(self.edits)

    def thread_title(self, thread_id: str) -> str:
        return self._thread(thread_id).title

    def threads(self) -> list[tuple[str, str]]:
        return [(t.id, t.title) for t in self._threads.values()]

    def activity(self, after_post: int = 0, after_pm: int = 0,
                 upto: tuple[int, int] | None = None) -> list[StoredPost | StoredPm]:
        """Every post and PM after the given ids (up to the ids `upto` of `newest`), in the
        order they were written."""
        items: list[StoredPost | StoredPm] = [*_after(self._posts, after_post)]
        items += _after(self._pms, after_pm)
        if upto is not None:
            items = [x for x in items if x.id <= upto[isinstance(x, StoredPm)]]
        return sorted(items, key=lambda x: (x.posted_at if isinstance(x, StoredPost) else x.sent_at,
                                            isinstance(x, StoredPm), x.id))

    def get_post(self, post_id: int) -> StoredPost:
        try:
            return self._posts[post_id]
        except KeyError:
            raise ForumError(f"no post {post_id}") from None

    def find_gm_write(self, write: Write) -> str | None:
        """The ref of a GM write like `write` on the board since `look_back_from(write.since)`, or None."""
        since = look_back_from(write.since) if write.since else datetime.min.replace(tzinfo=UTC)
        me = self.gm_account
        found: list[str] = []
        if write.kind == "pm":
            found = [str(pm.id) for pm in self._pms.values() if pm.sender == me and pm.recipient == write.to
                     and pm.sent_at >= since and _same(pm.text, write.body)]
        elif write.kind == "thread":
            for t in self._threads.values():
                first = self._posts[t.post_ids[0]] if t.post_ids else None
                if t.author == me and t.title == write.title and first is not None \
                        and first.posted_at >= since and _same(first.original_text, write.body):
                    found.append(t.id)
        elif write.thread_id in self._threads:
            for pid in self._threads[write.thread_id].post_ids:
                post = self._posts[pid]
                if post.author == me and post.position > 1 and post.posted_at >= since \
                        and _same(post.original_text, write.body):
                    found.append(str(post.id))
        return found[-1] if len(found) > write.known else None  # more copies than the sender knows of

    def gm(self) -> MemoryForum:
        """A fresh GM-account adapter (not yet logged in)."""
        return MemoryForum(self)

    # ---- fault injection -------------------------------------------------------------

    def fail_next(self, n: int, operation: Operation = "any", after_write: bool = False) -> None:
        """The next `n` GM calls of `operation` raise ForumError("simulated outage").

        With `after_write` the call takes effect first and the answer is then lost.
        """
        self._faults.append(_Fault(operation, n, after_write))

    def heal(self) -> None:
        """End every simulated outage."""
        self._faults.clear()

    def _take_fault(self, operation: str, after_write: bool) -> None:
        for fault in self._faults:
            if fault.remaining > 0 and fault.after_write == after_write \
                    and fault.operation in (operation, "any"):
                fault.remaining -= 1
                self._faults = [f for f in self._faults if f.remaining > 0]
                raise ForumError("simulated outage")

    # ---- GM-side plumbing (used by MemoryForum) --------------------------------------

    def _thread(self, thread_id: str) -> StoredThread:
        try:
            return self._threads[thread_id]
        except KeyError:
            raise ForumError(f"no thread {thread_id!r} on {self.board_name}") from None

    def _gm_call(self, operation: str, key: str | None, action: Callable[[], T]) -> T:
        # (the faults looked at only when there are any: issue 37, about 100 calls a game)
        if self._faults:
            self._take_fault(operation, after_write=False)
        if key is not None and key in self._keys:
            used_by, result = self._keys[key]
            if used_by != operation:
                raise ValueError(f"idempotency key {key!r} already used for {used_by}")
            return cast(T, result)
        write = operation in _WRITES
        if write and self.flood_interval_s > 0:  # (`_check_flood` passes every write without it)
            self._check_flood()
        result = action()
        if write:
            self._last_gm_write = self.now()
        if key is not None:
            self._keys[key] = (operation, result)
        if self._faults:
            self._take_fault(operation, after_write=True)
        return result

    def _check_flood(self) -> None:
        if self.flood_interval_s <= 0 or self._last_gm_write is None:
            return
        waited = (self.now() - self._last_gm_write).total_seconds()
        if waited < self.flood_interval_s:
            raise ForumError(f"flood control: wait {math.ceil(self.flood_interval_s - waited)} s")


def _after(items: dict[int, S], after_id: int) -> list[S]:
    """The values of `items` whose ids are above `after_id`, in id order: the board gives
    ids in increasing order and keeps its items in the order it gave them, so only the
    newest are looked at."""
    newer: list[S] = []
    for i in reversed(items):
        if i <= after_id:
            break
        newer.append(items[i])
    newer.reverse()
    return newer


def _same(a: str, b: str) -> bool:
    return "".join(a.split()) == "".join(b.split())


class MemoryForum:
    """The GM account's adapter onto a `MemoryBoard` (implements `forum.base.Forum`)."""

    markup: Literal["bbcode", "markdown", "plain"] = "bbcode"
    max_post_chars: int | None = None
    remembers_keys = True  # the board keeps every key: a repeated one is never written twice

    def __init__(self, board: MemoryBoard) -> None:
        self.board = board
        self.account = board.gm_account
        self.logged_in = False
        if not board.remembers_keys:
            self.remembers_keys = False
        self._done: dict[str, object] = {}  # keys this adapter wrote, when the board keeps none

    def _write(self, operation: str, key: str, action: Callable[[], T]) -> T:
        self._require_login()
        if self.remembers_keys:
            return self.board._gm_call(operation, key, action)
        if key in self._done:  # this process wrote it; a restarted one has forgotten
            return cast(T, self._done[key])
        result = self.board._gm_call(operation, None, action)
        self._done[key] = result
        return result

    def login(self) -> None:
        self.board.logins.append(self.board.now())
        self.logged_in = True

    def _require_login(self) -> None:
        if not self.logged_in:
            raise ForumError("not logged in")

    def now(self) -> datetime:
        return self.board.now()

    def fetch_pms(self, after_id: int | None) -> list[ForumPm]:
        self._require_login()

        def fetch() -> list[ForumPm]:
            board = self.board
            now = board.now()
            shown_until = now - board.pm_lag
            if board.pm_same_second:  # none of the read's own second (a time is whole microseconds)
                shown_until = min(shown_until, now.replace(microsecond=0) - _MICROSECOND)
            mine = [pm for pm in (board._pms.values() if after_id is None else _after(board._pms, after_id))
                    if pm.recipient == self.account and pm.sent_at <= shown_until]
            for pm in mine:
                pm.read = True
            return [pm.view() for pm in mine]

        return self.board._gm_call("fetch_pms", None, fetch)

    def read_thread(self, thread_id: str, after_id: int | None) -> list[ForumPost]:
        self._require_login()

        def read() -> list[ForumPost]:
            return self.board.thread_posts(thread_id, after_id)

        return self.board._gm_call("read_thread", None, read)

    def board_posts(self, after_id: int | None) -> list[ForumPost]:
        """Every post of the board (it has one) with id > after_id, in id order."""
        self._require_login()

        def read() -> list[ForumPost]:
            return [p.view() for i, p in sorted(self.board._posts.items()) if after_id is None or i > after_id]

        return self.board._gm_call("board_posts", None, read)

    def create_thread(self, title: str, body: str, key: str) -> str:
        return self._write("create_thread", key, lambda: self.board.new_thread(self.account, title, body))

    def reply(self, thread_id: str, body: str, key: str) -> int:
        return self._write("reply", key, lambda: self.board.post(self.account, thread_id, body))

    def send_pm(self, to: str, subject: str, body: str, key: str) -> None:
        def send() -> int:
            if to == self.account:
                raise Undeliverable(f"PM to {to}: the GM account cannot send a PM to itself")
            if not self.board.has_user(to):
                raise Undeliverable(f"PM to {to}: there is no such user on {self.board.board_name}")
            return self.board.pm(self.account, to, body, subject)

        self._write("send_pm", key, send)

    def user_exists(self, name: str) -> bool:
        self._require_login()
        return self.board._gm_call("read_thread", None, lambda: self.board.has_user(name))

    def check_board(self) -> str:
        """The in-process board is always there."""
        self._require_login()
        return self.board.board_name

    def find_written(self, write: Write) -> str | None:
        """Looks at the board's posts and PMs themselves (not at the keys): a GM post or PM
        since `write.since` with the same text, whitespace aside."""
        self._require_login()
        return self.board._gm_call("read_thread", None, lambda: self.board.find_gm_write(write))

    def note_last_write(self, at: datetime) -> None:
        """Nothing to pace: the board's own flood check uses its own record of the last write."""
        return None
