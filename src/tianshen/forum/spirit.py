"""The django-spirit adapter (Spirit 0.14), over plain HTTP with httpx and BeautifulSoup.

Spirit has no private messages as such: a *private topic* is a topic that only its
participants see, so the GM's PMs are private topics.  The GM keeps one private topic per
player ("神的使者 ↔ 白狐") and replies in it; a player may also open a private topic with the
GM.  Every comment has a global, growing id (`data-pk`), which is the PM id and the post id.

What the forum does that an adapter must know (see the evaluation notes of issue 3):

* Forms need the CSRF token; POSTs are not followed, the `Location` header is the answer.
* A user's post whose hash equals that user's *last* post is silently dropped (302 as if
  it had been posted).  Every write sends `comment_hash`/`topic_hash` = md5(idempotency key),
  so a retry of the same intent is dropped by the forum instead of doubled.
* Rate limits (1 post / 10 s per user, in windows aligned to the epoch): the answer is 200
  with "Too many submissions, wait 10s."; the adapter waits for the next window and retries
  with the same hash.  It also spaces its own writes by `min_write_interval_s`.
* Bodies are Markdown (mistune, hard line wraps); the plain text is recovered from the
  HTML (`<br>` and paragraphs become line breaks, quotes become `> ` lines).
* Timestamps only in `title=` attributes: ISO 8601 with a format module, otherwise
  "Dec. 2, 2026, 1:45 p.m." (minute precision) in the viewer's profile timezone.
* Moderation rows ("closed this") and removed comments sit in the comment list with their
  own class and are skipped.

Passwords never appear in exceptions or logs.
"""

from __future__ import annotations

import email.utils
import hashlib
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Literal
from zoneinfo import ZoneInfo

import httpx
from bs4 import BeautifulSoup, NavigableString, Tag

from tianshen.forum.base import (
    ForumError,
    ForumPm,
    ForumPost,
    LoginRefused,
    Undeliverable,
    Write,
    look_back_from,
)
from tianshen.forum.pacing import Pacer
from tianshen.forum.render import escape_markdown
from tianshen.forum.session import LoginGuard
from tianshen.forum.text import storable

log = logging.getLogger(__name__)

_THROTTLE = re.compile(r"Too many submissions, wait (\d+)\s*([sm])")
_PAGES = re.compile(r"Page\s+(\d+)\s+of\s+(\d+)")
_COMMENT_LOCATION = re.compile(r"/comment/(\d+)/find/")
_TOPIC_PATH = re.compile(r"^/topic/(?:private/)?(\d+)/([^/?#]*)/?")
_LOGGED_IN_MARK = 'href="/user/logout/'
_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_HUMAN_DATE = re.compile(r"([A-Za-z]+)\.?\s+(\d{1,2}),\s+(\d{4}),?\s+(.+)")
_HUMAN_TIME = re.compile(r"(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s*m\.?", re.I)
_BLOCK_TAGS = {"p", "div", "blockquote", "ul", "ol", "li", "pre", "hr", "table", "thead", "tbody", "tr",
               "h1", "h2", "h3", "h4", "h5", "h6", "dl", "form"}


def content_hash(key: str) -> str:
    """The `comment_hash`/`topic_hash` Spirit stores for an intent: md5 of the key (32 hex)."""
    return hashlib.md5(key.encode("utf-8")).hexdigest()


def pm_topic_title(gm_account: str, player: str) -> str:
    """The title of the private topic the GM keeps with one player."""
    return f"{gm_account} ↔ {player}"


# ---- parsing ---------------------------------------------------------------------------


def parse_spirit_date(text: str, tz: tzinfo = UTC) -> datetime:
    """A Spirit `title=` timestamp as an aware UTC datetime.

    Both ISO 8601 (with the format module: µs and offset) and Django's default English
    format ("Dec. 2, 2026, 1:45 p.m.", "Sept. 9, 2026, noon", "May 1, 2026, 3 a.m."), the
    latter read in `tz`, the viewer's profile timezone.
    """
    s = text.strip()
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        m = _HUMAN_DATE.fullmatch(s)
        month = _MONTHS.get(m.group(1)[:3].lower()) if m else None
        if m is None or month is None:
            raise ForumError(f"cannot read the forum's date {text!r}") from None
        clock = m.group(4).strip().lower()
        if clock == "midnight":
            hour, minute = 0, 0
        elif clock == "noon":
            hour, minute = 12, 0
        else:
            t = _HUMAN_TIME.fullmatch(clock)
            if t is None:
                raise ForumError(f"cannot read the forum's time {text!r}") from None
            hour, minute = int(t.group(1)) % 12, int(t.group(2) or 0)
            if t.group(3).lower() == "p":
                hour += 12
        dt = datetime(int(m.group(3)), month, int(m.group(2)), hour, minute)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(UTC)


def html_to_text(el: Tag) -> str:
    """The plain text of a rendered comment, as close as possible to what was typed.

    Line breaks (`<br>`) and paragraphs come back as newlines, quotes as `> ` lines,
    tables as `| a | b |` rows, list items as `- ` / `1. ` lines; inline markup (bold,
    code, mention links) keeps only its text.
    """
    return "\n\n".join(b for b in _blocks(el) if b != "").strip("\n")


def _blocks(el: Tag) -> list[str]:
    blocks: list[str] = []
    inline: list[str] = []

    def flush() -> None:
        if inline:
            text = "".join(inline)
            inline.clear()
            lines = [ln.strip() for ln in text.split("\n")]
            while lines and not lines[0]:
                lines.pop(0)
            while lines and not lines[-1]:
                lines.pop()
            if lines:
                blocks.append("\n".join(lines))

    for child in el.children:
        if isinstance(child, NavigableString):
            if type(child) is NavigableString:  # not a comment / CDATA
                inline.append(str(child).replace("\r", "").replace("\n", " "))
        elif isinstance(child, Tag):
            if child.name in _BLOCK_TAGS:
                flush()
                blocks.extend(_block(child))
            else:
                inline.append(_inline(child))
    flush()
    return blocks


def _block(tag: Tag) -> list[str]:
    name = tag.name
    if name == "pre":
        return [tag.get_text().rstrip("\n")]
    if name == "hr":
        return ["---"]
    if name == "table":  # back to the `| a | b |` rows it was written as (no separator row)
        lines = []
        for tr in tag.find_all("tr"):
            cells = [_inline(c).strip() for c in tr.find_all(["th", "td"], recursive=False)]
            lines.append("| " + " | ".join(cells) + " |")
        return ["\n".join(lines)]
    if name == "blockquote":
        inner = "\n\n".join(_blocks(tag))
        return ["\n".join(f"> {ln}" if ln else ">" for ln in inner.split("\n"))]
    if name in ("ul", "ol"):
        items: list[str] = []
        number = int(tag.get("start") or 1) if name == "ol" else 0
        for li in tag.find_all("li", recursive=False):
            marker = f"{number}. " if name == "ol" else "- "
            number += 1
            text = "\n\n".join(_blocks(li))
            items.append(marker + text.replace("\n", "\n" + " " * len(marker)))
        return ["\n".join(items)]
    return _blocks(tag)


def _inline(tag: Tag) -> str:
    if tag.name == "br":
        return "\n"
    if tag.name == "img":
        return str(tag.get("alt") or "")
    if tag.name in ("script", "style"):
        return ""
    if tag.name == "i" and not tag.get_text() and tag.get("title"):
        return str(tag["title"])  # an emoji: <i class="tw tw-smile" title=":smile:">
    out: list[str] = []
    for child in tag.children:
        if isinstance(child, NavigableString):
            if type(child) is NavigableString:
                out.append(str(child).replace("\r", "").replace("\n", " "))
        elif isinstance(child, Tag):
            out.append(_inline(child) if child.name not in _BLOCK_TAGS else "\n".join(_block(child)))
    return "".join(out)


@dataclass(frozen=True)
class Row:
    """One comment row of a topic page."""

    pk: int
    number: int
    author: str
    at: datetime
    text: str
    edited: bool
    edits: int = 0  # how many times it was edited (the history link's number)


def parse_rows(soup: BeautifulSoup, tz: tzinfo = UTC) -> list[Row]:
    """The comment rows of a topic page, without moderation rows and removed comments."""
    rows: list[Row] = []
    for div in soup.select("div.comments_list > div.js-comment"):
        classes = div.get("class") or []
        if "comments_list__item" in classes or "comments_list__comment" not in classes:
            continue  # "closed this", "moved this", "…'s comment was removed"
        name = div.select_one("a.comment__info__username__link span") or \
            div.select_one("a.comment__info__username__link")
        date = div.select_one("ul.comment__info__date li[title]")
        body = div.select_one("div.comment__text")
        if name is None or date is None or body is None:
            raise ForumError(f"unexpected comment markup for comment {div.get('data-pk')!r}")
        history = div.select_one('ul.comment__info__date a[href^="/comment/history/"]')
        count = re.sub(r"\D", "", history.get_text()) if history is not None else ""
        rows.append(Row(
            pk=int(div["data-pk"]), number=int(div.get("data-number") or 0),
            author=name.get_text(strip=True), at=parse_spirit_date(str(date["title"]), tz),
            text=html_to_text(body), edited=history is not None, edits=int(count or 0)))
    return rows


def parse_pages(soup: BeautifulSoup) -> tuple[int, int]:
    """(this page, number of pages); (1, 1) without a paginator.

    Comment pages say "Page N of M".  Topic lists (categories, private topics) show page
    buttons instead, once there are two pages: the current page unlinked, links to a window
    of others, and a next arrow while pages follow; the count is then what they show, at
    least one more than this page while the arrow is there.
    """
    uls = soup.select("ul.paginator")
    for ul in uls:
        m = _PAGES.search(ul.get_text(" ", strip=True))
        if m:
            return int(m.group(1)), int(m.group(2))
    for ul in uls:
        current = ul.select_one("li.paginator__button > span")
        if current is None or not current.get_text(strip=True).isdigit():
            continue
        page = int(current.get_text(strip=True))
        shown = [int(a.get_text(strip=True)) for a in ul.select("li.paginator__button > a")
                 if a.get_text(strip=True).isdigit()]
        more = ul.select_one("li.paginator__button > a i.fa-chevron-right") is not None
        return page, max([page, *shown] + ([page + 1] if more else []))
    return 1, 1


def parse_form_errors(soup: BeautifulSoup) -> str:
    errors = [li.get_text(" ", strip=True) for li in soup.select("ul.errorlist li")]
    return "; ".join(errors)


def field_errors(soup: BeautifulSoup, name: str) -> list[str]:
    """The errors Spirit shows under one form field (`spirit/_form.html`: a `div.field` holds
    the label, the field's `ul.errorlist` and the input)."""
    for tag in soup.select(f"[name={name}]"):
        box = tag.find_parent("div", class_="field")
        if box is not None:
            return [li.get_text(" ", strip=True) for li in box.select("ul.errorlist li")]
    return []


@dataclass
class TopicListing:
    id: int
    slug: str
    title: str
    comments: int
    last_active: str = ""  # the `title=` of the topic's date, as shown (only compared, never parsed)
    pinned: bool = False  # pinned topics head a category's list whatever their last activity


def parse_topic_list(soup: BeautifulSoup) -> list[TopicListing]:
    out: list[TopicListing] = []
    for div in soup.select("div.layout__topics__topic"):
        link = div.select_one("a.topic__link")
        if link is None:
            continue
        m = _TOPIC_PATH.match(httpx.URL(str(link["href"])).path)
        if m is None:
            continue
        count = div.select_one(".topic__comments")
        digits = re.sub(r"\D", "", count.get_text()) if count else ""
        date = div.select_one(".topic__date[title]")
        out.append(TopicListing(int(m.group(1)), m.group(2), link.get_text(strip=True), int(digits or 0),
                                last_active=str(date["title"]) if date is not None else "",
                                pinned=div.select_one(".topic__title i.fa-thumb-tack") is not None))
    return out


# ---- one logged-in account -------------------------------------------------------------


@dataclass
class _TopicState:
    """What one account knows about one topic: its URL and where its pages start."""

    path: str  # /topic/<id>/<slug>/ or /topic/private/<id>/<slug>/
    first_pk: dict[int, int] = field(default_factory=dict)  # page -> pk of its first row
    pages: int = 1


class _Account:
    """One forum account's HTTP session: login, CSRF, re-login, throttled writes, topic reading."""

    def __init__(self, base_url: str, username: str | None, password: str | None, *,
                 client: httpx.Client | None = None, min_write_interval_s: float = 0.0,
                 sleep: Callable[[float], None] = time.sleep, max_throttle_waits: int = 3,
                 tz: tzinfo = UTC, timeout: float = 30.0, monotonic: Callable[[], float] = time.monotonic,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.username = username
        self._password = password
        self.client = client or httpx.Client(base_url=self.base_url, timeout=timeout)
        self.client.headers["Accept-Language"] = "en"
        self.client.headers.setdefault("User-Agent", "tianshen/0.1 (forum game master)")
        self.sleep = sleep
        self.monotonic = monotonic
        self.clock = clock or (lambda: datetime.now(UTC))
        self.pacer = Pacer(min_write_interval_s, sleep=sleep, monotonic=monotonic, wall=self.clock,
                           numberless_start_s=10.0)
        self.guard = LoginGuard(monotonic)
        self.requests = 0  # every HTTP request made (idle-poll accounting)
        self.skew: timedelta | None = None  # the forum's clock minus ours, from the last `Date` header
        self.max_throttle_waits = max_throttle_waits
        self.tz = tz
        self.logged_in = False
        self.logins = 0
        self.topics: dict[int, _TopicState] = {}
        self._list_paths: dict[str, str] = {}  # a list's address -> where it redirected (with the slug)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.username!r} at {self.base_url}>"

    # -- plumbing ---------------------------------------------------------------------

    def _url(self, path: str) -> str:
        return path if path.startswith("http") else self.base_url + path

    def _request(self, method: str, path: str, **kw: object) -> httpx.Response:
        self.requests += 1
        try:
            r = self.client.request(method, self._url(path), **kw)  # type: ignore[arg-type]
        except httpx.HTTPError as exc:
            raise ForumError(f"the forum at {self.base_url} did not answer ({type(exc).__name__}: {exc}); "
                             "check that it is up and the address is right") from None
        date = r.headers.get("date")
        if date:
            try:
                self.skew = email.utils.parsedate_to_datetime(date).astimezone(UTC) - self.clock()
            except (TypeError, ValueError):
                pass
        return r

    def _csrf(self) -> str:
        token = self.client.cookies.get("csrftoken")
        if not token:
            self._request("GET", "/user/login/", follow_redirects=False)
            token = self.client.cookies.get("csrftoken")
        if not token:
            raise ForumError(f"the forum at {self.base_url} set no CSRF cookie: is it a Spirit forum?")
        return token

    def login(self) -> None:
        """Log in; a refusal is remembered: every later call raises it again, with no request."""
        if self.username is None:
            return
        self.guard.check()
        try:
            self._login()
        except LoginRefused as exc:
            self.guard.note_refused(exc)
            raise
        self.guard.note_ok()

    def _login(self) -> None:
        self.client.cookies.clear()
        r = self._request("GET", "/user/login/", follow_redirects=False)
        soup = BeautifulSoup(r.text, "lxml")
        field_ = soup.select_one("input[name=csrfmiddlewaretoken]")
        token = str(field_["value"]) if field_ is not None else self.client.cookies.get("csrftoken")
        if not token:
            raise ForumError(f"no login form at {self.base_url}/user/login/ (HTTP {r.status_code}): "
                             "check the forum address")
        r = self._request("POST", "/user/login/", follow_redirects=False, data={
            "csrfmiddlewaretoken": token, "username": self.username, "password": self._password or ""})
        self.logins += 1
        location = r.headers.get("location", "")
        if r.status_code == 302 and not httpx.URL(location).path.startswith("/user/login"):
            self.logged_in = True
            log.info("logged in to %s as %s", self.base_url, self.username)
            return
        self.logged_in = False
        if r.status_code == 302:  # back to the login page: throttled (the message is flashed there)
            page = self._request("GET", "/user/login/", follow_redirects=False).text
            m = _THROTTLE.search(page)
            wait = f"{m.group(1)}{m.group(2)}" if m else "5m"
            raise LoginRefused(f"the forum refuses logins from this address for now (too many attempts): "
                               f"wait {wait} before logging in as {self.username} again; do not retry in a loop")
        m = _THROTTLE.search(r.text)
        if m:
            raise LoginRefused(f"the forum refuses logins from this address for now (too many attempts): "
                               f"wait {m.group(1)}{m.group(2)} before logging in as {self.username} again")
        errors = parse_form_errors(BeautifulSoup(r.text, "lxml"))
        raise LoginRefused(f"login as {self.username!r} at {self.base_url} failed (HTTP {r.status_code}"
                         f"{': ' + errors if errors else ''}); check the account name and password in the "
                         "config, and that the account is active (not waiting for email activation)")

    def ensure_login(self) -> None:
        """Logged in, or a `LoginRefused` at once (no request) when the password was refused."""
        self.guard.check()
        if not self.logged_in:
            if self.guard.good_logins:  # the session ended after a good login: renew it, with backoff
                self.guard.allow_relogin()
            self.login()

    @staticmethod
    def _logged_out(r: httpx.Response) -> bool:
        if r.status_code in (301, 302, 303) and \
                httpx.URL(r.headers.get("location", "")).path.startswith("/user/login"):
            return True
        if r.url.path.startswith("/user/login"):
            return True
        return r.status_code == 200 and "text/html" in r.headers.get("content-type", "") \
            and _LOGGED_IN_MARK not in r.text

    def get(self, path: str, params: dict[str, object] | None = None) -> httpx.Response:
        """A logged-in GET (redirects followed); logs in again once when the session is gone."""
        self.ensure_login()
        for attempt in (1, 2):
            r = self._request("GET", path, params=params, follow_redirects=True)
            if self.username is not None and self._logged_out(r):
                if attempt == 1:
                    log.info("the forum session of %s ended; logging in again", self.username)
                    self.logged_in = False
                    self.guard.allow_relogin()
                    self.login()
                    continue
                raise ForumError(f"the forum logged {self.username} out again right after a login")
            if r.status_code == 404:
                raise ForumError(f"{path} is not on the forum (404): deleted, or not visible to {self.username}")
            if r.status_code >= 400:
                raise ForumError(f"GET {path} failed: HTTP {r.status_code}")
            return r
        raise AssertionError("unreachable")

    def post_form(self, path: str, data: dict[str, str]) -> httpx.Response:
        """A logged-in POST (not followed); logs in again once when the session is gone."""
        self.ensure_login()
        for attempt in (1, 2):
            r = self._request("POST", path, data=dict(data, csrfmiddlewaretoken=self._csrf()),
                              follow_redirects=False)
            if self._logged_out(r) or r.status_code == 403:
                if attempt == 1:
                    log.info("the forum session of %s ended (HTTP %s on POST); logging in again",
                             self.username, r.status_code)
                    self.logged_in = False
                    self.guard.allow_relogin()
                    self.login()
                    continue
                raise ForumError(f"POST {path} as {self.username} refused (HTTP {r.status_code}) after a fresh login")
            return r
        raise AssertionError("unreachable")

    def _throttle_wait(self, r: httpx.Response) -> float | None:
        """Seconds until the forum's rate-limit window that refused `r` has passed, or None."""
        m = _THROTTLE.search(r.text)
        if m is None:
            return None
        period = int(m.group(1)) * (60 if m.group(2) == "m" else 1)
        date = r.headers.get("date")
        if date:  # windows are aligned to the epoch: wait for the next one (+1 s for the Date's precision)
            epoch = email.utils.parsedate_to_datetime(date).timestamp()
            return float(period - int(epoch) % period + 1)
        return float(period + 1)

    def publish(self, path: str, data: dict[str, str], what: str) -> str:
        """POST a publishing form; returns the `Location`; waits out and retries throttle answers."""
        data = {k: storable(v) for k, v in data.items()}  # Django refuses NUL in a form
        for attempt in range(self.max_throttle_waits + 1):
            self.pacer.wait_turn()
            r = self.post_form(path, data)
            if r.status_code in (301, 302, 303):
                self.pacer.accepted()
                return r.headers.get("location", "")
            if r.status_code == 404:
                raise ForumError(f"{what}: the topic is closed, deleted or not visible to {self.username} (404)")
            if r.status_code != 200:
                raise ForumError(f"{what}: HTTP {r.status_code}")
            wait = self._throttle_wait(r)
            if wait is None:
                soup = BeautifulSoup(r.text, "lxml")
                if unknown := field_errors(soup, "users"):  # a private topic's recipient: for good
                    raise Undeliverable(f"{what} refused by the forum: no such user ({'; '.join(unknown)})")
                errors = parse_form_errors(soup) or "the form came back without errors"
                raise ForumError(f"{what} refused by the forum: {errors}")
            m = _THROTTLE.search(r.text)
            named = int(m.group(1)) * (60 if m.group(2) == "m" else 1) if m else None
            self.pacer.refused(named_s=named, wait_s=wait)
            if attempt == self.max_throttle_waits:
                break
            log.info("%s: throttled by the forum, sending again in %.0f s", what, wait)
        raise ForumError(f"{what}: the forum kept refusing with 'Too many submissions' "
                         f"after {self.max_throttle_waits} waits; try again later")

    # -- topics ------------------------------------------------------------------------

    def topic_page(self, topic_id: int, page: int, private: bool) -> BeautifulSoup:
        st = self.topics.get(topic_id)
        params = {"page": page} if page > 1 else None
        if st is None:
            base = f"/topic/private/{topic_id}/" if private else f"/topic/{topic_id}/"
            r = self.get(base)  # redirects to /topic/<id>/<slug>/
            m = _TOPIC_PATH.match(r.url.path)
            path = r.url.path if m else base
            st = self.topics[topic_id] = _TopicState(path=path)
            if page > 1:
                r = self.get(st.path, params)
        else:
            r = self.get(st.path, params)
            if r.url.path != st.path and _TOPIC_PATH.match(r.url.path):  # the title (slug) changed
                st.path = r.url.path
                if page > 1:
                    r = self.get(st.path, params)
        soup = BeautifulSoup(r.text, "lxml")
        _, st.pages = parse_pages(soup)
        return soup

    def read_topic(self, topic_id: int, after_id: int | None, private: bool = False) -> list[Row]:
        """Rows with pk > after_id, reading only the pages that can hold them.

        Within a topic, pk grows with the position, so those rows are a suffix of the topic.
        Known page starts (first pk per page) give the page to start from; on a first read
        with `after_id`, page 1 gives the number of pages and the search goes back from the last.
        """
        def keep(got: list[Row]) -> list[Row]:
            return [r for r in got if after_id is None or r.pk > after_id]

        st = self.topics.get(topic_id)
        rows: list[Row] = []
        if after_id is not None and (st is None or not st.first_pk):
            got = self._read_page(topic_id, 1, private)
            st = self.topics[topic_id]
            rows += keep(got)
            if st.pages > 1 and (not got or got[-1].pk <= after_id):
                found: list[Row] = []
                page = st.pages
                while page > 1:
                    got = self._read_page(topic_id, page, private)
                    found = keep(got) + found
                    if got and got[0].pk <= after_id:
                        break
                    page -= 1
                return sorted(rows + found, key=lambda r: r.pk)
            page = 2
        elif after_id is not None and st is not None:
            page = max((p for p, first in st.first_pk.items() if first <= after_id), default=1)
        else:
            page = 1
        while True:
            st = self.topics.get(topic_id)
            if st is not None and page > st.pages and page > 1:
                break
            rows += keep(self._read_page(topic_id, page, private))
            page += 1
        return sorted(rows, key=lambda r: r.pk)

    def rows_since(self, topic_id: int, since: datetime, private: bool) -> list[Row]:
        """The topic's rows from its last page back to the first page that starts before `since`."""
        rows = self._read_page(topic_id, 1, private)
        page = self.topics[topic_id].pages
        while page > 1:
            got = self._read_page(topic_id, page, private)
            rows += got
            if not got or got[0].at < since:
                break
            page -= 1
        return sorted({r.pk: r for r in rows}.values(), key=lambda r: r.pk)

    def _read_page(self, topic_id: int, page: int, private: bool) -> list[Row]:
        soup = self.topic_page(topic_id, page, private)
        return self._note_page(self.topics[topic_id], page, soup)

    def _note_page(self, st: _TopicState, page: int, soup: BeautifulSoup) -> list[Row]:
        rows = parse_rows(soup, self.tz)
        first = soup.select_one("div.comments_list > div.js-comment[data-pk]")
        if first is not None:
            st.first_pk[page] = int(first["data-pk"])
        return rows

    def history_first(self, pk: int) -> str | None:
        """The first version of an edited comment (its history lists versions oldest first)."""
        soup = BeautifulSoup(self.get(f"/comment/history/{pk}/").text, "lxml")
        body = soup.select_one("div.comments_list div.comment__text")
        return html_to_text(body) if body is not None else None

    def private_topics(self) -> list[TopicListing]:
        """All of this account's private topics (every page of /topic/private/)."""
        out: list[TopicListing] = []
        page, pages = 1, 1
        while page <= pages:
            soup = BeautifulSoup(self.get("/topic/private/", {"page": page} if page > 1 else None).text, "lxml")
            out.extend(parse_topic_list(soup))
            _, pages = parse_pages(soup)
            page += 1
        for t in out:
            self.topics.setdefault(t.id, _TopicState(path=f"/topic/private/{t.id}/{t.slug}/"))
        return out

    def topic_list(self, path: str) -> Iterator[TopicListing]:
        """The topics of a list (a category page), page after page as the caller goes on, in
        the forum's order: pinned ones first, then by last activity, newest first."""
        asked, path = path, self._list_paths.get(path, path)
        page, pages = 1, 1
        while page <= pages:
            r = self.get(path, {"page": page} if page > 1 else None)
            if page == 1:  # the address with the slug: a redirect to it would drop `?page=`
                path = self._list_paths[asked] = r.url.path
            soup = BeautifulSoup(r.text, "lxml")
            listing = parse_topic_list(soup)
            for t in listing:
                self.topics.setdefault(t.id, _TopicState(path=f"/topic/{t.id}/{t.slug}/"))
            _, pages = parse_pages(soup)
            yield from listing
            page += 1

    def participants(self, topic_id: int) -> tuple[set[str], str | None]:
        """(participants' nicknames, the first comment's author) of a private topic."""
        soup = self.topic_page(topic_id, 1, private=True)
        names = {a.get_text(strip=True) for a in soup.select("a.menu_list__participant__user")}
        rows = parse_rows(soup, self.tz)
        return names, (rows[0].author if rows and rows[0].number == 1 else None)

    def comment_location(self, location: str) -> int | None:
        m = _COMMENT_LOCATION.search(location)
        return int(m.group(1)) if m else None


def _squash(text: str) -> str:
    return "".join(text.split())


# ---- the GM's adapter ------------------------------------------------------------------


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
        """The forum's clock: ours plus the skew of the last answer's `Date` (a request only
        when no answer came yet)."""
        if self._http.skew is not None:
            return (self._http.clock() + self._http.skew).astimezone(UTC)
        r = self._http._request("GET", "/user/login/", follow_redirects=False)
        date = r.headers.get("date")
        if not date:
            raise ForumError("the forum sent no Date header; cannot read its clock")
        return email.utils.parsedate_to_datetime(date).astimezone(UTC)

    # -- PMs ----------------------------------------------------------------------------

    def fetch_pms(self, after_id: int | None) -> list[ForumPm]:
        return _received_pms(self._http, self._pm_cache, self.account, after_id)

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
        out = []
        for r in rows:
            original = self._original(r) if r.edited else None
            out.append(ForumPost(r.pk, thread_id, r.author, r.at, r.text, r.edited, r.number, original))
        return out

    def _original(self, row: Row) -> str | None:
        """The first version of an edited comment; its history is read again only after another edit."""
        key = (row.pk, row.edits)
        if key not in self._originals:
            self._originals[key] = self._http.history_first(row.pk)
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


class SpiritPlayers:
    """Players on a Spirit forum, each logged in as themselves (implements `forum.base.PlayerSide`)."""

    def __init__(self, base_url: str, passwords: dict[str, str], gm_account: str, *,
                 client_factory: Callable[[], httpx.Client] | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.base_url = base_url.rstrip("/")
        self._passwords = dict(passwords)
        self.gm_account = gm_account
        self._client_factory = client_factory
        self._sleep = sleep
        self._sessions: dict[str, _Account] = {}
        self._gm_topic: dict[str, int] = {}
        self._reader: _Account | None = None
        self._inbox_cache: dict[str, dict[int, _PmTopic]] = {}

    def __repr__(self) -> str:
        return f"<SpiritPlayers {len(self._passwords)} accounts at {self.base_url}>"

    @property
    def names(self) -> Iterable[str]:
        return self._passwords.keys()

    def session(self, user: str) -> _Account:
        acc = self._sessions.get(user)
        if acc is None:
            if user not in self._passwords:
                raise ForumError(f"no password for the player account {user!r}")
            client = self._client_factory() if self._client_factory else None
            acc = _Account(self.base_url, user, self._passwords[user], client=client, sleep=self._sleep)
            self._sessions[user] = acc
        acc.ensure_login()
        return acc

    def pm(self, sender: str, to: str, text: str, subject: str = "") -> int:
        acc = self.session(sender)
        topic_id = self._topic_with(sender, to)
        if topic_id is not None:  # a reply has no subject of its own: the topic's title is the subject
            location = acc.publish(f"/comment/{topic_id}/publish/",
                                   {"comment": text, "comment_hash": uuid.uuid4().hex}, what=f"PM to {to}")
            pk = acc.comment_location(location)
            if pk is None:
                raise ForumError(f"PM by {sender} to {to}: unexpected answer {location!r}")
            return pk
        location = acc.publish("/topic/private/publish/", {
            "title": subject or f"{sender}的私信", "users": to, "comment": text,
            "topic_hash": uuid.uuid4().hex, "comment_hash": uuid.uuid4().hex}, what=f"PM to {to}")
        m = _TOPIC_PATH.match(httpx.URL(location).path)
        if m is None or "/topic/private/" not in location:
            raise ForumError(f"PM by {sender} to {to}: unexpected answer {location!r}")
        rows = acc.read_topic(int(m.group(1)), None, private=True)
        if not rows:
            raise ForumError(f"PM by {sender} to {to}: the new private topic is empty")
        return rows[0].pk

    def _topic_with(self, sender: str, to: str) -> int | None:
        """The private topic the GM opened with `sender`, when `to` is the GM."""
        if to.casefold() != self.gm_account.casefold():
            return None
        if sender in self._gm_topic:
            return self._gm_topic[sender]
        acc = self.session(sender)
        title = pm_topic_title(self.gm_account, sender)
        for t in acc.private_topics():
            if t.title == title:
                names, opener = acc.participants(t.id)
                if opener == self.gm_account and {n.casefold() for n in names} == \
                        {sender.casefold(), self.gm_account.casefold()}:
                    self._gm_topic[sender] = t.id
                    return t.id
        return None

    def post(self, author: str, thread_id: str, text: str) -> int:
        acc = self.session(author)
        location = acc.publish(f"/comment/{int(thread_id)}/publish/",
                               {"comment": text, "comment_hash": uuid.uuid4().hex},
                               what=f"post by {author} in thread {thread_id}")
        pk = acc.comment_location(location)
        if pk is None:
            raise ForumError(f"post by {author}: unexpected answer {location!r}")
        return pk

    def edit(self, post_id: int, author: str, new_text: str) -> None:
        acc = self.session(author)
        r = acc.post_form(f"/comment/{int(post_id)}/update/", {"comment": new_text})
        if r.status_code not in (301, 302, 303):
            errors = parse_form_errors(BeautifulSoup(r.text, "lxml")) if r.status_code == 200 else ""
            raise ForumError(f"{author} may not edit comment {post_id} (HTTP {r.status_code}) {errors}".strip())

    def inbox(self, user: str) -> list[ForumPm]:
        return _received_pms(self.session(user), self._inbox_cache.setdefault(user, {}), user, None)

    def thread_posts(self, thread_id: str) -> list[ForumPost]:
        if self._reader is None:
            self._reader = self.session(next(iter(self._passwords)))
        acc = self._reader
        out = []
        for r in acc.read_topic(int(thread_id), None):
            original = acc.history_first(r.pk) if r.edited else None
            out.append(ForumPost(r.pk, str(thread_id), r.author, r.at, r.text, r.edited, r.number, original))
        return out

    def close(self) -> None:
        for acc in self._sessions.values():
            acc.client.close()


__all__ = ["SpiritForum", "SpiritPlayers", "content_hash", "html_to_text", "parse_spirit_date",
           "pm_topic_title"]
