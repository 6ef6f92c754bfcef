"""`PhpwindForum`: the GM account on a stock PHPWind 9 board (`forum.base.Forum`).

Reading
- PMs: the dialog list (`m=message&c=message`, one entry per correspondent, newest first)
  says for each dialog how many messages are unread and how many it holds (共N条); a dialog
  is opened (`a=dialog&dialogid=N`, newest first, 20 a page) only when it has unread
  messages, its count or last text changed since the adapter looked, or it was never read
  by this process; its pages are read until they reach the caller's mark (and on while the
  list counts more messages than were read: a dialog that stays short is opened again at
  the next poll, since opening it marked it read).  Ids are the
  board's message ids (global, growing with time).  Times are to the minute only (the
  `title` of each message's time): `sent_at` is the latest moment of that minute that is
  not after the moment the adapter first saw the message (`PhpwindPm.seen_at`, the minute
  in `sent_between`), as the Discuz adapter does.
- Threads: `read.php?tid=N&page=P`, 15 floors a page.  Ids are pids, which are global on the
  board (a thread's floors are not numbered by them: floor 16 of tid 4 is pid 17).  The
  opening post has no pid on the page (its anchor is 0): it is read with id 0, position 1.
  `position` is the floor + 1.  Reading starts at the page that held the caller's mark
  (remembered, or asked of the board's `c=read&a=jump` redirect).  Times are to the minute
  (site time).  `text` has quotes (`[quote=user,pid]`, made by the 「回复」 of a post) taken
  out; `PhpwindPost.full_text` keeps them.  An edit made more than `post_modify_time`
  minutes after posting leaves 「[X于… 编辑了帖子]」: `edited=True`; an edit within that time
  leaves no mark at all (only re-reading the text shows it, as the driver does before a
  count).  `original_text` is always None: PHPWind keeps no earlier version.
- The whole board: the list `c=thread&fid=F` (newest last post first); a thread is read
  again only when what the list shows of its last post changed.  Only replies are listed
  (an opening post has no pid to order it by).

Writing
- New thread (`c=post&a=doadd`), reply (`a=doreply`; its answer's URL ends in `#pid`), PM
  (`m=message&c=message&a=doAddMessage`, ≤ 500 characters, else in parts; the subject goes
  first, in 【】; no markup, which a PM does not render).
- Refusals: 「灌水预防机制已经打开，在N秒内不能连续发帖」 waits N seconds (`forum.pacing`);
  「帖子内容不得少于N个字」 pads the post once; 「接收用户不存在」, a PM too long and
  「已达当日发送条数上限」 are `Undeliverable`: that PM fails alone, the posts and other rows go
  on, the GM is told once (the limit: every PM fails at once, with no request, until the
  board's next day; `tianshen admin resend` once it is raised); a guest refusal means the
  session ended: the adapter logs in again once.
- Idempotency as on Discuz: a key already sent returns its first result; a send whose answer
  was lost is looked up on the board (`find_written`) before it is repeated.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Literal

import httpx

from tianshen.forum.base import ForumError, ForumPm, ForumPost, Undeliverable, Write, look_back_from
from tianshen.forum.discuz.parse import bbcode_text, estimate, same_text
from tianshen.forum.pacing import Pacer
from tianshen.forum.paging import new_rows
from tianshen.forum.phpwind import parse
from tianshen.forum.phpwind.client import PhpwindClient, Reply
from tianshen.forum.text import storable
from tianshen.forum.writes import SpacedWriter

log = logging.getLogger(__name__)

PM_MAX = 500  # 「私信内容不得超过500字」
PER_PAGE = 15  # floors a page (stock bbs.read.perpage)
DEFAULT_ZONE = timezone(timedelta(hours=8))  # stock site.time.timezone
FLOOD_TEXT = ("灌水预防", "不能连续发帖", "发帖过于频繁")
PM_REFUSED_TEXT = ("接收用户不存在", "不能给自己发", "不能发送给自己", "拒绝接收", "黑名单")
DAILY_LIMIT_TEXT = "当日发送条数上限"
DAILY_LIMIT_FIX = ("raise 用户组 → 私信 → 每日发送条数 for the GM's group, then `tianshen admin resend` sends the PMs "
                   "that failed")


@dataclass(frozen=True)
class PhpwindPost(ForumPost):
    author_uid: int = 0
    full_text: str = ""  # with quoted text
    edited_by: str | None = None
    edited_at: datetime | None = None  # the mark's minute (as UTC)
    quoted_pids: tuple[int, ...] = ()


@dataclass(frozen=True)
class PhpwindPm(ForumPm):
    sender_uid: int = 0
    dialog_id: int = 0
    seen_at: datetime | None = None  # when this adapter first saw it
    sent_between: tuple[datetime, datetime] | None = None  # the minute the board shows


@dataclass
class _Outcome:
    kind: Literal["ok", "flood", "short"]
    value: Any = None
    wait_s: float = 0.0
    need: int = 0


@dataclass
class _BoardThread:
    sig: str | None = None
    read_upto: int = 0
    posts: list[ForumPost] = field(default_factory=list)


def zone(value: str | None) -> timezone:
    """The site's zone: `+08:00`, `8`, an IANA name, or the stock UTC+8."""
    if not value:
        return DEFAULT_ZONE
    m = re.fullmatch(r"(?:UTC|GMT)?\s*([+-]?)(\d{1,2})(?::?(\d{2}))?", value.strip())
    if m:
        sign = -1 if m.group(1) == "-" else 1
        return timezone(sign * timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0)))
    from zoneinfo import ZoneInfo

    try:
        return timezone(datetime.now(ZoneInfo(value)).utcoffset() or timedelta(0))
    except (KeyError, ValueError) as exc:  # ZoneInfoNotFoundError is a KeyError
        raise ValueError(f"[forum] timezone: {value!r} is no time zone; write the board's 站点时区 as an offset "
                         "(\"+08:00\") or a zone name (\"Asia/Shanghai\")") from exc


class PhpwindForum(SpacedWriter):
    markup: Literal["bbcode", "markdown", "plain"] = "bbcode"
    flood_advice = "lower 灌水预防 (后台 → 全局 → 站点设置/用户组权限) for the GM's group"
    remembers_keys = False
    max_post_chars: int | None = None  # posts: no cap met; a PM over 500 characters is sent in parts

    def __init__(self, base_url: str, username: str, password: str, fid: int | None = None, *,
                 timezone: str | None = None, flood_interval_s: float | None = None,
                 transport: httpx.BaseTransport | None = None, sleep: Callable[[float], None] = time.sleep,
                 monotonic: Callable[[], float] = time.monotonic, clock: Callable[[], datetime] | None = None,
                 flood_retries: int = 4, timeout: float = 30.0) -> None:
        self.client = PhpwindClient(base_url, username, password, transport=transport, timeout=timeout, clock=clock,
                                    monotonic=monotonic)
        self.fid = fid
        self.tz = zone(timezone)
        self.tz_configured = timezone is not None
        self.flood_configured = flood_interval_s is not None
        self.pacer = Pacer(0.0 if flood_interval_s is None else flood_interval_s, sleep=sleep, monotonic=monotonic,
                           wall=clock)
        self.flood_retries = flood_retries
        self.min_post_chars: int | None = None
        self._done: dict[str, Any] = {}
        self._uncertain: dict[str, datetime] = {}
        self._seen_pm: dict[int, datetime] = {}
        self._dialog_sig: dict[int, tuple[int, str]] = {}  # dialog id -> (count, last text) when last read
        self._dialog_pms: dict[int, dict[int, PhpwindPm]] = {}  # dialog id -> the players' messages read
        self._dialog_floor: dict[int, int] = {}  # dialog id -> the cache is complete above this id
        self._dialog_ids: dict[int, set[int]] = {}  # dialog id -> every message id read, the GM's too
        self._pm_paused_until: datetime | None = None
        self._post_page: dict[int, dict[int, int]] = {}  # tid -> pid -> page it was read on
        self._board: dict[int, _BoardThread] = {}
        self._board_floor: int | None = None

    # ---- session ------------------------------------------------------------------------------

    @property
    def account(self) -> str:
        return self.client.account

    @property
    def flood_interval_s(self) -> float:
        return self.pacer.interval_s

    def login(self) -> None:
        self.client.login()

    def now(self) -> datetime:
        return self.client.server_now()

    def close(self) -> None:
        self.client.close()

    def note_last_write(self, at: datetime) -> None:
        self.pacer.note_last_write(at)

    def board_zone(self) -> str | None:
        """PHPWind pages do not say their zone: None (the config's `timezone`, else UTC+8, is used)."""
        return None

    def describe(self) -> list[str]:
        c = self.client
        hours = (self.tz.utcoffset(None) or timedelta(0)).total_seconds() / 3600
        return [
            f"board time UTC{hours:+g} ({'from the config' if self.tz_configured else 'the stock setting, assumed'})",
            f"writes spaced {self.flood_interval_s:g} s "
            f"({'from the config' if self.flood_configured else 'learned from the board refusals'})",
            "captcha at login: " + ({True: "demanded", False: "not demanded", None: "unknown"}[c.login_captcha]),
            f"GM account {c.account} (uid {c.uid}), cookie prefix {c.cookiepre or '?'}",
        ]

    # ---- PMs ----------------------------------------------------------------------------------

    def fetch_pms(self, after_id: int | None) -> list[ForumPm]:
        """One list request when nothing changed; a dialog is opened only when it changed."""
        self._ensure()
        now = self.now()
        floor = after_id or 0
        found: list[PhpwindPm] = []
        for dialog in self._dialogs():
            sig = (dialog.count, dialog.last_text)
            cached = dialog.dialog_id in self._dialog_pms and self._dialog_floor.get(dialog.dialog_id, 0) <= floor
            if dialog.unread or not cached or self._dialog_sig.get(dialog.dialog_id) != sig:
                if self._read_dialog(dialog, after_id, now):
                    self._dialog_sig[dialog.dialog_id] = sig
                else:  # the list counts more than the pages showed: read again at the next poll
                    self._dialog_sig.pop(dialog.dialog_id, None)
            found += [m for m in self._dialog_pms.get(dialog.dialog_id, {}).values() if m.id > floor]
        return sorted({m.id: m for m in found}.values(), key=lambda m: m.id)

    def _dialogs(self) -> list[parse.Dialog]:
        out: list[parse.Dialog] = []
        page = 1
        while page <= 50:
            reply = self.client.get("index.php", {"m": "message", "c": "message", "page": page})
            if reply.status in (301, 302, 303):
                raise ForumError(f"the board sent the PM list elsewhere ({reply.headers.get('location', '')})")
            dialogs, _, pages = parse.pm_inbox(reply.text)
            out += [d for d in dialogs if d.dialog_id not in {o.dialog_id for o in out}]
            if page >= pages or not dialogs:
                break
            page += 1
        return out

    def _read_dialog(self, dialog: parse.Dialog, after_id: int | None, now: datetime) -> bool:
        """Read a dialog's pages (newest first) down to `after_id`, and further while the list
        counts more messages (共N条) than were ever read in it; False when they still disagree."""
        cache = self._dialog_pms.setdefault(dialog.dialog_id, {})
        known = self._dialog_ids.setdefault(dialog.dialog_id, set())
        page = 1
        while page <= 100:
            reply = self.client.get("index.php", {"m": "message", "c": "message", "a": "dialog",
                                                  "dialogid": dialog.dialog_id, "page": page})
            got = parse.pm_dialog(reply.text, self.tz)
            if got is None:
                raise ForumError(f"the PM dialog with {dialog.other_name}: {reply.answer.message or 'no dialog page'}")
            messages, _, pages = got
            known.update(m.message_id for m in messages)
            for m in messages:
                if m.mine or m.sender_uid == self.client.uid:
                    continue
                seen = self._seen_pm.setdefault(m.message_id, now)
                sent = estimate(m.when, seen) if m.when else seen
                cache[m.message_id] = PhpwindPm(m.message_id, dialog.other_name, sent, "", m.text,
                                                sender_uid=m.sender_uid, dialog_id=dialog.dialog_id, seen_at=seen,
                                                sent_between=m.when)
            oldest = min((m.message_id for m in messages), default=0)
            reached = after_id is not None and oldest <= after_id and len(known) >= dialog.count
            if not messages or page >= pages or reached:
                break
            page += 1
        self._dialog_floor[dialog.dialog_id] = min(self._dialog_floor.get(dialog.dialog_id, after_id or 0),
                                                   after_id or 0)
        if len(known) < dialog.count:
            log.info("PM dialog with %s: the list counts %d messages, %d were read; read again next poll",
                     dialog.other_name, dialog.count, len(known))
            return False
        return True

    # ---- threads ------------------------------------------------------------------------------

    def read_thread(self, thread_id: str, after_id: int | None) -> list[ForumPost]:
        self._ensure()
        tid = int(thread_id)
        now = self.now()
        page = self._start_page(tid, after_id)
        posts: dict[int, PhpwindPost] = {}
        while True:
            tp = self._thread_page(tid, page)
            for raw in tp.posts:
                self._post_page.setdefault(tid, {})[raw.pid] = page
                if after_id is None or raw.pid > after_id:
                    posts[raw.pid] = self._post(tid, raw, now)
            if page >= tp.pages or not tp.posts:
                break
            page += 1
        return sorted(posts.values(), key=lambda p: (p.position, p.id))

    def _post(self, tid: int, raw: parse.RawPost, now: datetime) -> PhpwindPost:
        return PhpwindPost(raw.pid, str(tid), raw.author, estimate(raw.posted, now), raw.text,
                           edited=raw.edited_by is not None, position=raw.floor + 1, original_text=None,
                           author_uid=raw.author_uid, full_text=raw.full_text, edited_by=raw.edited_by,
                           edited_at=raw.edited_at[0] if raw.edited_at else None, quoted_pids=raw.quoted_pids)

    def _start_page(self, tid: int, after_id: int | None) -> int:
        if not after_id:
            return 1
        known = self._post_page.get(tid, {}).get(after_id)
        if known is not None:
            return known
        reply = self.client.request("GET", "index.php", {"c": "read", "a": "jump", "tid": tid, "pid": after_id})
        location = reply.headers.get("location", "")
        ids = parse.url_ids(location)
        if reply.status in (301, 302, 303) and ids.get("tid") == tid:
            return ids.get("page") or 1
        return 1

    def _thread_page(self, tid: int, page: int) -> parse.ThreadPage:
        reply = self.client.get("read.php", {"tid": tid, "page": page})
        tp = parse.thread_page(reply.text, self.tz)
        if tp is None:
            raise ForumError(f"thread {tid}: {reply.answer.message or 'no thread page'}")
        return tp

    # ---- the whole board ----------------------------------------------------------------------

    def board_posts(self, after_id: int | None) -> list[ForumPost]:
        """The replies in the threads of the board `fid` with pid > after_id, in pid order."""
        self._ensure()
        if self.fid is None:
            raise ForumError("no board to read: set `fid` (the game board's forum id) in the config")
        floor = after_id or 0
        if self._board_floor is None or self._board_floor > floor:
            self._board, self._board_floor = {}, floor
        for row in self._board_rows():
            entry = self._board.get(row.tid)
            if entry is not None and entry.sig == row.last_post:
                break  # listed by last post: every later thread is unchanged too
            entry = entry or _BoardThread()
            posts = self.read_thread(str(row.tid), entry.read_upto or None)
            fresh = [p for p in posts if p.id > entry.read_upto]
            entry.posts += [p for p in fresh if p.id > self._board_floor]
            entry.read_upto = max([entry.read_upto, *(p.id for p in fresh)])
            entry.sig = row.last_post
            self._board[row.tid] = entry
            if entry.read_upto <= self._board_floor:
                break
        self._board_floor = floor
        out: list[ForumPost] = []
        for entry in self._board.values():
            entry.posts = [p for p in entry.posts if p.id > floor]
            out += entry.posts
        return sorted(out, key=lambda p: p.id)

    def _board_rows(self, max_pages: int = 200) -> Iterator[parse.ThreadRow]:
        return new_rows(self._board_page, max_pages)

    def _board_page(self, page: int) -> tuple[list[parse.ThreadRow], int]:
        reply = self.client.get("index.php", {"c": "thread", "fid": self.fid, "page": page})
        rows, _, pages = parse.board_threads(reply.text)
        if not rows and reply.answer.message:
            raise ForumError(f"the board refused its thread list (fid={self.fid}): {reply.answer.message}")
        return rows, pages

    # ---- the game board and the accounts (`tianshen forum check`) ----------------------------

    def check_board(self) -> str:
        self._ensure()
        fix = "set `fid` to the number after fid= in the game board's address (index.php?c=thread&fid=…)"
        if self.fid is None:
            raise ForumError(f"no game board: {fix}")
        reply = self.client.get("index.php", {"c": "forum", "a": "list"}, ajax=True)
        names = parse.forum_names(reply.answer.data)
        if self.fid in names:
            return f"{names[self.fid]} (fid {self.fid})"
        there = ", ".join(f"{n} (fid {f})" for f, n in names.items()) or "none the GM can see"
        raise ForumError(f"the board has no forum fid={self.fid} the GM can read (boards: {there}); {fix}")

    def user_exists(self, name: str) -> bool:
        """The user's space by name (`m=space&username=`): 「页面不存在」 for no such user."""
        self._ensure()
        reply = self.client.get("index.php", {"m": "space", "username": name})
        if parse.profile_uid(reply.text) is not None:
            return True
        if "页面不存在" in reply.answer.message or "不存在" in reply.answer.message:
            return False
        raise ForumError(f"looking up the user {name!r}: the board answered "
                         f"{reply.answer.message or f'HTTP {reply.status}'!r}")

    # ---- writing ------------------------------------------------------------------------------

    def create_thread(self, title: str, body: str, key: str) -> str:
        self._ensure()
        if self.fid is None:
            raise ForumError("no board to open threads on: set `fid` (the game board's forum id) in the config")
        return str(self._write(key, lambda: self._send_thread(title, body),
                               lambda since: self._find_thread(title, since, body)))

    def reply(self, thread_id: str, body: str, key: str) -> int:
        self._ensure()
        tid = int(thread_id)
        return int(self._write(key, lambda: self._send_reply(tid, body),
                               lambda since: self._find_reply(tid, body, since)))

    def send_pm(self, to: str, subject: str, body: str, key: str) -> None:
        """A PM longer than the board's 500 characters goes as several, cut at line ends
        (each part its own key: a retry sends only the parts that did not go)."""
        self._ensure()
        for i, part in enumerate(pm_parts(pm_message(subject, body))):
            if self._pm_paused_until is not None and self.now() < self._pm_paused_until:
                raise Undeliverable(f"PM to {to}: not sent, the board's daily PM limit for the GM is reached "
                                    f"until {self._pm_paused_until.astimezone(self.tz):%Y-%m-%d %H:%M} board time; "
                                    f"{DAILY_LIMIT_FIX}")
            self._write(key if i == 0 else f"{key}#pm{i + 1}", lambda part=part: self._send_pm(to, part),
                        lambda since, part=part: self._find_pm(to, part, since))

    def _judge(self, reply: Reply, what: str) -> _Outcome:
        a = reply.answer
        if a.kind == "json" and a.ok:
            return _Outcome("ok", a.referer)
        text = a.message or f"HTTP {reply.status}"
        if any(t in text for t in FLOOD_TEXT):
            m = re.search(r"(\d+)\s*秒", text)
            return _Outcome("flood", wait_s=float(m.group(1)) if m else 0.0)
        if "不得少于" in text:
            m = re.search(r"(\d+)", text)
            return _Outcome("short", need=int(m.group(1)) if m else 10)
        if DAILY_LIMIT_TEXT in text:  # no PM until the board's next day: each fails alone, posts go on
            self._pm_paused_until = self._next_board_day()
            raise Undeliverable(f"{what}: the board refused it ({text}); {DAILY_LIMIT_FIX}")
        if any(t in text for t in PM_REFUSED_TEXT) or ("不得超过" in text and "私信" in text):
            raise Undeliverable(f"{what}: the board refused it for good ({text})")
        if "验证码" in text:
            raise ForumError(f"{what}: the board demands a captcha from the GM ({text}); switch it off for the "
                             "GM's user group (后台 → 全局 → 验证码)")
        raise ForumError(f"{what}: the board refused ({text})")

    def _next_board_day(self) -> datetime:
        local = self.now().astimezone(self.tz)
        return (local.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)).astimezone(UTC)

    def _send_reply(self, tid: int, body: str) -> _Outcome:
        out = self._judge(self.client.post("index.php", {"c": "post", "a": "doreply", "fid": self.fid or ""},
                                           {"tid": str(tid), "atc_title": "", "atc_content": self._pad(body)}),
                          f"reply in thread {tid}")
        if out.kind == "ok":
            pid = parse.url_ids(out.value).get("#")
            if pid is None:
                found = self._find_reply(tid, body, look_back_from(self.now()))
                if found is None:
                    raise ForumError(f"the board accepted the reply in thread {tid} but its post id is not to be found")
                pid = found
            out.value = pid
        return out

    def _send_thread(self, title: str, body: str) -> _Outcome:
        out = self._judge(self.client.post("index.php", {"c": "post", "a": "doadd", "fid": self.fid},
                                           {"atc_title": title, "atc_content": self._pad(body)}),
                          f"new thread on fid {self.fid}")
        if out.kind == "ok":
            tid = parse.url_ids(out.value).get("tid")
            if tid is None:
                tid = self._find_thread(title, look_back_from(self.now()), body)
                if tid is None:
                    raise ForumError("the board accepted the new thread but it is not in the board's list")
            out.value = tid
        return out

    def _send_pm(self, to: str, message: str) -> _Outcome:
        out = self._judge(self.client.post("index.php", {"m": "message", "c": "message", "a": "doAddMessage"},
                                           {"usernames[]": [to], "content": message}), f"PM to {to}")
        if out.kind == "ok":
            out.value = "pm"
        return out

    # ---- looking on the board for a write whose answer was lost -----------------------------------

    def find_written(self, write: Write) -> str | None:
        self._ensure()
        since = look_back_from(write.since or self.now() - timedelta(minutes=10))
        if write.kind == "thread":
            tid = self._find_thread(write.title, since, write.body) if self.fid is not None else None
            return None if tid is None else str(tid)
        if write.kind == "reply":
            pid = self._find_reply(int(write.thread_id), write.body, since, known=write.known)
            return None if pid is None else str(pid)
        if write.kind == "pm":  # a PM sent in parts: its first part
            first = pm_parts(pm_message(write.subject, write.body))[0]
            return self._find_pm(write.to, first, since, known=write.known)
        raise ValueError(f"unknown write kind {write.kind!r}")

    def _mine(self, author: str, uid: int) -> bool:
        return uid == self.client.uid if uid and self.client.uid else author == self.account

    def _find_reply(self, tid: int, body: str, since: datetime, known: int = 0) -> int | None:
        want = bbcode_text(storable(body))
        first = self._thread_page(tid, 1)
        pages = [first]
        page = first.pages
        while page > 1:  # from the last page back to one that starts before `since`
            tp = self._thread_page(tid, page)
            pages.append(tp)
            if not tp.posts or tp.posts[0].posted[1] < since:
                break
            page -= 1
        found = sorted(raw.pid for tp in pages for raw in tp.posts
                       if raw.pid and self._mine(raw.author, raw.author_uid) and raw.posted[1] >= since
                       and same_text(raw.full_text, want))
        return found[-1] if len(found) > known else None

    def _find_thread(self, title: str, since: datetime, body: str | None = None) -> int | None:
        for row in self._board_rows(max_pages=5):  # a thread opened since `since` is near the top
            if not (self._mine(row.author, row.author_uid) and same_text(row.title, title)):
                continue
            tp = self._thread_page(row.tid, 1)
            opening = tp.posts[0] if tp.posts else None
            if opening is not None and opening.posted[1] >= since and (
                    body is None or same_text(opening.full_text, bbcode_text(storable(body)))):
                return row.tid
        return None

    def _find_pm(self, to: str, message: str, since: datetime, known: int = 0) -> str | None:
        want = bbcode_text(storable(message))
        for dialog in self._dialogs():
            if dialog.other_name != to:
                continue
            got = parse.pm_dialog(self.client.get("index.php", {"m": "message", "c": "message", "a": "dialog",
                                                                "dialogid": dialog.dialog_id}).text, self.tz)
            mine = [m.message_id for m in (got[0] if got else [])
                    if m.mine and same_text(m.text, want) and (m.when is None or m.when[1] >= since)]
            return str(max(mine)) if len(mine) > known else None
        return None


def pm_parts(message: str, limit: int = PM_MAX) -> list[str]:
    """`message` in parts of at most `limit` characters, cut at line ends (a longer line by characters)."""
    parts: list[str] = []
    current = ""
    for line in message.split("\n"):
        while len(line) > limit:
            if current:
                parts.append(current)
                current = ""
            parts.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if current and len(candidate) > limit:
            parts.append(current)
            current = line
        else:
            current = candidate
    return [*parts, current] if current or not parts else parts


def pm_message(subject: str, body: str) -> str:
    """A PHPWind PM has no subject: it goes first, in 【】.  A PM shows its text as typed (the
    recorded two-line PM keeps its raw line break: no UBB is rendered there), so the markup
    of the rendered body ([b], [quote]) is taken out."""
    return (f"【{subject}】\n" if subject else "") + bbcode_text(body)
