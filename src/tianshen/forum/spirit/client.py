"""One logged-in account's HTTP session: login, CSRF, re-login, throttled writes, topic reading."""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo

import httpx
from bs4 import BeautifulSoup

from tianshen.forum.base import (
    ForumError,
    LoginRefused,
    Undeliverable,
)
from tianshen.forum.pacing import Pacer
from tianshen.forum.session import LoginGuard
from tianshen.forum.spirit.parse import (
    _COMMENT_LOCATION,
    _LOGGED_IN_MARK,
    _THROTTLE,
    _TOPIC_PATH,
    Row,
    TopicListing,
    field_errors,
    html_to_text,
    own_text,
    parse_form_errors,
    parse_pages,
    parse_rows,
    parse_topic_list,
)
from tianshen.forum.text import storable
from tianshen.forum.writes import GuardedLogin

log = logging.getLogger("tianshen.forum.spirit")  # one logger for the adapter, as before the split


# ---- one logged-in account -------------------------------------------------------------


@dataclass
class _TopicState:
    """What one account knows about one topic: its URL and where its pages start."""

    path: str  # /topic/<id>/<slug>/ or /topic/private/<id>/<slug>/
    first_pk: dict[int, int] = field(default_factory=dict)  # page -> pk of its first row
    pages: int = 1


class _Account(GuardedLogin):
    """One forum account's HTTP session: login (`GuardedLogin`: a refusal is remembered),
    CSRF, re-login, throttled writes, topic reading."""

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
        # the last answer's `Date` and our monotonic clock when it came: the forum's time runs on
        # from it, whatever the host's wall clock does meanwhile (issue 32 item 1)
        self.dated: tuple[datetime, float] | None = None
        self.max_throttle_waits = max_throttle_waits
        self.tz = tz
        self.logged_in = False
        self._relogging = False
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
                self.dated = (email.utils.parsedate_to_datetime(date).astimezone(UTC), self.monotonic())
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
        """`GuardedLogin.login`; an account without a name (a guest's reading) never logs in."""
        if self.username is not None:
            super().login()

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

    def history_first(self, pk: int, own: bool = False) -> str | None:
        """The first version of an edited comment (its history lists versions oldest first);
        `own`: without its quotes (`own_text`)."""
        soup = BeautifulSoup(self.get(f"/comment/history/{pk}/").text, "lxml")
        body = soup.select_one("div.comments_list div.comment__text")
        return None if body is None else own_text(body) if own else html_to_text(body)

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
