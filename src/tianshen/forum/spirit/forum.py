"""The GM's adapter (`SpiritForum`, implements `forum.base.Forum`)."""

from __future__ import annotations

import email.utils
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

import httpx
from bs4 import BeautifulSoup

from tianshen.forum.base import (
    ForumError,
    ForumPm,
    ForumPost,
    Write,
    look_back_from,
)
from tianshen.forum.render import escape_markdown
from tianshen.forum.spirit.client import _Account, _squash, _TopicState
from tianshen.forum.spirit.parse import (
    _TOPIC_PATH,
    Row,
    content_hash,
    field_errors,
    parse_rows,
    parse_spirit_date,
    parse_topic_list,
    pm_topic_title,
)
from tianshen.forum.text import storable

log = logging.getLogger("tianshen.forum.spirit")  # one logger for the adapter, as before the split


# ---- the GM's adapter ------------------------------------------------------------------


@dataclass(frozen=True)
class SpiritPost(ForumPost):
    full_text: str = ""  # with its quotes (`text` is without them)


class SpiritForum:
    """The GM account on a django-spirit 0.14 forum (implements `forum.base.Forum`)."""

    markup: Literal["bbcode", "markdown", "plain"] = "markdown"
    max_post_chars: int | None = 3000
    remembers_keys = False  # comment_hash drops a repeat only of the GM's *last* post, for 30 minutes

    def __init__(self, base_url: str, username: str, password: str, *, category: str | int | None = None,
                 client: httpx.Client | None = None, min_write_interval_s: float = 10.0,
                 sleep: Callable[[float], None] = time.sleep, max_throttle_waits: int = 3,
                 timezone: str = "UTC", monotonic: Callable[[], float] = time.monotonic,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.account = username  # replaced by the nickname the forum shows, once logged in
        self.category = category
        self._tz = ZoneInfo(timezone)
        self._http = _Account(base_url, username, password, client=client,
                              min_write_interval_s=min_write_interval_s, sleep=sleep,
                              max_throttle_waits=max_throttle_waits, tz=self._tz, monotonic=monotonic,
                              clock=clock)
        self._category_id: int | None = None
        self._done: dict[str, object] = {}  # idempotency key -> result, for this process
        self._pm_topics: dict[str, int] = {}  # player (casefolded) -> private topic id
        self._pm_cache: dict[int, _PmTopic] = {}
        self._board: _BoardCache | None = None
        self._originals: dict[tuple[int, int], str | None] = {}  # (pk, edit count) -> first version

    def __repr__(self) -> str:
        return f"<SpiritForum {self.account!r} at {self.base_url}>"

    @property
    def logins(self) -> int:
        return self._http.logins

    def login(self) -> None:
        self._http.login()
        r = self._http.get("/user/")
        nick = BeautifulSoup(r.text, "lxml").select_one('a[data-related=".js-user-content"]')  # the header
        if nick is not None and nick.get_text(strip=True):
            self.account = nick.get_text(strip=True)

    def now(self) -> datetime:
        """The forum's clock: the last answer's `Date` plus the time passed since, on the
        monotonic clock (a request only when no answer came yet)."""
        if self._http.dated is not None:
            server, at = self._http.dated
            return server + timedelta(seconds=self._http.monotonic() - at)
        r = self._http._request("GET", "/user/login/", follow_redirects=False)
        date = r.headers.get("date")
        if not date:
            raise ForumError("the forum sent no Date header; cannot read its clock")
        return email.utils.parsedate_to_datetime(date).astimezone(UTC)

    # -- PMs ----------------------------------------------------------------------------

    def fetch_pms(self, after_id: int | None) -> list[ForumPm]:
        return _received_pms(self._http, self._pm_cache, self.account, after_id)

    def pm_positions(self) -> str:
        """How far each private topic has been read (its listed comment count, the newest
        comment read, the caller's mark then), for `resume_pms` after a restart.  The caller
        keeps it only once it has dealt with every PM handed out so far."""
        topics = {str(t): [c.count, c.read_upto, c.floor] for t, c in sorted(self._pm_cache.items())
                  if c.count >= 0}
        return json.dumps(topics, separators=(",", ":"))

    def resume_pms(self, positions: str) -> None:
        """Take back `pm_positions` of an earlier process: a topic whose comment count is
        still the same is not read again, another only after its newest comment read then;
        PMs read then are not handed out again.  A later call with a lower mark than a
        topic's reads it afresh."""
        try:
            topics = json.loads(positions)
            restored = {int(t): _PmTopic(floor=int(f), count=int(n), read_upto=int(u))
                        for t, (n, u, f) in topics.items()}
        except (ValueError, TypeError, AttributeError):
            log.warning("the stored private-topic positions are unreadable; every private topic is read again")
            return
        for topic_id, entry in restored.items():
            self._pm_cache.setdefault(topic_id, entry)

    def send_pm(self, to: str, subject: str, body: str, key: str) -> None:
        if key in self._done:
            return
        title = pm_topic_title(self.account, to)
        for text, part_key in self._pm_parts(to, subject, body, key):
            self._pm(to, title, text, part_key)
        self._done[key] = None

    def _pm_parts(self, to: str, subject: str, body: str, key: str) -> list[tuple[str, str]]:
        """(text, key) of the comments one PM becomes: the subject in bold above the body, or
        first on its own when there is no room under the cap."""
        if not subject or subject == pm_topic_title(self.account, to):
            return [(body, key)]
        head = f"**{escape_markdown(subject)}**"
        if self.max_post_chars is None or len(head) + 2 + len(body) <= self.max_post_chars:
            return [(f"{head}\n\n{body}", key)]
        return [(head, f"{key}#subject"), (body, key)]

    def _pm(self, to: str, title: str, text: str, key: str) -> None:
        if key in self._done:
            return
        h = content_hash(key)
        topic_id = self._find_pm_topic(to)
        if topic_id is not None:
            try:
                self._http.publish(f"/comment/{topic_id}/publish/", {"comment": text, "comment_hash": h},
                                   what=f"PM to {to}")
                self._done[key] = None
                return
            except ForumError as exc:
                if "(404)" not in str(exc):
                    raise
                # The topic was deleted or closed since: forget it, find or open another one.
                log.warning("the private topic %s with %s is gone; looking for another", topic_id, to)
                self._pm_topics.pop(to.casefold(), None)
                self._http.topics.pop(topic_id, None)
                topic_id = self._find_pm_topic(to, exclude=topic_id)
                if topic_id is not None:
                    self._http.publish(f"/comment/{topic_id}/publish/", {"comment": text, "comment_hash": h},
                                       what=f"PM to {to}")
                    self._done[key] = None
                    return
        location = self._http.publish("/topic/private/publish/", {
            "title": title, "users": to, "comment": text, "topic_hash": h, "comment_hash": h,
        }, what=f"PM to {to}")
        m = _TOPIC_PATH.match(httpx.URL(location).path)
        if m and "/topic/private/" in location:
            topic_id = int(m.group(1))
        else:  # dropped as a repeat of the same intent: the topic exists already
            topic_id = self._find_pm_topic(to)
            if topic_id is None:
                raise ForumError(f"PM to {to}: the forum answered {location!r} and no private topic "
                                 "with the player is to be found")
        self._pm_topics[to.casefold()] = topic_id
        self._done[key] = None

    def _find_pm_topic(self, to: str, exclude: int | None = None) -> int | None:
        """The private topic the GM opened with `to` (only the two of them in it), if any."""
        known = self._pm_topics.get(to.casefold())
        if known is not None:
            return known
        title = pm_topic_title(self.account, to)
        for t in self._http.private_topics():
            if t.title != title or t.id == exclude:
                continue
            names, opener = self._http.participants(t.id)
            if {n.casefold() for n in names} == {self.account.casefold(), to.casefold()} and opener == self.account:
                self._pm_topics[to.casefold()] = t.id
                return t.id
        return None

    # -- public topics ---------------------------------------------------------------------

    def _game_category(self) -> int:
        if self._category_id is not None:
            return self._category_id
        if isinstance(self.category, int) or (isinstance(self.category, str) and self.category.isdigit()):
            self._category_id = int(self.category)
            return self._category_id
        self._category_id = self._find_category()[0]
        return self._category_id

    def _find_category(self) -> tuple[int, str]:
        """(id, title) of the game category among those the GM may open topics in, found by
        its title or id (or the only one, when the config names none)."""
        soup = BeautifulSoup(self._http.get("/topic/publish/").text, "lxml")
        options = [(o.get_text(strip=True), str(o.get("value") or "")) for o in
                   soup.select("select[name=category] option") if o.get("value")]
        wanted = None if self.category is None else str(self.category).strip().casefold()
        if wanted is None:
            choices = [(t, v) for t, v in options if t.casefold() not in ("uncategorized",)]
            if len(choices) == 1:
                return int(choices[0][1]), choices[0][0]
        else:
            for t, v in options:
                if wanted in (t.strip().casefold(), v):
                    return int(v), t
        names = ", ".join(f"{t} ({v})" for t, v in options) or "none"
        raise ForumError(f"the game category {self.category!r} is not on the forum (categories {self.account} "
                         f"may post in: {names}); set `category` in the config to one of them")

    def check_board(self) -> str:
        """The game category exists and the GM may open topics in it (by title or by id)."""
        cat, title = self._find_category()
        return f"{title} (category {cat})"

    def user_exists(self, name: str) -> bool:
        """Asks the private-topic form, which knows every username: sent with an empty title it
        is never saved (nor counted by the rate limit), and it marks an unknown user."""
        r = self._http.post_form("/topic/private/publish/", {"title": "", "users": name, "comment": ""})
        if r.status_code != 200:
            raise ForumError(f"looking up the user {name!r}: the private-topic form answered HTTP {r.status_code}")
        soup = BeautifulSoup(r.text, "lxml")
        if soup.select_one("[name=users]") is None:
            raise ForumError(f"looking up the user {name!r}: no private-topic form in the answer")
        return not field_errors(soup, "users")

    def create_thread(self, title: str, body: str, key: str) -> str:
        if key in self._done:
            return str(self._done[key])
        cat = self._game_category()
        h = content_hash(key)
        location = self._http.publish(f"/topic/publish/{cat}/", {
            "title": title[:255], "category": str(cat), "comment": body, "topic_hash": h, "comment_hash": h,
        }, what=f"creating the thread {title!r}")
        m = _TOPIC_PATH.match(httpx.URL(location).path)
        if m:
            topic_id = m.group(1)
            self._http.topics.setdefault(int(topic_id), _TopicState(path=httpx.URL(location).path))
        else:  # dropped as a repeat of this intent (302 to the category): find the thread we opened
            topic_id = self._find_own_topic(location, title)
        self._done[key] = topic_id
        return topic_id

    def _find_own_topic(self, category_location: str, title: str) -> str:
        soup = BeautifulSoup(self._http.get(httpx.URL(category_location).path or "/").text, "lxml")
        for t in parse_topic_list(soup):  # newest activity first
            if t.title == title[:255]:
                rows = parse_rows(self._http.topic_page(t.id, 1, private=False), self._tz)
                if rows and rows[0].number == 1 and rows[0].author == self.account:
                    return str(t.id)
        raise ForumError(f"creating the thread {title!r}: the forum answered as for a repeat, "
                         "but the thread is not in the category")

    def reply(self, thread_id: str, body: str, key: str) -> int:
        if key in self._done:
            return int(self._done[key])  # type: ignore[call-overload]
        location = self._http.publish(f"/comment/{int(thread_id)}/publish/",
                                      {"comment": body, "comment_hash": content_hash(key)},
                                      what=f"reply in thread {thread_id}")
        pk = self._http.comment_location(location)
        if pk is None:
            raise ForumError(f"reply in thread {thread_id}: unexpected answer {location!r}")
        pk = self._own_comment(int(thread_id), pk)
        self._done[key] = pk
        return pk

    def _own_comment(self, topic_id: int, pk: int) -> int:
        """The GM's comment `pk` was answered with; after a silently dropped repeat the forum
        points at the topic's last comment instead, and the GM's last one is the original."""
        rows = self._http.read_topic(topic_id, pk - 1)
        row = next((r for r in rows if r.pk == pk), None)
        if row is None or row.author == self.account:
            return pk
        st = self._http.topics.get(topic_id)
        pages = st.pages if st else 1
        for page in range(pages, max(0, pages - 3), -1):
            mine = [r for r in parse_rows(self._http.topic_page(topic_id, page, False), self._tz)
                    if r.author == self.account and r.pk <= pk]
            if mine:
                return mine[-1].pk
        return pk

    def read_thread(self, thread_id: str, after_id: int | None) -> list[ForumPost]:
        return self._posts(str(thread_id), self._http.read_topic(int(thread_id), after_id))

    def _posts(self, thread_id: str, rows: list[Row]) -> list[ForumPost]:
        """The players' comments as a vote is read from them: without their quotes (a vote
        inside a quote never counts), the whole comment in `full_text`."""
        out: list[ForumPost] = []
        for r in rows:
            original = self._original(r) if r.edited else None
            out.append(SpiritPost(r.pk, thread_id, r.author, r.at, r.own_text, r.edited, r.number, original,
                                  full_text=r.text))
        return out

    def _original(self, row: Row) -> str | None:
        """The first version of an edited comment; its history is read again only after another edit."""
        key = (row.pk, row.edits)
        if key not in self._originals:
            self._originals[key] = self._http.history_first(row.pk, own=True)
        return self._originals[key]

    # -- exactly once --------------------------------------------------------------------

    def note_last_write(self, at: datetime) -> None:
        self._http.pacer.note_last_write(at)

    def find_written(self, write: Write) -> str | None:
        """Is this write on the forum (see `forum.base.Forum.find_written`)?  The GM's comments
        since `write.since` in the topic (every page back to then), the category's topics of
        that title, or the private topic with `write.to`, compared by their Markdown source
        (the comment's edit form) with the text sent, whitespace aside.  (Spirit shows no
        comment_hash, so the text is what is compared.)"""
        since = look_back_from(write.since or self.now() - timedelta(minutes=30))
        if write.kind == "reply":
            pk = self._own_comment_since(int(write.thread_id), write.body, since, private=False, known=write.known)
            return None if pk is None else str(pk)
        if write.kind == "pm":
            topic_id = self._find_pm_topic(write.to)
            if topic_id is None:
                return None
            text = self._pm_parts(write.to, write.subject, write.body, write.key)[-1][0]
            pk = self._own_comment_since(topic_id, text, since, private=True, known=write.known)
            return None if pk is None else str(pk)
        if write.kind == "thread":
            return self._own_topic_since(write.title, write.body, since)
        raise ValueError(f"unknown write kind {write.kind!r}")

    def _own_comment_since(self, topic_id: int, text: str, since: datetime, private: bool,
                           known: int = 0) -> int | None:
        """The newest GM comment with this source since `since`, when there are more such
        comments than the `known` other writes of the same text."""
        found = sorted(row.pk for row in self._http.rows_since(topic_id, since, private)
                       if row.author == self.account and row.at >= since and self._same_source(row.pk, text))
        return found[-1] if len(found) > known else None

    def _own_topic_since(self, title: str, body: str, since: datetime) -> str | None:
        for t in self._http.topic_list(f"/category/{self._game_category()}/"):
            if not t.pinned and t.last_active and parse_spirit_date(t.last_active, self._tz) < since:
                break  # listed by last activity: every later topic is older still
            if t.title != title[:255]:
                continue
            rows = parse_rows(self._http.topic_page(t.id, 1, private=False), self._tz)
            first = rows[0] if rows and rows[0].number == 1 else None
            if first and first.author == self.account and first.at >= since and self._same_source(first.pk, body):
                return str(t.id)
        return None

    def _same_source(self, pk: int, text: str) -> bool:
        """Is comment `pk`'s Markdown source `text` (as stored), whitespace aside?"""
        soup = BeautifulSoup(self._http.get(f"/comment/{pk}/update/").text, "lxml")
        area = soup.select_one("textarea[name=comment]")
        return area is not None and _squash(area.get_text()) == _squash(storable(text))

    def board_posts(self, after_id: int | None) -> list[ForumPost]:
        """Every comment in the game category's topics with id > after_id, in id order.

        The category lists topics by last activity (pinned ones first), page by page; a topic
        is read again only when its comment count or last activity changed, and then only
        after the last comment seen in it.  Paging stops at the first unpinned topic that is
        unchanged, or that holds nothing above `after_id`: every topic listed after it is
        older still.  Comments already read are kept (those above the caller's mark only).
        """
        floor = after_id or 0
        cache = self._board
        if cache is None or cache.floor > floor:  # a mark older than the cache: start afresh
            cache = self._board = _BoardCache(floor)
        for t in self._http.topic_list(f"/category/{self._game_category()}/"):
            entry = cache.topics.get(t.id)
            sig = (t.comments, t.last_active)
            if entry is not None and entry.sig == sig:
                if t.pinned:
                    continue
                break
            entry = entry or _BoardTopic()
            start = max(entry.read_upto, cache.floor)
            posts = self._posts(str(t.id), self._http.read_topic(t.id, start or None))
            fresh = [p for p in posts if p.id > entry.read_upto]
            entry.posts += [p for p in fresh if p.id > cache.floor]
            entry.read_upto = max([entry.read_upto] + [p.id for p in fresh])
            entry.sig = sig
            cache.topics[t.id] = entry
            if not t.pinned and entry.read_upto <= cache.floor:
                break  # its newest comment is older than the mark, and so is every later topic's
        cache.floor = floor
        out: list[ForumPost] = []
        for entry in cache.topics.values():
            entry.posts = [p for p in entry.posts if p.id > floor]
            out += entry.posts
        return sorted(out, key=lambda p: p.id)

    def close(self) -> None:
        self._http.client.close()


@dataclass
class _BoardTopic:
    sig: tuple[int, str] | None = None  # (comment count, last activity) as listed when last read
    read_upto: int = 0  # the newest comment read in it
    posts: list[ForumPost] = field(default_factory=list)


@dataclass
class _BoardCache:
    floor: int  # complete above this: a topic not in `topics` has no comment above it
    topics: dict[int, _BoardTopic] = field(default_factory=dict)


@dataclass
class _PmTopic:
    floor: int  # the cached PMs are complete for ids above this
    count: int = -1
    read_upto: int = 0
    pms: list[ForumPm] = field(default_factory=list)


def _received_pms(acc: _Account, cache: dict[int, _PmTopic], me: str, after_id: int | None) -> list[ForumPm]:
    """Comments by others in `me`'s private topics with id > after_id, oldest first.

    Every page of the private topic list is read; a topic is read again only when its
    comment count changed, and then only from the last comment seen.
    """
    floor = after_id or 0
    out: list[ForumPm] = []
    for t in acc.private_topics():
        c = cache.get(t.id)
        if c is None or c.floor > floor:
            c = cache[t.id] = _PmTopic(floor=floor)
        if c.count != t.comments:
            for row in acc.read_topic(t.id, max(c.read_upto, c.floor) or None, private=True):
                if row.pk <= c.read_upto:
                    continue
                c.read_upto = row.pk
                if row.author != me:
                    c.pms.append(ForumPm(row.pk, row.author, row.at, t.title, row.text))
            c.count = t.comments
        out.extend(pm for pm in c.pms if pm.id > floor)
    return sorted(out, key=lambda pm: pm.id)


# ---- the players' side (simulated players, tests) -------------------------------------
