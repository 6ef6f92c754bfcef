"""The HTTP session with a PHPWind 9 board: cookies, the csrf_token pair, login, re-login.

Login takes three requests (`docs/forums.md`, README of the recordings): the form (it sets
the `csrf_token` cookie and holds the same token in a hidden field), the ajax POST of the
password (answers a `welcome` URL, no cookie yet), and the GET of that URL, which sets
`<prefix>winduser` (the prefix is random per install; it is read from the cookie, never
assumed).  Every POST carries `csrf_token` equal to the cookie.  A wrong password, the
per-IP captcha (after 3 wrong passwords from one IP in a day every login needs an image
captcha) or any other refusal stops with a `LoginRefused` and is never tried again in this
process: one failed login per start at most.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from tianshen.forum.base import ForumError, LoginRefused
from tianshen.forum.phpwind import parse
from tianshen.forum.session import LoginGuard
from tianshen.forum.text import storable
from tianshen.forum.writes import GuardedLogin, LostAnswer, Reply

log = logging.getLogger(__name__)

AJAX = {"X-Requested-With": "XMLHttpRequest", "Accept": "application/json, text/javascript, */*"}
WRONG_PASSWORD = (
    "the board refused the GM's password ({detail}). Fix `password` / `password_env` in the config; "
    "tianshen does not try again by itself, because after 3 wrong passwords from one IP in a day PHPWind "
    "asks every login from that IP for a captcha")
CAPTCHA_LOGIN = (
    "the board demands a captcha to log in ({detail}). PHPWind does so for a day after 3 wrong passwords "
    "from this IP (table pw_user_login_ip_recode; an admin can empty it), or when 后台 → 全局 → 验证码 has "
    "登录 ticked; a bot cannot answer it. Fix that, check the password, then start tianshen again")
LOGGED_OUT_TEXT = ("请先登录", "您还没有登录", "没有登录")


class PhpwindClient(GuardedLogin):
    def __init__(self, base_url: str, username: str, password: str, *,
                 transport: httpx.BaseTransport | None = None, timeout: float = 30.0,
                 clock: Callable[[], datetime] | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.base_url = base_url.rstrip("/") + "/"
        self.username, self.password = username, password
        self.clock = clock or (lambda: datetime.now(UTC))
        self.http = httpx.Client(base_url=self.base_url, transport=transport, timeout=timeout,
                                 follow_redirects=False,
                                 headers={"User-Agent": "Mozilla/5.0 (tianshen forum GM)"})
        self.account = username
        self.uid = 0
        self.cookiepre: str | None = None
        self.logged_in = False
        self.login_captcha: bool | None = None
        self.guard = LoginGuard(monotonic)
        self._skew: timedelta | None = None
        self._relogging = False
        self.requests = 0

    # ---- clock --------------------------------------------------------------------------------

    def _note_date(self, resp: httpx.Response) -> None:
        try:
            server = parsedate_to_datetime(resp.headers.get("date", ""))
        except (TypeError, ValueError, IndexError):
            return
        if server.tzinfo is None:
            server = server.replace(tzinfo=UTC)
        self._skew = server - self.clock()

    def server_now(self) -> datetime:
        """The board's clock: no page shows it, the `Date` header is the only one."""
        if self._skew is None:
            self.request("GET", "index.php", {"m": "u", "c": "login"})
        return (self.clock() + (self._skew or timedelta(0))).astimezone(UTC)

    # ---- requests -----------------------------------------------------------------------------

    def relative(self, url: str) -> str:
        """A link of the board's pages as a path under `base_url` (the pages' links are absolute,
        made from the request's Host, and the board may live under a path: `https://x/bbs/`)."""
        parts = urlsplit(url)
        path, base = parts.path, urlsplit(self.base_url).path
        path = path[len(base):] if path.startswith(base) else path.lstrip("/")
        return (path or "index.php") + (f"?{parts.query}" if parts.query else "")

    def csrf(self) -> str:
        return self.http.cookies.get("csrf_token") or ""

    def request(self, method: str, path: str, params: dict[str, Any] | None = None,
                data: dict[str, Any] | None = None, *, ajax: bool = False, write: bool = False) -> Reply:
        headers = dict(AJAX) if ajax else {}
        fitted = None
        if data is not None:
            fitted = {k: ([storable(x) for x in v] if isinstance(v, list) else storable(str(v)))
                      for k, v in data.items()}
        self.requests += 1
        try:
            resp = self.http.request(method, path, params=params or None, data=fitted, headers=headers)
        except httpx.TransportError as exc:
            if write:
                raise LostAnswer(f"no answer from the board to {path}: {exc!r}") from exc
            raise ForumError(f"cannot reach the board at {self.base_url}: {exc!r}") from exc
        self._note_date(resp)
        self._note_cookies()
        text = resp.content.decode("utf-8", errors="replace")
        if resp.status_code >= 500:
            if write:
                raise LostAnswer(f"the board answered HTTP {resp.status_code} to {path}")
            raise ForumError(f"the board answered HTTP {resp.status_code} to {path}")
        return Reply(resp.status_code, text, parse.read_answer(text), resp.headers)

    def _note_cookies(self) -> None:
        for cookie in self.http.cookies.jar:
            if cookie.name.endswith("winduser") and cookie.name != "winduser":
                self.cookiepre = cookie.name[:-len("winduser")]
            elif cookie.name.endswith("lastvisit") and self.cookiepre is None:
                self.cookiepre = cookie.name[:-len("lastvisit")]

    def get(self, path: str, params: dict[str, Any] | None = None, *, ajax: bool = False) -> Reply:
        return self._with_login(lambda: self.request("GET", path, params, ajax=ajax))

    def post(self, path: str, params: dict[str, Any], data: dict[str, Any]) -> Reply:
        """A write (ajax, `_json=1`): the csrf token is added; a logged-out answer logs in
        again once.  Transport failures raise `LostAnswer`."""
        def send() -> Reply:
            if not self.csrf():
                self.request("GET", "index.php", {"m": "u", "c": "login"})  # the first page view sets it
            return self.request("POST", path, {**params, "_json": 1}, {**data, "csrf_token": self.csrf()},
                                ajax=True, write=True)
        return self._with_login(send)

    def _with_login(self, action: Callable[[], Reply]) -> Reply:
        return self._relogin_once(action, self.logged_out)

    def logged_out(self, reply: Reply) -> bool:
        """A redirect to the login page, a guest page frame, or a refusal naming the guest group."""
        location = reply.headers.get("location", "")
        if reply.status in (301, 302, 303) and "c=login" in location and "a=welcome" not in location:
            return True
        message = reply.answer.message
        if "(游客)" in message or "（游客）" in message or any(t in message for t in LOGGED_OUT_TEXT):
            return True
        return reply.answer.kind == "page" and parse.page_uid(reply.text) == 0

    # ---- login --------------------------------------------------------------------------------

    def _login(self) -> None:
        form_page = self.request("GET", "index.php", {"m": "u", "c": "login"})
        form = parse.login_form(form_page.text)
        if form is None:
            raise ForumError(f"no login form at {self.base_url}index.php?m=u&c=login — is base_url the board's "
                             "address (a PHPWind 9 board)?")
        self.login_captcha = form.captcha
        if form.captcha:
            raise LoginRefused(CAPTCHA_LOGIN.format(detail="the login page shows a captcha"))
        token = self.csrf() or form.fields.get("csrf_token", "")
        fields = {**form.fields, "username": self.username, "password": self.password, "csrf_token": token,
                  "question": "0", "answer": ""}
        reply = self.request("POST", "index.php", {"m": "u", "c": "login", "a": "dorun"}, fields, ajax=True)
        a = reply.answer
        if not a.ok:
            self._login_failed(a.message or f"HTTP {reply.status}")
        welcome = a.referer
        if "a=welcome" not in welcome:
            raise ForumError(f"the board accepted the password but sent no welcome step ({welcome[:100]!r})")
        self.request("GET", self.relative(welcome))
        if not self.cookiepre or not self.http.cookies.get(f"{self.cookiepre}winduser"):
            raise ForumError("the board said the login succeeded but set no login cookie (…winduser)")
        self.logged_in = True
        self._relogging = True
        try:
            home = self.request("GET", "index.php", {"m": "bbs", "c": "forumlist"})
        finally:
            self._relogging = False
        self.uid = parse.page_uid(home.text) or 0
        self.account = parse.page_user(home.text) or self.username
        if not self.uid:
            self.logged_in = False
            raise ForumError("the login looked successful but the board does not know the GM afterwards "
                             "(cookies not kept?)")
        log.info("logged in to %s as %s (uid %s, cookie prefix %s)", self.base_url, self.account, self.uid,
                 self.cookiepre)

    def _login_failed(self, message: str) -> None:
        if "验证码" in message:
            raise LoginRefused(CAPTCHA_LOGIN.format(detail=message))
        if "密码" in message or "帐号" in message or "账号" in message or "用户" in message:
            raise LoginRefused(WRONG_PASSWORD.format(detail=message))
        raise LoginRefused(f"the board refused the login ({message})")

    def close(self) -> None:
        self.http.close()
