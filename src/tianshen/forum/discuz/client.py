"""The HTTP session with a Discuz! X board: charset, cookies, formhash, login, re-login.

Two ways in, both stock: the mobile API (`api/mobile/index.php`, JSON, used when the board
has 手机版 switched on) and the PC pages (`member.php`, `forum.php`, `home.php`, with
`inajax=1` answers).  `DiscuzClient` hides the difference for what both share: it knows the
board's charset (forms are sent in it; the mobile API is told `charset=utf-8`), keeps the
cookies (the prefix is read from the board, never assumed), fetches a fresh formhash after
login (the one in the login answer is the stale guest hash), notices a logged-out answer and
logs in again once (at most once a backoff period, see `forum.session`).  A wrong password,
a lockout or a captcha stops with a `LoginRefused` saying what the GM must change; it is never
tried again in this process (Discuz locks every login from the IP after 5 failures in 15
minutes).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlencode

import httpx

from tianshen.forum.base import ForumError, LoginRefused
from tianshen.forum.discuz import parse
from tianshen.forum.session import LoginGuard
from tianshen.forum.text import storable
from tianshen.forum.writes import GuardedLogin, LostAnswer, Reply

log = logging.getLogger(__name__)

API = "api/mobile/index.php"
DEFAULT_OFFSET = timezone(timedelta(hours=8))  # Discuz's default timeoffset

WRONG_PASSWORD = (
    "the board refused the GM's password ({detail}). Fix `password` / `password_env` in the config; "
    "tianshen does not try again by itself, because Discuz locks every login from this IP for 15 minutes "
    "after 5 failures (UCenter login_failedtime)")
LOCKED_OUT = (
    "the board locked logins from this IP after too many wrong passwords ({detail}). Wait 15 minutes, "
    "check the password in the config, then start tianshen again")
CAPTCHA_LOGIN = (
    "the board demands a captcha to log in ({detail}). A bot cannot answer it: in the admin panel switch it "
    "off for logins (全局/防灌水 → 验证设置 → 验证码 → 启用验证码: untick 登录), and exempt the GM account's user "
    "group from captchas for posting and PMs (用户 → 用户组 → <the GM's group> → 基本设置, or 防灌水 → 验证设置 → "
    "发帖数超过此值免验证码)")
CAPTCHA_POST = (
    "the board demands a captcha from the GM account to post or send PMs ({detail}). Exempt the GM's user group "
    "(用户 → 用户组 → <the GM's group> → 基本设置: no captcha), or untick 发帖/回帖 under 防灌水 → 验证设置 → 验证码")
MOBILE_CLOSED = (
    "the board's mobile API is switched off ({detail}). Switch on 手机版 (全局 → 手机版访问设置 → 开启手机版) or set "
    "api = \"html\" (or \"auto\") in the [forum] config")

LOGGED_OUT_KEYS = ("login_before_enter_home", "to_login", "_login_nopermission", "nologin")
LOGGED_OUT_TEXT = ("请先登录", "尚未登录", "需要先登录", "您还未登录")


class DiscuzClient(GuardedLogin):
    def __init__(self, base_url: str, username: str, password: str, *, fid: int | None = None,
                 api: str = "auto", charset: str = "auto", tz: timezone | None = None,
                 transport: httpx.BaseTransport | None = None, timeout: float = 30.0,
                 clock: Callable[[], datetime] | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        if api not in ("auto", "mobile", "html"):
            raise ValueError(f"api must be auto, mobile or html, not {api!r}")
        self.base_url = base_url.rstrip("/") + "/"
        self.username, self.password, self.fid = username, password, fid
        self.api = api
        self.charset: str | None = None if charset == "auto" else parse.normalize_charset(charset)
        self.tz_configured = tz is not None
        self.tz: timezone = tz or DEFAULT_OFFSET
        self.tz_known = tz is not None
        self.clock = clock or (lambda: datetime.now(UTC))
        self.http = httpx.Client(base_url=self.base_url, transport=transport, timeout=timeout,
                                 follow_redirects=False,
                                 headers={"User-Agent": "Mozilla/5.0 (tianshen forum GM)"})
        self.mobile: bool | None = {"mobile": True, "html": False}.get(api)
        self.cookiepre: str | None = None
        self.uid = 0
        self.account = username
        self.formhash = ""
        self.logged_in = False
        self.login_captcha: bool | None = None
        # the last answer's `Date` and our monotonic clock when it came: the board's time runs on
        # from it, whatever the host's wall clock does meanwhile (issue 32 item 1)
        self._dated: tuple[datetime, float] | None = None
        self._monotonic = monotonic
        self._relogging = False
        self.guard = LoginGuard(monotonic)
        self.requests = 0  # every HTTP request made (idle-poll accounting)

    # ---- clock --------------------------------------------------------------------------------

    def _note_date(self, resp: httpx.Response) -> None:
        date = resp.headers.get("date")
        if not date:
            return
        try:
            server = parsedate_to_datetime(date)
        except (TypeError, ValueError):
            return
        if server.tzinfo is None:
            server = server.replace(tzinfo=UTC)
        self._dated = (server.astimezone(UTC), self._monotonic())

    def server_now(self) -> datetime:
        if self._dated is None:
            self.request("GET", "forum.php")
        if self._dated is None:  # no Date header: our own clock
            return self.clock().astimezone(UTC)
        server, at = self._dated
        return server + timedelta(seconds=self._monotonic() - at)

    # ---- requests -----------------------------------------------------------------------------

    def _encode(self, data: dict[str, str], api: bool) -> bytes:
        charset = "utf-8" if api else (self.charset or "utf-8")
        fitted = {k: storable(v, self.charset or "utf-8") for k, v in data.items()}
        return urlencode(fitted, encoding="gbk" if charset == "gbk" else charset).encode("ascii")

    def request(self, method: str, path: str, params: dict[str, Any] | None = None,
                data: dict[str, str] | None = None, *, write: bool = False) -> Reply:
        api = path == API
        params = dict(params or {})
        if api and self.charset not in (None, "utf-8"):
            params["charset"] = "utf-8"  # the plugin then converts every field from UTF-8
        content = self._encode(data, api) if data is not None else None
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if content is not None else {}
        self.requests += 1
        try:
            resp = self.http.request(method, path, params=params or None, content=content, headers=headers)
        except httpx.TransportError as exc:
            if write:
                raise LostAnswer(f"no answer from the board to {path}: {exc!r}") from exc
            raise ForumError(f"cannot reach the board at {self.base_url}: {exc!r}") from exc
        self._note_date(resp)
        text = self._decode(resp)
        answer = parse.read_answer(text)
        if resp.status_code >= 500 and answer.kind != "error":
            if write:
                raise LostAnswer(f"the board answered HTTP {resp.status_code} to {path}")
            raise ForumError(f"the board answered HTTP {resp.status_code} to {path}")
        return Reply(resp.status_code, text, answer, resp.headers)

    def _decode(self, resp: httpx.Response) -> str:
        raw = resp.content
        ctype = resp.headers.get("content-type", "")
        if "json" in ctype or raw[:1] == b"{":
            return raw.decode("utf-8", errors="replace")  # the API escapes everything to ASCII
        charset = parse.header_charset(ctype) or self.charset
        if charset is None:
            charset = parse.page_charset(raw[:4000].decode("ascii", errors="replace")) or "utf-8"
        return parse.decode(raw, charset)

    def get(self, path: str, params: dict[str, Any] | None = None, *, check_login: bool = True) -> Reply:
        return self._with_login(lambda: self.request("GET", path, params), check_login)

    def api_get(self, module: str, **params: Any) -> Reply:
        return self.get(API, {"version": 4, "module": module, **params})

    def post(self, path: str, params: dict[str, Any], data: dict[str, str]) -> Reply:
        """A write: the formhash is added; a refused formhash is fetched again once; a logged-out
        answer logs in again once.  Transport failures raise `LostAnswer`."""
        def send() -> Reply:
            reply = self.request("POST", path, params, {**data, "formhash": self.formhash}, write=True)
            if reply.answer.kind == "error" and "非法字符" in reply.answer.message:
                log.info("formhash refused, fetching a fresh one")
                self.refresh()
                reply = self.request("POST", path, params, {**data, "formhash": self.formhash}, write=True)
            return reply
        return self._with_login(send, True)

    def _with_login(self, action: Callable[[], Reply], check_login: bool) -> Reply:
        return self._relogin_once(action, self._logged_out) if check_login else action()

    def _logged_out(self, reply: Reply) -> bool:
        a = reply.answer
        if a.kind == "json":
            if any(k in a.key for k in LOGGED_OUT_KEYS):
                return True
            uid = a.variables.get("member_uid")
            return uid is not None and str(uid) == "0"
        if any(t in a.message for t in LOGGED_OUT_TEXT):
            return True
        if a.message and not a.ok:
            return False  # the page's own refusal says more than its guest header
        return parse.page_uid(reply.text) == 0

    # ---- login --------------------------------------------------------------------------------

    def _login(self) -> None:
        probe = self.request("GET", "member.php", {"mod": "logging", "action": "login"})
        self._learn(probe)
        form = parse.login_form(probe.text)
        self.login_captcha = bool(form and form.captcha)
        if form is not None and form.captcha:
            raise LoginRefused(CAPTCHA_LOGIN.format(detail="the login page shows a captcha"))
        done = False
        if self.mobile is not False:
            done = self._api_login()
        if not done:
            if form is None:
                raise ForumError(f"no login form at {self.base_url}member.php?mod=logging&action=login "
                                 "— is base_url the board's address?")
            self._html_login(form)
        self.logged_in = True
        self._relogging = True
        try:
            self.refresh()
        finally:
            self._relogging = False
        if not self.uid:
            self.logged_in = False
            raise ForumError("the login looked successful but the board does not know the GM afterwards "
                             "(cookies not kept?)")
        log.info("logged in to %s as %s (uid %s, %s, charset %s)", self.base_url, self.account, self.uid,
                 "mobile API" if self.mobile else "PC pages", self.charset)

    def _learn(self, reply: Reply) -> None:
        if self.charset is None:
            self.charset = (parse.header_charset(reply.headers.get("content-type"))
                            or parse.page_charset(reply.text) or "utf-8")
        if not self.tz_configured:
            offset = parse.footer_offset(reply.text)
            if offset is not None:
                self.tz, self.tz_known = offset, True
        pre = parse.js_var(reply.text, "cookiepre")
        if pre:
            self.cookiepre = pre

    def _api_login(self) -> bool:
        reply = self.request("POST", API, {"version": 3, "module": "login", "loginsubmit": "yes",
                                           "loginfield": "auto"},
                             {"username": self.username, "password": self.password, "questionid": "0", "answer": ""})
        a = reply.answer
        if a.kind != "json" or a.error:
            detail = a.error or a.message or f"HTTP {reply.status}"
            if self.mobile:
                raise ForumError(MOBILE_CLOSED.format(detail=detail))
            log.info("mobile API unavailable (%s); using the PC pages", detail)
            self.mobile = False
            return False
        self.cookiepre = str(a.variables.get("cookiepre") or self.cookiepre or "")
        if a.key == "login_succeed":
            self.mobile = True
            self.account = str(a.variables.get("member_username") or self.username)
            return True
        self._login_failed(a.key, a.message)
        return False  # not reached

    def _html_login(self, form: parse.LoginForm) -> None:
        fields = {**form.fields, "loginfield": "username", "username": self.username, "password": self.password,
                  "questionid": "0", "answer": "", "cookietime": "2592000"}
        fields.pop("formhash", None)
        self.formhash = form.fields.get("formhash", "")
        reply = self.request("POST", form.action + "&inajax=1", None, {**fields, "formhash": self.formhash})
        a = reply.answer
        if a.ok and self._has_auth_cookie():
            return
        if a.ok:
            raise ForumError("the board said the login succeeded but set no login cookie")
        self._login_failed("", a.message or reply.text[:200])

    def _has_auth_cookie(self) -> bool:
        names = [c.name for c in self.http.cookies.jar]
        if self.cookiepre:
            return f"{self.cookiepre}auth" in names
        return any(n.endswith("_auth") for n in names)

    def _login_failed(self, key: str, message: str) -> None:
        detail = f"{key}: {message}" if key and message and key not in message else (message or key)
        if key == "login_strike" or "次数过多" in message:
            raise LoginRefused(LOCKED_OUT.format(detail=detail))
        if "seccode" in key or "secqaa" in key or "验证码" in message or "验证问答" in message:
            raise LoginRefused(CAPTCHA_LOGIN.format(detail=detail))
        if key == "login_invalid" or "登录失败" in message or "密码" in message:
            raise LoginRefused(WRONG_PASSWORD.format(detail=detail))
        raise LoginRefused(f"the board refused the login ({detail})")

    def refresh(self) -> None:
        """A fresh formhash and the GM's uid (the login answer's formhash is the guest one)."""
        if self.mobile:
            params: dict[str, Any] = {"fid": self.fid} if self.fid else {}
            reply = self.api_get("forumdisplay" if self.fid else "forumindex", **params)
            a = reply.answer
            if a.kind != "json":
                raise ForumError(f"the mobile API answered something unexpected: {a.message or reply.text[:100]!r}")
            if self.fid and a.key and "nonexist" in a.key:
                raise ForumError(f"the board has no forum fid={self.fid} ({a.message}); fix `fid` in the config")
            self.formhash = str(a.variables.get("formhash") or "")
            self.uid = int(a.variables.get("member_uid") or 0)
            self.account = str(a.variables.get("member_username") or self.account)
            self.cookiepre = str(a.variables.get("cookiepre") or self.cookiepre or "")
        else:
            params = {"mod": "forumdisplay", "fid": self.fid} if self.fid else {}
            reply = self.get("forum.php", params)
            if reply.answer.kind == "page" and reply.answer.message and not reply.answer.ok and self.fid \
                    and "版块" in reply.answer.message:
                raise ForumError(f"the board has no forum fid={self.fid} ({reply.answer.message}); "
                                 "fix `fid` in the config")
            self._learn(reply)
            self.formhash = parse.formhash(reply.text) or ""
            self.uid = parse.page_uid(reply.text) or 0
        if not self.formhash:
            raise ForumError("no formhash on the board's pages; is this a Discuz! X board?")

    def close(self) -> None:
        self.http.close()
