"""The one interface every forum adapter implements (memory, spirit, discuz).

The bot keeps its own high-water marks: it asks for PMs and posts *after* an id it has
already seen, and the store deduplicates by the forum's id anyway.  Every write carries an
idempotency `key`: an adapter that is asked twice with the same key in one process does not
post twice.  Across a crash only the memory board remembers keys (`remembers_keys`); on a
real forum the driver asks `find_written` whether a write it did not record arrived.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, Protocol

from tianshen.core.text import clean, odd_char

_set = object.__setattr__


def _cleaned(value: object) -> object:
    """Issue 22 items 3-5: every text an adapter hands out is cleaned here, once, as the
    intake validators clean it (a NUL, a lone surrogate, a control character, \\r\\n)."""
    return clean(value) if isinstance(value, str) and odd_char(value) else value  # most texts: no regex


def _clean_fields(obj: object, names: tuple[str, ...]) -> None:
    """`_cleaned` of each field named: an adapter's subclass, made by its dataclass's own `__init__`."""
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, str):
            _set(obj, name, clean(value))


# `ForumPm` and `ForumPost` set their instance dict whole, at once: a frozen dataclass's own
# `__init__` makes an `object.__setattr__` call a field (~20,000 instructions a view).  A
# subclass (an adapter's, with more fields) gets its dataclass's `__init__` and `__post_init__`.


@dataclass(frozen=True, init=False)
class ForumPm:
    id: int  # the forum's message id; increases with time on every supported forum
    sender: str
    sent_at: datetime  # forum server time, timezone-aware (UTC)
    subject: str
    text: str

    def __init__(self, id: int, sender: str, sent_at: datetime, subject: str, text: str) -> None:
        _set(self, "__dict__", {"id": id, "sender": _cleaned(sender), "sent_at": sent_at,
                                "subject": _cleaned(subject), "text": _cleaned(text)})

    def __post_init__(self) -> None:
        _clean_fields(self, ("sender", "subject", "text"))


@dataclass(frozen=True, init=False)
class ForumPost:
    id: int
    thread_id: str
    author: str
    posted_at: datetime  # forum server time, timezone-aware (UTC)
    text: str
    edited: bool = False
    position: int = 0  # 1 = the opening post
    original_text: str | None = None  # the first version of an edited post, when the forum shows it

    def __init__(self, id: int, thread_id: str, author: str, posted_at: datetime, text: str,
                 edited: bool = False, position: int = 0, original_text: str | None = None) -> None:
        _set(self, "__dict__", {"id": id, "thread_id": thread_id, "author": _cleaned(author),
                                "posted_at": posted_at, "text": _cleaned(text), "edited": edited,
                                "position": position, "original_text": _cleaned(original_text)})

    def __post_init__(self) -> None:
        _clean_fields(self, ("author", "text", "original_text"))


@dataclass(frozen=True)
class Write:
    """One part of an outbox message, as the driver sends it: what `find_written` looks for."""

    kind: Literal["thread", "reply", "pm"]
    key: str  # idempotency key of this part
    body: str  # the rendered text as it was (or will be) sent
    title: str = ""  # kind "thread"
    thread_id: str = ""  # kind "reply"
    to: str = ""  # kind "pm": recipient's forum name
    subject: str = ""  # kind "pm"
    since: datetime | None = None  # forum time just before the first attempt
    known: int = 0  # copies of the same text the sender already knows are on the forum since look_back_from(since)


LOOK_BACK = timedelta(minutes=1)  # how far before a write's first try `find_written` looks


@dataclass(frozen=True)
class PmGap:
    """A PM conversation whose message count the board states stayed above what its pages
    showed (issue 31 item 1): a message from `player` may be unread.  An adapter that can
    tell offers `pm_gaps()`, which hands each such conversation out once."""
    player: str
    count: int  # messages the board counts
    read: int  # messages its pages showed
    since: datetime  # forum time the gap was first seen


def look_back_from(since: datetime) -> datetime:
    """Where `find_written` starts looking for a write first tried at `since` (forum time),
    and where the sender starts counting the copies of the same text it knows it wrote: one
    window for both, so a copy the look-up no longer shows is not counted either (issue 22).
    A whole minute: on a board that shows times to the minute, "shown at or after the start"
    then means "made at or after the start"."""
    return (since - LOOK_BACK).replace(second=0, microsecond=0)


class ForumError(Exception):
    """The forum refused or failed; the message says what a GM should do about it."""


class Undeliverable(ForumError):
    """The board refuses this message for good, whatever the timing: the recipient is no
    account (unknown, frozen, deleted), does not take PMs from the GM (blocked, friends only),
    or is the GM himself.  The sender marks that one message failed, tells the GM, and goes
    on with the others; `tianshen admin resend` tries it again once the GM fixed the account.
    Every other `ForumError` is transient: the message is tried again at the next poll."""


class LoginRefused(ForumError):
    """The forum refused the GM's login (wrong password, lockout, captcha).

    The adapter never tries that password again in this process: every later call raises
    this at once, without a request.  `tianshen run` exits with code 3 on it."""


class Forum(Protocol):
    markup: Literal["bbcode", "markdown", "plain"]
    account: str  # the GM account's forum name (神的使者)
    max_post_chars: int | None  # the forum's cap on one post or PM (None: no cap)
    remembers_keys: bool  # True: a repeated key is never written twice, in any process (memory board)

    def login(self) -> None: ...

    def now(self) -> datetime:
        """The forum's own clock (server time, UTC)."""
        ...

    def fetch_pms(self, after_id: int | None) -> list[ForumPm]:
        """PMs received by the GM account with id > after_id, oldest first."""
        ...

    def read_thread(self, thread_id: str, after_id: int | None) -> list[ForumPost]:
        """Posts of a thread with id > after_id, in thread order."""
        ...

    def board_posts(self, after_id: int | None) -> list[ForumPost]:
        """Every post on the game board — in every thread of the game's board/category, the
        GM's own included — with id > after_id, oldest first (by id), each with its thread_id.
        Used to count players' analysis posts and to notice dead players posting (诈尸)."""
        ...

    def create_thread(self, title: str, body: str, key: str) -> str:
        """Open a thread on the game board; returns its id."""
        ...

    def reply(self, thread_id: str, body: str, key: str) -> int:
        """Reply in a thread; returns the post id."""
        ...

    def send_pm(self, to: str, subject: str, body: str, key: str) -> None:
        """PM `to` (a forum account); `Undeliverable` when the board refuses it for good."""
        ...

    def user_exists(self, name: str) -> bool:
        """Is `name` an account of the board that can be sent a PM?  (`tianshen forum check`:
        every player's account, 马甲, substitute and gm_contact.)  ForumError when the board
        cannot say."""
        ...

    def check_board(self) -> str:
        """The game board (Discuz `fid`, Spirit `category`) exists and the GM can see it:
        its name.  ForumError naming the config key and the boards there are otherwise."""
        ...

    def find_written(self, write: Write) -> str | None:
        """Did this write arrive (a crash or a lost answer between the write and its recording)?

        Looks on the forum itself (the thread, the PM conversation, the board list) for a GM
        post made since `write.since` with the same text (whitespace aside).  Returns the ref —
        the thread id ("thread"), the post id as str ("reply"), a non-empty string ("pm") —
        or None when it is not there."""
        ...

    def note_last_write(self, at: datetime) -> None:
        """When the GM's last write went out (wall-clock UTC), told after a restart, so the
        flood pacing counts from it."""
        ...


class PlayerSide(Protocol):
    """What players do on a forum, for simulated players and adapter tests.

    The memory board implements it in-process; a real forum's implementation logs in as
    each player (one session per account) and does what a person does in a browser.
    """

    def pm(self, sender: str, to: str, text: str, subject: str = "") -> int:
        """`sender` sends a PM to `to`; returns its id as the GM's `fetch_pms` will see it."""
        ...

    def post(self, author: str, thread_id: str, text: str) -> int:
        """`author` replies in a thread; returns the post id."""
        ...

    def edit(self, post_id: int, author: str, new_text: str) -> None: ...

    def inbox(self, user: str) -> list[ForumPm]:
        """PMs `user` has received, oldest first."""
        ...

    def thread_posts(self, thread_id: str) -> list[ForumPost]: ...
