"""`DiscuzForum`: the GM account 神的使者 on a stock Discuz! X3.4/X3.5 board (`forum.base.Forum`).

Reading
- PMs come from the inbox (mobile API `mypm`, else `home.php?mod=space&do=pm`): every
  unread conversation, and every conversation whose last message changed since the adapter
  last looked, is read from its last page backwards until the messages are older than the
  caller's mark.  Ids are Discuz `pmid`s (global, growing with time); messages are returned
  in pmid order, deduplicated, without the GM's own.  Discuz shows PM times only relatively
  (`12 秒前`) or to the minute; `sent_at` is the latest time the page allows that is not after
  the moment the adapter first saw the message (`DiscuzPm.sent_between` keeps the interval,
  `seen_at` that moment).  UCenter's conversation view lists only messages older than the
  current second, but counts them all (issue 31 item 1): a conversation whose count is above
  what was read is not marked read and is read again on every poll; one that stays short for
  3 polls and 2 minutes is handed out once by `pm_gaps()` (the daemon tells the GM).
- Thread posts come from the PC thread pages (the mobile API strips edit markers), or the
  mobile API's `viewthread` with `api = "mobile"`.  Reading is incremental: it starts at the
  page holding the caller's last post (remembered, or found by Discuz's `findpost` redirect).
  Times are exact (the span `title`, or the plain text of posts older than 7 days, in board
  time; `dbdateline` in the API).  `text` has quotes removed (for vote parsing) and the edit
  marker taken out; `DiscuzPost.full_text` keeps quotes.  An edit marker 「本帖最后由 X 于 … 编辑」
  sets `edited=True` with `edited_by`/`edited_at` (minute precision).  Discuz keeps no earlier
  version of a post, so `original_text` is always None here.  The GM's own posts are included.
- The whole board (`board_posts`) comes from the board list of `fid` (mobile API
  `forumdisplay`, else the PC page), newest last post first: only threads whose last post
  changed since the adapter last looked are read, each with the incremental `read_thread`.

Writing
- New thread, reply and PM (by username, or `uid:N`), through the mobile API when the board
  has it (it returns tid/pid/pmid) else the PC forms (in the board's charset).
- Writes are spaced by the board's flood interval (`forum.pacing`): `flood_interval_s` when
  configured (0 allowed), else learned from the board's refusals, which name it
  (「两次发表间隔少于 15 秒」) or not (「两次发送短消息太快」: the interval doubles from 15 s);
  a refusal means send again when due, a few times.  Every write has `parseurloff=1` and
  `smileyoff=1`: a player's bare URL or `:)` quoted in an announcement stays text.  A post shorter than the board's minimum is padded with full-width
  spaces once.
- Idempotency: Discuz has no field for a client's key, and nothing is added to the text.
  A key already sent by this adapter returns its first result.  A send whose answer was lost
  (timeout, broken connection, HTTP 5xx) is looked up on the board — the GM's recent
  posts in the thread, the board's thread list (title and opening post), the PM
  conversation — before it is repeated.  A key this process has not seen is written: an
  identical GM post or a thread of the same title may be another game's (issue 27), so
  only the driver, which knows it tried that write before a restart, asks `find_written`
  (`forum.base.Write`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Literal
from urllib.parse import urlencode

import httpx

from tianshen.forum.base import ForumError, ForumPm, ForumPost, PmGap, Undeliverable, Write, look_back_from
from tianshen.forum.discuz import pages, parse
from tianshen.forum.discuz.client import API, CAPTCHA_POST, DiscuzClient, Reply
from tianshen.forum.pacing import Pacer
from tianshen.forum.paging import new_rows
from tianshen.forum.render import escape_bbcode
from tianshen.forum.text import storable
from tianshen.forum.writes import SpacedWriter

log = logging.getLogger(__name__)

FLOOD_KEYS = ("post_flood_ctrl", "message_can_not_send_2")
FLOOD_TEXT = ("间隔少于", "发送短消息太快", "发帖过于频繁", "灌水")
NO_MARKUP = {"parseurloff": "1", "smileyoff": "1"}  # bare URLs and smilies stay text
# A PM refused for good, whenever it is sent (issue 23 item 4): the recipient is no account (or
# frozen), is the GM himself, or takes no PMs from him.  The mobile API's keys; the PC pages'
# texts (the 24 h caps, 「两次发送短消息太快」 and the like pass: they are tried again).
PM_REFUSED_KEYS = ("message_bad_touser", "message_bad_touid", "message_can_not_send_to_self",
                   "message_can_not_send_onlyfriend", "is_blacklist", "message_can_not_send_6",
                   "message_can_not_send_8", "message_can_not_send_9")
PM_REFUSED_TEXT = ("用户不存在或被冻结", "不能给自己发", "只接收好友发送的短消息", "受对方的隐私设置影响",
                   "对方屏蔽了您的短消息", "收件人为空")
SUCCESS_KEYS = ("post_reply_succeed", "post_newthread_succeed", "do_success", "post_newthread_mod_succeed",
                "post_reply_mod_succeed")


@dataclass(frozen=True)
class DiscuzPost(ForumPost):
    author_uid: int = 0
    full_text: str = ""  # with quoted text
    edited_by: str | None = None
    edited_at: datetime | None = None  # the marker's time (board minute, as UTC)


@dataclass(frozen=True)
class DiscuzPm(ForumPm):
    sender_uid: int = 0
    conversation_uid: int = 0  # the other party's uid (Discuz's touid)
    seen_at: datetime | None = None  # when this adapter first saw it
    sent_between: tuple[datetime, datetime] | None = None  # what the board's time text allows


@dataclass
class _BoardThread:
    sig: str | None = None  # what the board list showed of its last post when it was last read
    read_upto: int = 0  # the newest pid read in it
    posts: list[ForumPost] = field(default_factory=list)


@dataclass
class _Board:
    floor: int  # complete above this: a thread not in `threads` has no post above it
    threads: dict[int, _BoardThread] = field(default_factory=dict)


@dataclass
class _Outcome:
    kind: Literal["ok", "flood", "short", "unknown"]
    value: Any = None
    wait_s: float = 0.0
    need: int = 0


def _tz(value: str | None) -> timezone | None:
    if not value:
        return None
    offset = parse.parse_offset(value)
    if offset is not None:
        return offset
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(value)
    delta = datetime.now(zone).utcoffset() or timedelta(0)
    return timezone(delta)


class DiscuzForum(SpacedWriter):
    markup: Literal["bbcode", "markdown", "plain"] = "bbcode"
    remembers_keys = False  # keys are kept for this process only; `find_written` looks on the board
    flood_advice = ("raise the GM group's limits or lower 发帖间隔 (floodctrl) / UCenter 短消息发送间隔 "
                    "(pmfloodctrl)")

    def __init__(self, base_url: str, username: str, password: str, fid: int | None = None, *,
                 api: str = "auto", charset: str = "auto", timezone: str | None = None,
                 flood_interval_s: float | None = None, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep, monotonic: Callable[[], float] = time.monotonic,
                 clock: Callable[[], datetime] | None = None, flood_retries: int = 4,
                 recheck_window_s: float = 600, api_ppp: int = 20, timeout: float = 30.0,
                 gap_report_s: float = 120, gap_report_polls: int = 3) -> None:
        self.client = DiscuzClient(base_url, username, password, fid=fid, api=api, charset=charset,
                                   tz=_tz(timezone), transport=transport, timeout=timeout, clock=clock,
                                   monotonic=monotonic)
        self.fid = fid
        self.thread_api = api == "mobile"  # edits are visible only on the PC pages
        self.max_post_chars: int | None = 10000  # Discuz's default maxpostsize; learned from the board
        self.flood_configured = flood_interval_s is not None
        self.pacer = Pacer(0.0 if flood_interval_s is None else flood_interval_s, sleep=sleep, monotonic=monotonic,
                           wall=clock)
        self.flood_retries = flood_retries
        self.recheck_window = timedelta(seconds=recheck_window_s)
        self.api_ppp = api_ppp
        self.sleep, self.monotonic = sleep, monotonic
        self.min_post_chars: int | None = None
        self._done: dict[str, Any] = {}
        self._uncertain: dict[str, datetime] = {}
        self._seen_pm: dict[int, datetime] = {}
        self._conv_sig: dict[int, tuple[int, str]] = {}
        self._conv_max: dict[int, int] = {}
        self._conv_pms: dict[int, dict[int, DiscuzPm]] = {}  # other uid -> the messages read, by pmid
        self._conv_ids: dict[int, set[int]] = {}  # other uid -> every pmid read, the GM's too
        self._conv_count: dict[int, tuple[int, int]] = {}  # other uid -> (count, pages) the board last said
        self._conv_floor: dict[int, int] = {}  # other uid -> the cache is complete above this pmid
        # issue 31 item 1: conversations whose count is above what their pages showed
        self._short: dict[int, tuple[datetime, int]] = {}  # other uid -> (first seen short, polls short)
        self._gaps: list[PmGap] = []  # short past the bound, not handed out yet (`pm_gaps`)
        self._gaps_told: set[int] = set()
        self.gap_report_after = timedelta(seconds=gap_report_s)
        self.gap_report_polls = gap_report_polls
        self._post_page: dict[int, dict[int, int]] = {}  # tid -> pid -> the page it was read on
        self._parsed: dict[tuple[int, int], tuple[str, parse.ThreadPage]] = {}  # (tid, page) -> (digest, page)
        self._positions: dict[int, dict[int, int]] = {}  # tid -> pid -> floor
        self._ppp: dict[int, int] = {}
        self._board: _Board | None = None

    # ---- session ------------------------------------------------------------------------------

    @property
    def account(self) -> str:
        return self.client.account

    def login(self) -> None:
        self.client.login()

    @property
    def flood_interval_s(self) -> float:
        return self.pacer.interval_s

    def note_last_write(self, at: datetime) -> None:
        self.pacer.note_last_write(at)

    def now(self) -> datetime:
        return self.client.server_now()

    def board_zone(self) -> str | None:
        """The board's own offset as read from its pages (±HH:MM), None when not read: the
        display zone of its games when the config sets none (issue 23 item 1)."""
        c = self.client
        if not c.tz_known or c.tz_configured:
            return None
        offset = c.tz.utcoffset(None) or timedelta(0)
        minutes = int(offset.total_seconds() // 60)
        return f"{'-' if minutes < 0 else '+'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"

    def describe(self) -> list[str]:
        """What `tianshen forum check` should tell the GM about this board."""
        c = self.client
        offset = c.tz.utcoffset(None)
        hours = offset.total_seconds() / 3600 if offset is not None else 0
        tz_src = "from the config" if c.tz_configured else ("read from the board" if c.tz_known else "assumed")
        flood_src = "from the config, raised when the board says more" if self.flood_configured \
            else "learned from the board's refusals"
        return [
            f"board charset {c.charset or 'unknown'}; "
            f"{'mobile API' if c.mobile else 'PC pages'} for PMs and writing, "
            f"{'mobile API' if self.thread_api else 'PC pages'} for threads",
            f"board time UTC{hours:+g} ({tz_src})",
            f"writes spaced {self.flood_interval_s:g} s ({flood_src})",
            "captcha at login: " + ({True: "demanded", False: "not demanded", None: "unknown"}[c.login_captcha]),
            f"GM account {c.account} (uid {c.uid}), cookie prefix {c.cookiepre or '?'}",
        ]

    # ---- PMs ----------------------------------------------------------------------------------

    def fetch_pms(self, after_id: int | None) -> list[ForumPm]:
        """One inbox request when nothing changed: a conversation is read only when it is
        unread, its last message changed, or the cache does not reach down to `after_id`;
        the messages read are kept, so a poll with no mark yet costs no more than one with."""
        self._ensure()
        now = self.now()
        floor = after_id or 0
        cold_done = False
        found: list[DiscuzPm] = []
        for conv in self._conversations():
            uid = conv.other_uid
            sig = (conv.last_from_uid, conv.last_text)
            cached = uid in self._conv_pms and self._conv_floor.get(uid, 0) <= floor
            if conv.unread or (cached and self._conv_sig.get(uid) != sig):
                need = True
            elif cached:
                need = False
            elif after_id is None:
                need = True
            elif cold_done:  # listed after one with nothing above the mark: nothing above it either
                self._conv_pms[uid], self._conv_floor[uid], self._conv_sig[uid] = {}, floor, sig
                need = False
            else:  # never read by this process, with a mark: newest first until one holds nothing newer
                need = True
            if need:
                top = self._read_conversation(conv, after_id, now)
                if after_id is not None and not conv.unread and top <= after_id and not cached:
                    cold_done = True  # the list is newest first: older conversations hold nothing newer
            found += [m for m in self._conv_pms.get(uid, {}).values() if m.id > floor]
        return sorted({m.id: m for m in found}.values(), key=lambda m: m.id)

    def _read_conversation(self, conv: parse.Conversation, after_id: int | None, now: datetime) -> int:
        """Read one conversation down to `after_id` into the cache; returns its newest pmid."""
        uid = conv.other_uid
        messages = self._conversation(uid, after_id)
        top = max((m.pmid for m in messages), default=0)
        if self._agrees(conv, now):
            self._conv_sig[uid] = (conv.last_from_uid, conv.last_text)
        else:  # not marked read: read again on the next poll
            self._conv_sig.pop(uid, None)
        self._conv_max[uid] = max(top, self._conv_max.get(uid, 0))
        cache = self._conv_pms.setdefault(uid, {})
        self._conv_floor[uid] = min(self._conv_floor.get(uid, after_id or 0), after_id or 0)
        for m in messages:
            if m.sender_uid == self.client.uid or m.sender == self.account:
                continue
            seen = self._seen_pm.setdefault(m.pmid, now)
            sent = parse.estimate(m.when, seen) if m.when else seen
            cache[m.pmid] = DiscuzPm(m.pmid, m.sender, sent, "", m.text, sender_uid=m.sender_uid,
                                     conversation_uid=uid, seen_at=seen, sent_between=m.when)
        return top

    def _conversations(self) -> list[parse.Conversation]:
        out: list[parse.Conversation] = []
        page = 1
        while True:
            if self.client.mobile:
                reply = self.client.api_get("mypm", page=page, perpage=100)
                self._fail_unless_json(reply, "the PM inbox")
                convs, _, pages = parse.api_pm_list(reply.answer.variables)
            else:
                reply = self.client.get("home.php", {"mod": "space", "do": "pm", "filter": "privatepm", "page": page})
                convs, _, pages = parse.pm_list(reply.text)
            out += convs
            if page >= pages or not convs or page >= 50:
                return out
            page += 1

    def _conversation(self, touid: int, floor: int | None) -> list[parse.PmMessage]:
        """The messages of the conversation with `touid` newer than `floor`, from the last page back."""
        got: dict[int, parse.PmMessage] = {}
        page: int | None = None
        while True:
            msgs, current, _pages = self._conversation_page(touid, page)
            fresh = [m for m in msgs if m.pmid not in got]
            for m in fresh:
                got[m.pmid] = m
            if not fresh or current <= 1:
                break
            if floor is not None and min(m.pmid for m in msgs) <= floor:
                break
            page = current - 1
        if self.client.mobile:
            self._past_the_end(touid, got)
        else:
            self._read_back(touid, got, current)
        return [got[k] for k in sorted(got)]

    def _read_back(self, touid: int, got: dict[int, parse.PmMessage], page: int) -> None:
        """PC pages: when the board counts more messages than were ever read, read the pages
        before `page` too (a reading that stopped at the mark), so the counts can agree."""
        known = self._conv_ids.setdefault(touid, set())
        known.update(got)
        count, _ = self._conv_count.get(touid, (0, 1))
        while count > len(known) and page > 1:
            page -= 1
            msgs, _, _ = self._conversation_page(touid, page)
            for m in msgs:
                got.setdefault(m.pmid, m)
            known.update(got)

    def _agrees(self, conv: parse.Conversation, now: datetime) -> bool:
        """Issue 31 item 1: UCenter lists only messages older than the current second, but
        counts them all.  A conversation whose count is above what was read is not marked
        read: it is read again on every poll until the counts agree.  Short for
        `gap_report_polls` polls and `gap_report_after` (defaults 3 polls and 2 minutes: a
        second's gap closes on the next poll), it is handed out once by `pm_gaps`."""
        uid = conv.other_uid
        count = self._conv_count.get(uid, (0, 1))[0]
        read = len(self._conv_ids.get(uid, ()))
        if count <= read:  # 0: the board did not say
            self._short.pop(uid, None)
            self._gaps_told.discard(uid)
            return True
        since, polls = self._short.get(uid, (now, 0))
        self._short[uid] = (since, polls + 1)
        log.info("PM conversation with uid %s: the board counts %d messages, %d were read; read again next poll",
                 uid, count, read)
        if polls + 1 >= self.gap_report_polls and now - since >= self.gap_report_after \
                and uid not in self._gaps_told:
            self._gaps_told.add(uid)
            self._gaps.append(PmGap(conv.other_name or f"uid:{uid}", count, read, since))
            log.warning("PM conversation with %s (uid %s): the board counts %d messages, %d were read, since %s",
                        conv.other_name, uid, count, read, since.isoformat(timespec="seconds"))
        return False

    def pm_gaps(self) -> list[PmGap]:
        """The conversations that stayed short past the bound, each handed out once."""
        gaps, self._gaps = self._gaps, []
        return gaps

    def _past_the_end(self, touid: int, got: dict[int, parse.PmMessage]) -> None:
        """The X3.5 mobile API's default last page can lag behind new messages (issue 27):
        when the board counts more messages than were ever read, page on past the end,
        which the board answers with the whole conversation, until the count matches."""
        known = self._conv_ids.setdefault(touid, set())
        known.update(got)
        count, pages = self._conv_count.get(touid, (0, 1))
        tries = 0
        while count > len(known) and tries < 3:
            tries += 1
            pages += 1
            msgs, _, _ = self._conversation_page(touid, pages)
            new = [m for m in msgs if m.pmid not in known]
            for m in msgs:
                got.setdefault(m.pmid, m)
            known.update(got)
            count, _ = self._conv_count.get(touid, (count, pages))
            if not new:
                break

    def _conversation_page(self, touid: int, page: int | None) -> tuple[list[parse.PmMessage], int, int]:
        extra: dict[str, Any] = {} if page is None else {"page": page}
        if self.client.mobile:
            reply = self.client.api_get("mypm", subop="view", touid=touid, perpage=100, **extra)
            self._fail_unless_json(reply, "a PM conversation")
            msgs, current, pages = parse.api_pm_view(reply.answer.variables, self.now(), self.client.tz)
            self._conv_count[touid] = (parse.api_pm_count(reply.answer.variables), pages)
            if page is None and current < pages and msgs:
                # some versions default to the first page; go to the last one
                return self._conversation_page(touid, pages)
            return msgs, current, pages
        reply = self.client.get("home.php", {"mod": "space", "do": "pm", "subop": "view", "touid": touid, **extra})
        msgs, current, pages = parse.pm_view(reply.text, self.client.tz, self.client.uid, self.account)
        self._conv_count[touid] = (parse.pm_view_count(reply.text), pages)
        if page is None and pages > 1 and current < pages:
            return self._conversation_page(touid, pages)
        return msgs, current, pages

    def _fail_unless_json(self, reply: Reply, what: str) -> None:
        a = reply.answer
        if a.kind != "json" or a.error:
            raise ForumError(f"the mobile API did not answer for {what}: {a.error or a.message or reply.text[:120]!r}")
        if a.key and not a.key.endswith("succeed") and a.variables.get("list") is None:
            raise ForumError(f"the board refused {what}: {a.message or a.key}")

    # ---- threads ------------------------------------------------------------------------------

    def read_thread(self, thread_id: str, after_id: int | None) -> list[ForumPost]:
        self._ensure()
        tid = int(thread_id)
        now = self.now()
        page = self._start_page(tid, after_id)
        posts: dict[int, DiscuzPost] = {}
        while True:
            tp = self._thread_page(tid, page)
            for raw in tp.posts:
                self._positions.setdefault(tid, {})[raw.pid] = raw.position
                self._post_page.setdefault(tid, {})[raw.pid] = page
                if after_id is None or raw.pid > after_id:
                    posts[raw.pid] = self._post(tid, raw, now)
            if tp.per_page:
                self._ppp[tid] = tp.per_page
            elif tp.pages > page and tp.posts:
                self._ppp[tid] = len(tp.posts)
            elif page > 1 and tp.posts and tp.posts[0].position > 1:
                self._ppp[tid] = (tp.posts[0].position - 1) // (page - 1)
            if page >= tp.pages or not tp.posts:
                break
            page += 1
        return sorted(posts.values(), key=lambda p: (p.position, p.id))

    def _post(self, tid: int, raw: parse.RawPost, now: datetime) -> DiscuzPost:
        edited_at = None
        if raw.body.edited_at_text:
            interval = parse.board_time(raw.body.edited_at_text, self.client.tz)
            edited_at = interval[0] if interval else None
        return DiscuzPost(raw.pid, str(tid), raw.author, parse.estimate(raw.posted, now), raw.body.text,
                          edited=raw.body.edited_by is not None, position=raw.position, original_text=None,
                          author_uid=raw.author_uid, full_text=raw.body.full_text, edited_by=raw.body.edited_by,
                          edited_at=edited_at)

    def _start_page(self, tid: int, after_id: int | None) -> int:
        if after_id is None:
            return 1
        known = self._post_page.get(tid, {}).get(after_id)
        if known is not None:  # a post stays on the page it was read on (a one-page thread too)
            return known
        position = self._positions.get(tid, {}).get(after_id)
        ppp = self._ppp.get(tid) or (self.api_ppp if self.thread_api else None)
        if position and ppp:
            return (position - 1) // ppp + 1
        if self.thread_api:
            return 1
        reply = self.client.request("GET", "forum.php", {"mod": "redirect", "goto": "findpost", "ptid": tid,
                                                         "pid": after_id})
        location = reply.headers.get("location", "")
        if reply.status in (301, 302, 303) and location:
            return parse.redirect_pid_page(location) or 1
        return 1

    def _thread_page(self, tid: int, page: int) -> parse.ThreadPage:
        if self.thread_api:
            reply = self.client.api_get("viewthread", tid=tid, page=page, ppp=self.api_ppp)
            a = reply.answer
            if a.kind != "json" or a.error or not a.variables.get("thread"):
                raise ForumError(f"thread {tid}: {a.message or a.error or 'no answer from the mobile API'}")
            tp = parse.api_thread(a.variables)
            tp.page = tp.page or page
            return tp
        reply = self.client.get("forum.php", {"mod": "viewthread", "tid": tid, "extra": "", "page": page})
        if reply.answer.kind == "page" and reply.answer.message and not re.search(r'id="pid\d+"', reply.text):
            raise ForumError(f"thread {tid}: {reply.answer.message}")
        if reply.answer.kind == "error":
            raise ForumError(f"thread {tid}: {reply.answer.message}")
        digest = pages.thread_digest(reply.text)
        cached = self._parsed.get((tid, page))
        if digest is not None and cached is not None and cached[0] == digest:
            return cached[1]  # nothing new on the page: not parsed again
        tp = parse.thread_page(reply.text, self.client.tz)
        if digest is not None:
            self._parsed[(tid, page)] = (digest, tp)
        return tp

    # ---- the whole board ------------------------------------------------------------------------

    def board_posts(self, after_id: int | None) -> list[ForumPost]:
        """Every post in the threads of the board `fid` with pid > after_id, in pid order.

        The board list (newest last post first, 置顶 threads ahead) is read page by page; a
        thread is read again only when what the list shows of its last post (replies, time,
        poster) changed, and then with `read_thread` from the last post seen in it.  Paging
        stops at the first thread not 置顶 that is unchanged, or that holds nothing above
        `after_id`: every thread listed after it is older still.  Posts already read are kept
        (those above the caller's mark only)."""
        self._ensure()
        if self.fid is None:
            raise ForumError("no board to read: set `fid` (the game board's forum id) in the config")
        floor = after_id or 0
        cache = self._board
        if cache is None or cache.floor > floor:  # a mark older than the cache: start afresh
            cache = self._board = _Board(floor)
        for row in self._board_rows():
            entry = cache.threads.get(row.tid)
            if entry is not None and entry.sig == row.last_post:
                if row.sticky:
                    continue
                break
            entry = entry or _BoardThread()
            # from a pid of this thread only: `findpost` with another thread's pid finds a wrong page
            posts = self.read_thread(str(row.tid), entry.read_upto or None)
            fresh = [p for p in posts if p.id > entry.read_upto]
            entry.posts += [p for p in fresh if p.id > cache.floor]
            entry.read_upto = max([entry.read_upto, *(p.id for p in fresh)])
            entry.sig = row.last_post
            cache.threads[row.tid] = entry
            if not row.sticky and entry.read_upto <= cache.floor:
                break  # its last post is older than the mark, and so is every later thread's
        cache.floor = floor
        out: list[ForumPost] = []
        for entry in cache.threads.values():
            entry.posts = [p for p in entry.posts if p.id > floor]
            out += entry.posts
        return sorted(out, key=lambda p: p.id)

    def _board_rows(self) -> Iterator[parse.ThreadRow]:
        """The board's threads, page after page as the caller goes on, by last post."""
        return new_rows(self._board_page)

    def _board_page(self, page: int) -> tuple[list[parse.ThreadRow], int]:
        if self.client.mobile:
            reply = self.client.api_get("forumdisplay", fid=self.fid, page=page, orderby="lastpost")
            a = reply.answer
            if a.kind != "json" or a.error:
                raise ForumError(f"the mobile API did not answer for the board list: "
                                 f"{a.error or a.message or reply.text[:120]!r}")
            if a.variables.get("forum_threadlist") is None and a.key and not a.key.endswith("succeed"):
                raise ForumError(f"the board refused its thread list (fid={self.fid}): {a.message or a.key}")
            _, pages = parse.api_forum_pages(a.variables)
            return parse.api_forum_threads(a.variables), pages
        reply = self.client.get("forum.php", {"mod": "forumdisplay", "fid": self.fid, "orderby": "lastpost",
                                              "page": page})
        a = reply.answer
        if a.kind == "error" or (a.kind == "page" and a.message and not a.ok
                                 and not re.search(r'id="(?:normal|stick)thread_\d+"', reply.text)):
            raise ForumError(f"the board refused its thread list (fid={self.fid}): {a.message}")
        rows = parse.forum_threads(reply.text, self.client.tz)
        _, pages = parse.forum_pages(reply.text)
        return rows, pages

    # ---- the game board and the accounts (`tianshen forum check`) ----------------------------

    def check_board(self) -> str:
        """The board `fid` exists and the GM can read it: its name."""
        self._ensure()
        if self.fid is None:
            raise ForumError("no game board: set `fid` (the number after fid= in the board's address)")
        fix = "set `fid` to the number after fid= in the game board's address (forum.php?mod=forumdisplay&fid=…)"
        if self.client.mobile:
            a = self.client.api_get("forumdisplay", fid=self.fid, page=1).answer
            forum = a.variables.get("forum") if a.kind == "json" else None
            if a.kind == "json" and not a.error and isinstance(forum, dict) and forum.get("name"):
                return f"{forum['name']} (fid {self.fid})"
            raise ForumError(f"the board has no forum fid={self.fid} the GM can read "
                             f"({a.key or a.error or a.message or 'no forum in the answer'}); {fix}")
        reply = self.client.get("forum.php", {"mod": "forumdisplay", "fid": self.fid})
        a = reply.answer
        m = re.search(r"<title>\s*(.*?)\s+-\s", reply.text[:5000], re.S)
        if a.kind == "error" or (a.kind == "page" and a.message and not a.ok) or m is None:
            detail = a.message or "no board page"
            raise ForumError(f"the board has no forum fid={self.fid} the GM can read ({detail}); {fix}")
        return f"{m.group(1).strip()} (fid {self.fid})"

    def user_exists(self, name: str) -> bool:
        """Asks the board for the user's space by name (`home.php?mod=space&username=`, or
        the mobile API's `profile`): Discuz answers `space_does_not_exist` for no such user."""
        self._ensure()
        if self.client.mobile:
            a = self.client.api_get("profile", username=name).answer
            if a.kind == "json" and a.key.split("//")[0] == "space_does_not_exist":
                return False
            space = a.variables.get("space") if a.kind == "json" else None
            if isinstance(space, dict) and str(space.get("username", "")).casefold() == name.casefold():
                return True
            raise ForumError(f"looking up the user {name!r}: the mobile API answered "
                             f"{a.key or a.error or a.message or 'no profile'!r}")
        query = urlencode({"mod": "space", "username": name, "do": "profile"},
                          encoding="gbk" if self.client.charset == "gbk" else "utf-8")
        reply = self.client.get(f"home.php?{query}")
        a = reply.answer
        if a.kind == "page" and a.message and not a.ok:
            if "不存在" in a.message:
                return False
            raise ForumError(f"looking up the user {name!r}: the board answered {a.message!r}")
        title = re.search(r"<title>\s*(.*?)\s*</title>", reply.text[:5000], re.S)
        if a.kind == "page" and title and title.group(1).casefold().startswith(f"{name}的".casefold()):  # 「player1的个人资料 - …」
            return True
        raise ForumError(f"looking up the user {name!r}: the board's answer is no profile page")

    # ---- writing ------------------------------------------------------------------------------

    def create_thread(self, title: str, body: str, key: str) -> str:
        self._ensure()
        if self.fid is None:
            raise ForumError("no board to open threads on: set `fid` (the game board's forum id) in the config")
        result = self._write(key, lambda: self._send_thread(title, body),
                             lambda since: self._find_thread(title, since, body))
        return str(result)

    def reply(self, thread_id: str, body: str, key: str) -> int:
        self._ensure()
        tid = int(thread_id)
        return int(self._write(key, lambda: self._send_reply(tid, body),
                               lambda since: self._find_reply(tid, body, since)))

    def send_pm(self, to: str, subject: str, body: str, key: str) -> None:
        self._ensure()
        message = _pm_message(subject, body)
        self._write(key, lambda: self._send_pm(to, message), lambda since: self._find_pm(to, message, since))

    def _look_back(self, since: datetime) -> datetime:
        return since - timedelta(seconds=60)

    def _judge(self, reply: Reply, what: str) -> _Outcome:
        a = reply.answer
        text = a.message
        if a.kind == "json":
            if a.error:
                raise ForumError(f"{what}: the mobile API answered {a.error!r}")
            if a.key in SUCCESS_KEYS or a.key.endswith("_succeed"):
                return _Outcome("ok", a.variables)
            if a.key in FLOOD_KEYS:
                return _Outcome("flood", wait_s=_seconds(text) or 0)  # X3.4 says 「…少于 15 秒」, X3.5 only a key
            if "seccode" in a.key or "secqaa" in a.key:
                raise ForumError(CAPTCHA_POST.format(detail=f"{a.key}: {text}"))
            if "tooshort" in a.key or ("小于" in text and "字符" in text):
                return _Outcome("short", need=_number(text) or 10)
            if a.key.split("//")[0] in PM_REFUSED_KEYS:
                raise Undeliverable(f"{what}: the board refused it for good ({a.key}: {text})")
            raise ForumError(f"{what}: the board refused ({a.key}: {text})")
        if a.kind == "error":
            raise ForumError(f"{what}: Discuz! System Error: {text}")
        if a.ok:
            return _Outcome("ok", a)
        if any(t in text for t in FLOOD_TEXT):
            return _Outcome("flood", wait_s=float(a.params.get("floodctrl") or _seconds(text) or 0))
        if "验证码" in text or "验证问答" in text:
            raise ForumError(CAPTCHA_POST.format(detail=text))
        if "小于" in text and "字符" in text:
            if a.params.get("maxpostsize", "").isdigit():
                self.max_post_chars = int(a.params["maxpostsize"])
            return _Outcome("short", need=int(a.params.get("minpostsize") or _number(text) or 10))
        if "超过" in text and "字符" in text:
            raise ForumError(f"{what}: the post is longer than the board allows ({text})")
        if any(t in text for t in PM_REFUSED_TEXT):
            raise Undeliverable(f"{what}: the board refused it for good ({text})")
        return _Outcome("unknown", text)

    def _refused(self, outcome: _Outcome, what: str, reply: Reply) -> _Outcome:
        if outcome.kind == "unknown":
            detail = outcome.value or reply.text[:160]
            raise ForumError(f"{what}: the board refused ({detail})")
        return outcome

    def _send_reply(self, tid: int, body: str) -> _Outcome:
        message = self._pad(body)
        what = f"reply in thread {tid}"
        if self.client.mobile:
            reply = self.client.post(API, {"version": 4, "module": "sendreply", "fid": self.fid or "", "tid": tid,
                                           "replysubmit": "yes"}, {"message": message, "usesig": "1", **NO_MARKUP})
            out = self._refused(self._judge(reply, what), what, reply)
            if out.kind == "ok":
                out.value = int(out.value.get("pid") or 0) or self._lookup_pid(tid, body)
            return out
        reply = self.client.post("forum.php", {"mod": "post", "action": "reply", "fid": self.fid or "", "tid": tid,
                                               "extra": "", "replysubmit": "yes", "infloat": "yes",
                                               "handlekey": "fastpost", "inajax": 1},
                                 {"message": message, "posttime": str(int(self.now().timestamp())), "usesig": "1",
                                  "subject": "", **NO_MARKUP})
        out = self._refused(self._judge(reply, what), what, reply)
        if out.kind == "ok":
            a = out.value
            pid = a.params.get("pid") or str(parse.location_ids(a.url).get("pid") or "")
            out.value = int(pid) if pid.isdigit() else self._lookup_pid(tid, body)
        return out

    def _lookup_pid(self, tid: int, body: str) -> int:
        found = self._find_reply(tid, body, self.now() - timedelta(minutes=2))
        if found is None:
            raise ForumError(f"the board accepted the reply in thread {tid} but its post id is not to be found")
        return int(found)

    def _send_thread(self, title: str, body: str) -> _Outcome:
        message = self._pad(body)
        what = f"new thread on fid {self.fid}"
        if self.client.mobile:
            reply = self.client.post(API, {"version": 4, "module": "newthread", "fid": self.fid, "topicsubmit": "yes"},
                                     {"subject": title, "message": message, **NO_MARKUP})
            out = self._refused(self._judge(reply, what), what, reply)
            if out.kind == "ok":
                out.value = int(out.value.get("tid") or 0)
            return out
        reply = self.client.post("forum.php", {"mod": "post", "action": "newthread", "fid": self.fid, "extra": "",
                                               "topicsubmit": "yes"},
                                 {"posttime": str(int(self.now().timestamp())), "wysiwyg": "0", "subject": title,
                                  "message": message, "usesig": "1", "allownoticeauthor": "1", "save": "",
                                  **NO_MARKUP})
        location = reply.headers.get("location", "")
        if reply.status in (301, 302, 303) and "tid=" in location:
            return _Outcome("ok", parse.location_ids(location)["tid"])
        out = self._refused(self._judge(reply, what), what, reply)
        if out.kind == "ok":
            found = self._find_thread(title, self.now() - timedelta(minutes=2), body)
            if found is None:
                raise ForumError("the board accepted the new thread but it is not in the board's list")
            out.value = found
        return out

    def _send_pm(self, to: str, message: str) -> _Outcome:
        touid = to[4:] if to.startswith("uid:") else ""
        who = {} if touid else {"username": to}
        what = f"PM to {to}"
        if self.client.mobile:
            params: dict[str, Any] = {"version": 4, "module": "sendpm", "pmsubmit": "yes"}
            if touid:
                params["touid"] = touid
            reply = self.client.post(API, params, {**who, "message": message, **NO_MARKUP})
            out = self._refused(self._judge(reply, what), what, reply)
            if out.kind == "ok":
                out.value = int(out.value.get("pmid") or 0) or None
            return out
        reply = self.client.post("home.php", {"mod": "spacecp", "ac": "pm", "op": "send", "touid": touid or 0,
                                              "pmid": 0, "inajax": 1},
                                 {"pmsubmit": "true", **who, "message": message, "handlekey": "pmform_0", **NO_MARKUP})
        out = self._refused(self._judge(reply, what), what, reply)
        if out.kind == "ok":
            out.value = None
        return out

    # ---- looking on the board for a send whose answer was lost --------------------------------------

    def find_written(self, write: Write) -> str | None:
        """Is this write on the board (see `forum.base.Forum.find_written`)?  Looks at the GM's
        posts in the thread since `write.since` (every page back to then), the board list for a
        GM thread of that title with that opening post, or the PM conversation with `write.to`."""
        self._ensure()
        since = look_back_from(write.since or self.now() - self.recheck_window)  # a whole minute: times are to the minute
        if write.kind == "thread":
            if self.fid is None:
                return None
            tid = self._find_thread(write.title, since, write.body)
            return None if tid is None else str(tid)
        if write.kind == "reply":
            pid = self._find_reply(int(write.thread_id), write.body, since, deep=True, known=write.known)
            return None if pid is None else str(pid)
        if write.kind == "pm":
            pmid = self._find_pm(write.to, _pm_message(write.subject, write.body), since, known=write.known)
            return None if pmid is None else (str(pmid) if pmid else "pm")
        raise ValueError(f"unknown write kind {write.kind!r}")

    def _find_reply(self, tid: int, body: str, since: datetime, deep: bool = False, known: int = 0) -> int | None:
        """The newest GM post with this text since `since`, when there are more of them than
        the `known` other writes of the same text (a receipt is often written twice)."""
        want = self._as_shown(body)
        found = sorted(post.id for post in (self._posts_since(tid, since) if deep else self._last_posts(tid))
                       if (post.author_uid == self.client.uid or post.author == self.account)
                       and post.posted_at >= since and parse.same_text(post.full_text, want))
        return found[-1] if len(found) > known else None

    def _last_posts(self, tid: int) -> list[DiscuzPost]:
        now = self.now()
        first = self._thread_page(tid, 1)
        pages = [first] if first.pages <= 1 else [self._thread_page(tid, first.pages)]
        if first.pages > 1 and len(pages[0].posts) < 3:
            pages.insert(0, self._thread_page(tid, first.pages - 1))
        return [self._post(tid, raw, now) for tp in pages for raw in tp.posts]

    def _as_shown(self, body: str) -> str:
        """What the board shows of a body we send: stored in its charset, tags dropped."""
        return parse.bbcode_text(storable(body, self.client.charset or "utf-8"))

    def _posts_since(self, tid: int, since: datetime) -> list[DiscuzPost]:
        """The thread's posts from the last page back to the first page that starts before `since`."""
        now = self.now()
        first = self._thread_page(tid, 1)
        pages = [first]
        page = first.pages
        while page > 1:
            tp = self._thread_page(tid, page)
            pages.append(tp)
            if not tp.posts or tp.posts[0].posted[1] < since:
                break
            page -= 1
        return [self._post(tid, raw, now) for tp in pages for raw in tp.posts]

    def _find_thread(self, title: str, since: datetime, body: str | None = None) -> int | None:
        if self.client.mobile:
            reply = self.client.api_get("forumdisplay", fid=self.fid, page=1)
            rows = parse.api_forum_threads(reply.answer.variables)
        else:
            reply = self.client.get("forum.php", {"mod": "forumdisplay", "fid": self.fid, "orderby": "dateline"})
            rows = parse.forum_threads(reply.text, self.client.tz)
        for row in rows:
            mine = row.author_uid == self.client.uid or row.author == self.account
            if mine and parse.same_text(row.subject, title) and (row.created is None or row.created[1] >= since):
                first = self._thread_page(row.tid, 1).posts  # a title is no proof (issue 27): the opening post
                if first and first[0].posted[1] >= since and (
                        body is None or parse.same_text(first[0].body.full_text, self._as_shown(body))):
                    return row.tid
        return None

    def _find_pm(self, to: str, message: str, since: datetime, known: int = 0) -> int | None:
        want = self._as_shown(message)
        touid = int(to[4:]) if to.startswith("uid:") else None
        if touid is None:
            for conv in self._conversations():
                if conv.other_name == to:
                    touid = conv.other_uid
                    break
        if touid is None:
            return None
        msgs, _, _ = self._conversation_page(touid, None)
        found = [m.pmid for m in msgs if (m.sender_uid == self.client.uid or m.sender == self.account)
                 and parse.same_text(m.text, want) and (m.when is None or m.when[1] >= since)]
        return found[-1] if len(found) > known else None


def _pm_message(subject: str, body: str) -> str:
    """A Discuz PM has no subject of its own: it goes first, in bold."""
    return (f"[b]{escape_bbcode(subject)}[/b]\n" if subject else "") + body


def _seconds(text: str) -> int | None:
    """The interval a flood refusal names (「间隔少于 15 秒」), not any digit (`message_can_not_send_2`)."""
    m = re.search(r"(\d+)\s*秒", text or "")
    return int(m.group(1)) if m else None


def _number(text: str) -> int | None:
    m = re.search(r"(\d+)", text or "")
    return int(m.group(1)) if m else None


