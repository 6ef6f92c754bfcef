"""Reading PHPWind 9 pages and answers: pure functions over decoded text, no HTTP.

Written against the responses of a stock PHPWind 9.1 board (UTF-8) recorded in
`shared/forums/phpwind9` (its README describes every page).  Times on the pages are in the
site's zone (`site.time.timezone`, stock UTC+8) and to the minute only; the functions
return the interval `(lo, hi)` a shown minute stands for, as aware UTC datetimes, and the
adapter picks the best estimate inside it (`discuz.parse.estimate`).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from tianshen.forum.discuz.parse import _flatten, _lines, _post_element

Interval = tuple[datetime, datetime]
MINUTE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})")
EDIT_LOG = re.compile(r"\[(.+?)于(\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2})编辑了帖子\]")
FLOOR_NAMES = {"楼主": 0, "沙发": 1, "板凳": 2, "地板": 3}


def minute(text: str, tz: timezone) -> Interval | None:
    """「2026-12-06 09:39」 in site time: the minute it stands for, in UTC."""
    m = MINUTE.search(text or "")
    if m is None:
        return None
    y, mo, d, h, mi = (int(g) for g in m.groups())
    lo = datetime(y, mo, d, h, mi, tzinfo=tz).astimezone(UTC)
    return lo, lo + timedelta(seconds=59, microseconds=999999)


# ---- answers ---------------------------------------------------------------------------------


@dataclass
class Answer:
    """What PHPWind answered: its JSON (`state`, `message`, `referer`), or the message of an
    HTML 成功提示/错误提示 page."""

    kind: str  # "json" | "page" | "empty"
    ok: bool = False
    message: str = ""
    referer: str = ""  # url-decoded
    data: Any = None


def read_answer(text: str) -> Answer:
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except ValueError:
            return Answer("page", message=stripped[:200])
        if isinstance(obj, dict) and "state" in obj:
            msg = obj.get("message") or []
            message = "".join(str(m) for m in msg) if isinstance(msg, list) else str(msg)
            return Answer("json", obj.get("state") == "success", message.strip(), unquote(obj.get("referer") or ""),
                          obj.get("data"))
    if not stripped:
        return Answer("empty")
    m = re.search(r'<li id="J_html_error">(.*?)</li>', text, re.S)
    if m:  # the 成功提示 / 错误提示 page (no ajax headers): its title says which, its first link where to
        ok = "<title>成功提示" in text[:3000]
        back = re.search(r'<div class="error_return"><a href="([^"]+)"', text)
        referer = html.unescape(back.group(1)) if ok and back else ""
        return Answer("page", ok, _strip_tags(m.group(1)), referer)
    return Answer("page", True)


def _strip_tags(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def url_ids(url: str) -> dict[str, int]:
    """The numbers in a URL's query and its fragment (`#12` → `{"#": 12}`)."""
    parts = urlsplit(url)
    out = {k: int(v[0]) for k, v in parse_qs(parts.query).items() if v and v[0].isdigit()}
    if parts.fragment.isdigit():
        out["#"] = int(parts.fragment)
    return out


# ---- the page frame: who is logged in, the csrf token, the login form ------------------------------


def page_uid(text: str) -> int | None:
    """The logged-in uid of a full page (`U_ID : parseInt('2')`); 0 for a guest, None when
    the page has no frame (a fragment, JSON)."""
    m = re.search(r"U_ID\s*:\s*parseInt\('(\d*)'\)", text[:20000])
    return None if m is None else int(m.group(1) or 0)


def page_user(text: str) -> str | None:
    m = re.search(r"U_NAME\s*:\s*'([^']*)'", text[:20000])
    return m.group(1) if m else None


def csrf_token(text: str) -> str | None:
    m = re.search(r'name="csrf_token" value="([0-9a-fA-F]+)"', text)
    return m.group(1) if m else None


@dataclass
class LoginForm:
    action: str
    captcha: bool
    fields: dict[str, str] = field(default_factory=dict)


def login_form(text: str) -> LoginForm | None:
    doc = LexborHTMLParser(text)
    form = doc.css_first("form#J_u_login_form")
    if form is None:
        return None
    fields = {}
    for node in form.css("input"):
        name = node.attributes.get("name")
        if name and node.attributes.get("type") in ("hidden", None, "text") and name not in ("username", "code"):
            fields[name] = node.attributes.get("value") or ""
    captcha = form.css_first('input[name="code"]') is not None
    return LoginForm(form.attributes.get("action") or "", captcha, fields)


# ---- thread pages ----------------------------------------------------------------------------


@dataclass
class RawPost:
    pid: int  # 0 for the opening post (its anchor)
    floor: int  # 0 = the opening post
    author: str
    author_uid: int
    posted: Interval
    text: str  # without quotes
    full_text: str  # with quoted text
    edited_by: str | None = None
    edited_at: Interval | None = None
    quoted_pids: tuple[int, ...] = ()


@dataclass
class ThreadPage:
    title: str
    page: int
    pages: int
    posts: list[RawPost]
    fid: int | None = None


def _page_numbers(doc: LexborHTMLParser) -> tuple[int, int]:
    current, last = 1, 1
    for pages in doc.css("div.pages"):
        strong = pages.css_first("strong")
        if strong is not None and strong.text(strip=True).isdigit():
            current = int(strong.text(strip=True))
            last = max(last, current)
        for a in pages.css("a"):
            m = re.search(r"[?&]page=(\d+)", a.attributes.get("href") or "")
            if m:
                last = max(last, int(m.group(1)))
    return current, last


def _floor_number(label: str) -> int:
    label = label.replace("#", "").strip()
    if label in FLOOR_NAMES:
        return FLOOR_NAMES[label]
    m = re.match(r"(\d+)楼", label)
    return int(m.group(1)) if m else -1


def _body(node: LexborNode | None) -> tuple[str, str, tuple[int, ...]]:
    if node is None:
        return "", "", ()
    text: list[str] = []
    full: list[str] = []
    _flatten(node, text, full, [], _post_element)
    quoted = tuple(int(m) for m in re.findall(r"c=read&(?:amp;)?a=jump&(?:amp;)?pid=(\d+)", node.html or ""))
    return _lines(text), _lines(full), quoted


def thread_page(text: str, tz: timezone) -> ThreadPage | None:
    """The floors of a `read.php` page; None when the page holds no thread."""
    doc = LexborHTMLParser(text)
    floors = doc.css("div.J_read_floor")
    title_node = doc.css_first("h1#J_post_title")
    if not floors and title_node is None:
        return None
    posts = []
    for floor in floors:
        m = re.fullmatch(r"read_(\d+)", floor.attributes.get("id") or "")
        if m is None:
            continue
        pid = int(m.group(1))
        name = floor.css_first("div.name a.J_user_card_show")
        author = name.text(strip=True) if name is not None else ""
        uid = int(name.attributes.get("data-uid") or 0) if name is not None else 0
        label = floor.css_first("span.J_floor_copy")
        floor_no = _floor_number(label.text(strip=True)) if label is not None else -1
        when = floor.css_first("div.floor_top_tips span.fl")
        posted = minute(when.text() if when is not None else "", tz)
        if posted is None:
            raise ValueError(f"floor {pid}: no post time")
        body, full, quoted = _body(floor.css_first("div.editor_content"))
        edited_by = edited_at = None
        log = floor.css_first("div.edit_log")
        if log is not None:
            e = EDIT_LOG.search(log.text())
            if e:
                edited_by, edited_at = e.group(1), minute(e.group(2), tz)
        posts.append(RawPost(pid, floor_no, author, uid, posted, body, full, edited_by, edited_at, quoted))
    current, last = _page_numbers(doc)
    fid = None
    back = re.search(r"index\.php\?c=thread&(?:amp;)?fid=(\d+)", text)
    if back:
        fid = int(back.group(1))
    return ThreadPage(title_node.text(strip=True) if title_node is not None else "", current, last, posts, fid)


# ---- the board list --------------------------------------------------------------------------


@dataclass
class ThreadRow:
    tid: int
    title: str
    author: str
    author_uid: int
    replies: int
    last_post: str  # what the list shows of the last post (poster, time, replies): changes with it


def board_threads(text: str) -> tuple[list[ThreadRow], int, int]:
    """The thread rows of `index.php?c=thread&fid=F`, and (page, pages)."""
    doc = LexborHTMLParser(text)
    rows = []
    for td in doc.css("td.subject"):
        link = td.css_first("a.st")
        if link is None:
            continue
        m = re.search(r"tid=(\d+)", link.attributes.get("href") or "")
        if m is None:
            continue
        users = td.css("p.info a.J_user_card_show")
        info = td.css_first("p.info")
        row = td.parent
        num = row.css_first("td.num em") if row is not None else None
        replies = int(num.text(strip=True)) if num is not None and num.text(strip=True).isdigit() else 0
        author = users[0].text(strip=True) if users else ""
        uid = int(users[0].attributes.get("data-uid") or 0) if users else 0
        last = re.sub(r"\s+", " ", info.text() if info is not None else "").strip()
        rows.append(ThreadRow(int(m.group(1)), link.attributes.get("title") or link.text(strip=True), author, uid,
                              replies, f"{replies}|{last}"))
    page, pages = _page_numbers(doc)
    return rows, page, pages


def forum_names(data: Any) -> dict[int, str]:
    """The boards of `index.php?c=forum&a=list` (ajax `data.forum`): fid -> name."""
    out: dict[int, str] = {}
    if isinstance(data, dict):
        for rows in (data.get("forum") or {}).values():
            for row in rows or []:
                if isinstance(row, list) and len(row) >= 2 and str(row[0]).isdigit():
                    out[int(row[0])] = str(row[1])
    return out


# ---- PMs -------------------------------------------------------------------------------------


@dataclass
class Dialog:
    dialog_id: int
    other_uid: int
    other_name: str
    unread: int
    count: int  # 共N条
    last_text: str  # the last message as the list shows it (「发给 X：…」 for the GM's own)


def pm_inbox(text: str) -> tuple[list[Dialog], int, int]:
    """The dialog list of `index.php?m=message&c=message` (newest first), and (page, pages)."""
    doc = LexborHTMLParser(text)
    out = []
    for item in doc.css("div.J_notice_item"):
        title = item.css_first("div.title")
        name = title.css_first("a.name") if title is not None else None
        link = None
        for a in item.css("a"):
            if "a=dialog&dialogid=" in (a.attributes.get("href") or ""):
                link = a
                break
        if name is None or link is None:
            continue
        dialog_id = url_ids(link.attributes.get("href") or "").get("dialogid", 0)
        unread_node = item.css_first("a.J_unread span")
        unread = int(unread_node.text(strip=True)) if unread_node is not None and \
            unread_node.text(strip=True).isdigit() else 0
        num = item.css_first("span.num")
        count = int(re.sub(r"\D", "", num.text()) or 0) if num is not None else 0
        last = re.sub(r"\s+", " ", title.text() if title is not None else "").strip()
        last = re.sub(r"\(\d+条未读\)$", "", last)  # the unread count is not the text: it goes on opening
        out.append(Dialog(dialog_id, int(name.attributes.get("data-uid") or 0), name.text(strip=True), unread, count,
                          last))
    page, pages = _page_numbers(doc)
    return out, page, pages


@dataclass
class PmMessage:
    message_id: int
    sender: str  # 「我」 for the page owner's own
    sender_uid: int
    text: str
    when: Interval | None
    mine: bool


def _pm_text(title: LexborNode) -> str:
    """The text after 「name：」, its raw line breaks kept (PHPWind does not turn them into <br>)."""
    parts: list[str] = []
    child = title.first_child
    seen_name = False
    while child is not None:
        if child.tag == "a" and not seen_name:
            seen_name = True
        elif child.tag == "-text":
            parts.append(child.text_content or "")
        elif child.tag == "br":
            parts.append("\n")
        elif child.tag and child.tag[0] != "-":
            parts.append(child.text() or "")
        child = child.next
    text = "".join(parts).replace("\r", "").replace("\xa0", " ")
    text = re.sub(r"^\s*[：:]", "", text, count=1)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def pm_dialog(text: str, tz: timezone) -> tuple[list[PmMessage], int, int] | None:
    """The messages of one dialog page (newest first, as shown), and (page, pages); None when
    the page holds no dialog (「非法请求」)."""
    doc = LexborHTMLParser(text)
    box = doc.css_first("#J_posts_list")
    if box is None:
        return None
    out = []
    for dl in box.css("dl"):
        title = dl.css_first("div.title")
        who = title.css_first("a") if title is not None else None
        link = dl.css_first("a.J_msg_dialog_del")
        if title is None or who is None or link is None:
            continue
        mid = url_ids(link.attributes.get("href") or "").get("messageid")
        if mid is None:
            continue
        time_node = dl.css_first("span.time")
        when = minute(time_node.attributes.get("title") or "", tz) if time_node is not None else None
        mine = "my" in (dl.attributes.get("class") or "").split()
        out.append(PmMessage(mid, who.text(strip=True), int(who.attributes.get("data-uid") or 0), _pm_text(title),
                             when, mine))
    page, pages = _page_numbers(doc)
    return out, page, pages


def profile_uid(text: str) -> int | None:
    """The uid of a `m=space` page (`…&uid=N` in its space links); None for 「页面不存在」."""
    if '<li id="J_html_error">' in text:
        return None
    m = re.search(r"m=space&(?:amp;)?c=\w+&(?:amp;)?uid=(\d+)", text)
    return int(m.group(1)) if m else None
