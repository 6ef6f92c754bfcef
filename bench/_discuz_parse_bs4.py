"""FROZEN COPY of `tianshen.forum.discuz.parse` as it was on BeautifulSoup (before issue 15).

Only the parse benchmark (`bench/discuz_parse.py`) and the equality test
(`tests/forums/test_discuz_parse_speed.py`) use it, to compare the selectolax parser with
what the bs4 one gave.  Do not edit; do not import from the service.

The original docstring follows.

Reading Discuz! X pages: pure functions over decoded text, no HTTP.

Everything here was written against the pages recorded from stock Discuz! X3.5 (UTF-8) and
X3.4 (GBK) boards (`shared/forums/discuz-*`).  Times on Discuz pages are in *board time* (the
GM account's time offset, shown in the footer as `GMT+8`); the functions take that offset
and return timezone-aware UTC datetimes.  Where a page shows a time only approximately
(`3 分钟前`, `2026-12-2 21:24`), the functions return the interval `(lo, hi)` it stands for,
and the adapter picks the best estimate inside it.
"""

from __future__ import annotations

import html as htmlmod
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bs4 import BeautifulSoup, Tag

# ---- charsets ----------------------------------------------------------------------------


def normalize_charset(name: str | None) -> str | None:
    if not name:
        return None
    n = name.strip().strip("'\"").lower()
    if n in ("utf-8", "utf8"):
        return "utf-8"
    if n in ("gbk", "gb2312", "gb18030", "cp936", "x-gbk"):
        return "gbk"
    if n in ("big5", "big-5"):
        return "big5"
    return n or None


def header_charset(content_type: str | None) -> str | None:
    m = re.search(r"charset=([\w-]+)", content_type or "", re.I)
    return normalize_charset(m.group(1)) if m else None


def page_charset(text: str) -> str | None:
    """The charset a page declares (`<meta charset>`, `charset = 'gbk'` in its JS, the XML prolog)."""
    for pattern in (r"<meta[^>]+charset=[\"']?([\w-]+)", r"\bcharset\s*=\s*'([\w-]+)'",
                    r"<\?xml[^>]+encoding=\"([\w-]+)\""):
        m = re.search(pattern, text[:4000], re.I)
        if m:
            return normalize_charset(m.group(1))
    return None


def decode(content: bytes, charset: str) -> str:
    """Decode a page.  GBK pages go through gb18030 and never strictly: one stored post in
    the wrong encoding makes a whole GBK page invalid."""
    if charset == "gbk":
        return content.decode("gb18030", errors="replace")
    return content.decode(charset, errors="replace")


def fit_charset(text: str, charset: str) -> str:
    """`text` with the characters the board cannot store replaced.

    A GBK board stores only GBK; anything else (emoji, €) would arrive as mojibake or as a
    literal `&#NNNN;`, so it is replaced by its compatibility form or by `?`."""
    if charset != "gbk":
        return text
    import unicodedata

    out = []
    for ch in text:
        try:
            ch.encode("gbk")
            out.append(ch)
        except UnicodeEncodeError:
            alt = unicodedata.normalize("NFKC", ch)
            try:
                alt.encode("gbk")
                out.append(alt)
            except UnicodeEncodeError:
                out.append("?")
    return "".join(out)


# ---- board time --------------------------------------------------------------------------


def parse_offset(text: str) -> timezone | None:
    """`GMT+8` / `UTC+05:30` / `+08:00` → a fixed offset."""
    m = re.search(r"(?:GMT|UTC)?\s*([+-])(\d{1,2})(?:(?::|\.)(\d{1,2}))?$", text.strip())
    if not m:
        return None
    minutes = int(m.group(2)) * 60
    if m.group(3):
        frac = m.group(3)
        minutes += int(frac) if ":" in text else round(float("0." + frac) * 60)
    sign = -1 if m.group(1) == "-" else 1
    return timezone(sign * timedelta(minutes=minutes))


def footer_offset(text: str) -> timezone | None:
    """The time offset a PC page states in its footer (`GMT+8, 2026-12-2 21:25`)."""
    m = re.search(r"GMT([+-]\d{1,2}(?:\.\d+)?)\s*,\s*\d{4}-", text)
    return parse_offset("GMT" + m.group(1)) if m else None


_ABS = re.compile(r"(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?")
_DATE_ONLY = re.compile(r"^(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?$")
Interval = tuple[datetime, datetime]


def board_time(text: str, tz: timezone) -> Interval | None:
    """An absolute board time (`2026-12-2 21:23:14`, or without seconds) as a UTC interval."""
    text = htmlmod.unescape(text).replace("\xa0", " ").strip()
    m = _ABS.search(text)
    if m:
        y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
        t = datetime(y, mo, d, h, mi, int(m.group(6) or 0), tzinfo=tz).astimezone(UTC)
        return (t, t) if m.group(6) else (t, t + timedelta(seconds=59))
    m = _DATE_ONLY.match(text)
    if m:
        t = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=tz).astimezone(UTC)
        return t, t + timedelta(days=1, seconds=-1)
    return None


def time_interval(text: str, now: datetime, tz: timezone) -> Interval | None:
    """Any time Discuz shows (absolute, or relative to `now` = the answer's server time) as the
    UTC interval it stands for; None when the text is no time at all.

    Relative forms follow `dgmdate(…, 'u')`: `刚刚`, `N 秒前`, `N 分钟前`, `半小时前`,
    `N 小时前` (all today), `昨天 HH:MM`, `前天 HH:MM`, `N 天前` (up to 7 days)."""
    s = htmlmod.unescape(text).replace("\xa0", " ").strip()
    s = re.sub(r"^发表于\s*", "", s)
    absolute = board_time(s, tz)
    if absolute:
        return absolute
    now = now.astimezone(UTC)
    if s == "刚刚":
        return now, now
    m = re.fullmatch(r"(\d+)\s*秒前", s)
    if m:
        t = now - timedelta(seconds=int(m.group(1)))
        return t, t
    m = re.fullmatch(r"(\d+)\s*分钟前", s)
    if m:
        n = int(m.group(1))
        return now - timedelta(seconds=60 * n + 59), now - timedelta(seconds=60 * n)
    if s == "半小时前":
        return now - timedelta(seconds=3600), now - timedelta(seconds=1801)
    m = re.fullmatch(r"(\d+)\s*小时前", s)
    if m:
        n = int(m.group(1))
        return now - timedelta(seconds=3600 * n + 3599), now - timedelta(seconds=3600 * n)
    local_today = now.astimezone(tz).replace(hour=0, minute=0, second=0, microsecond=0)
    m = re.fullmatch(r"(昨天|前天)\s*(\d{1,2}):(\d{2})", s)
    if m:
        day = local_today - timedelta(days=1 if m.group(1) == "昨天" else 2)
        t = day.replace(hour=int(m.group(2)), minute=int(m.group(3))).astimezone(UTC)
        return t, t + timedelta(seconds=59)
    m = re.fullmatch(r"(\d+)\s*天前", s)
    if m:
        n = int(m.group(1))
        start = (local_today - timedelta(days=n)).astimezone(UTC)
        return start, start + timedelta(days=1, seconds=-1)
    return None


def estimate(interval: Interval, seen: datetime) -> datetime:
    """The best single time in `interval`, knowing the message already existed at `seen`.

    The latest time the evidence allows (never after `seen`): a message shown as `22:00`
    (minute precision) and first seen at 22:00:20 was sent by 22:00:20, and a deadline at
    22:00:00 must not count it as sent before."""
    lo, hi = interval
    return max(lo, min(hi, seen))


# ---- messages in answers -------------------------------------------------------------------


@dataclass
class Answer:
    """What a Discuz answer says, whatever its form (mobile JSON, ajax XML, a full page)."""

    kind: str  # "json" | "ajax" | "page" | "error" (System Error page) | "empty" | "other"
    ok: bool = False
    key: str = ""  # the mobile API's messageval, or "" for PC pages
    message: str = ""  # the human text (Chinese on PC pages and on X3.4's API)
    params: dict[str, str] = field(default_factory=dict)  # ajax handler parameters
    url: str = ""  # ajax success URL
    variables: dict[str, Any] = field(default_factory=dict)
    error: str = ""  # the mobile API's top-level "error"


def _ajax(text: str) -> Answer | None:
    m = re.search(r"<root><!\[CDATA\[(.*)\]\]></root>", text, re.S)
    if not m:
        return None
    body = m.group(1)
    sm = re.search(r"succeedhandle_\w*\('([^']*)',\s*'([^']*)',\s*(\{[^}]*\})", body)
    if sm:
        return Answer("ajax", ok=True, url=sm.group(1), message=sm.group(2).strip(), params=_js_params(sm.group(3)))
    em = re.search(r"errorhandle_\w*\('([^']*)',\s*(\{[^}]*\})", body)
    if em:
        return Answer("ajax", message=em.group(1).strip(), params=_js_params(em.group(2)))
    plain = re.sub(r"<script.*?</script>", "", body, flags=re.S)
    return Answer("ajax", message=htmlmod.unescape(re.sub(r"<[^>]+>", "", plain)).strip())


def _js_params(obj: str) -> dict[str, str]:
    return dict(re.findall(r"'(\w+)'\s*:\s*'([^']*)'", obj))


def read_answer(text: str) -> Answer:
    stripped = text.lstrip()
    if not stripped:
        return Answer("empty")
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            return Answer("other", message=stripped[:200])
        if not isinstance(data, dict):
            return Answer("other")
        if "error" in data and "Variables" not in data:
            return Answer("json", error=str(data["error"]), message=str(data["error"]))
        msg = data.get("Message") or {}
        variables = data.get("Variables") or {}
        return Answer("json", key=str(msg.get("messageval") or ""), message=str(msg.get("messagestr") or ""),
                      variables=variables)
    if stripped.startswith("<?xml") and "<root>" in stripped[:200]:
        ajax = _ajax(stripped)
        if ajax:
            return ajax
    if "System Error" in stripped[:3000] or "Discuz! Mobile System Error" in stripped:
        return Answer("error", message=system_error_text(stripped))
    m = re.search(r'<div id="messagetext" class="alert_(\w+)">\s*<p>(.*?)</p>', stripped, re.S)
    if m:
        message = htmlmod.unescape(re.sub(r"<[^>]+>", "", m.group(2))).strip()
        return Answer("page", ok=m.group(1) in ("right",), message=message)
    return Answer("page")


def system_error_text(text: str) -> str:
    soup = BeautifulSoup(re.sub(r"^\s*<\?xml[^>]*>", "", text), "lxml")
    for bad in soup(["style", "script"]):
        bad.decompose()
    flat = re.sub(r"\s+", " ", soup.get_text(" "))
    m = re.search(r"BackTraceID: \w+ (.*?)(?: PHP Debug|$)", flat)
    if m:
        return m.group(1).strip()[:300]
    m = re.search(r"System Error (.*?)(?: PHP Debug|$)", flat)
    return (m.group(1).strip() if m else flat.strip())[:300]


# ---- page facts ------------------------------------------------------------------------------


def formhash(text: str) -> str | None:
    m = re.search(r'name="formhash" value="(\w+)"', text) or re.search(r"formhash=(\w{8})\b", text)
    return m.group(1) if m else None


def js_var(text: str, name: str) -> str | None:
    m = re.search(rf"\b{name}\s*=\s*'([^']*)'", text[:20000])
    return m.group(1) if m else None


def page_uid(text: str) -> int | None:
    value = js_var(text, "discuz_uid")
    return int(value) if value and value.isdigit() else None


@dataclass
class LoginForm:
    action: str
    fields: dict[str, str]
    captcha: bool  # the form demands a captcha (seccode) or a security question (secqaa)


def login_form(text: str) -> LoginForm | None:
    soup = BeautifulSoup(text, "lxml")
    form = soup.find("form", attrs={"name": "login"})
    if not isinstance(form, Tag):
        return None
    fields = {}
    for inp in form.find_all("input"):
        if isinstance(inp, Tag) and inp.get("type") == "hidden" and inp.get("name"):
            fields[str(inp["name"])] = str(inp.get("value") or "")
    captcha = bool(re.search(r"\b(?:update)?seccode\(|secqaa\(|updatesecqaa\(|name=\"seccodeverify\"", text))
    return LoginForm(htmlmod.unescape(str(form.get("action") or "")), fields, captcha)


# ---- post bodies ------------------------------------------------------------------------------

EDIT_MARKER = re.compile(r"本帖最后由\s*(.+?)\s*于\s*(\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?)\s*编辑")


@dataclass
class Body:
    text: str  # without quotes and without the edit marker: what a vote is read from
    full_text: str  # with quoted text, without the edit marker
    edited_by: str | None = None
    edited_at_text: str | None = None  # board time, minute precision


def _text_of(node: Tag) -> str:
    for s in list(node.find_all(string=True)):
        if "\n" in s or "\r" in s:  # source line ends are HTML whitespace; <br> makes the breaks
            s.replace_with(s.replace("\r", "").replace("\n", ""))
    for br in node.find_all("br"):
        br.replace_with("\n")
    for block in node.find_all(["p", "div", "li", "tr", "blockquote"]):
        block.insert_after("\n")
    text = node.get_text().replace("\xa0", " ").replace("\r", "")
    lines = [line.rstrip() for line in text.split("\n")]
    out = "\n".join(lines).strip()
    return re.sub(r"\n{3,}", "\n\n", out)


def message_body(fragment: str) -> Body:
    """A post or PM body (the HTML Discuz made of its BBCode) as plain text.

    Quotes (`div.quote` on PC pages, `div.reply_wrap` in the mobile API) are dropped from
    `text` and kept in `full_text`; the edit marker 「本帖最后由 X 于 … 编辑」 is taken out of
    both and returned apart.  Text hidden from readers (`jammer` noise, `display:none`) is
    dropped."""
    soup = BeautifulSoup(f"<div id='__m'>{fragment}</div>", "lxml")
    root = soup.find("div", id="__m")
    assert isinstance(root, Tag)
    for junk in root.select(".jammer, [style*='display:none'], [style*='display: none'], script"):
        junk.decompose()
    edited_by = edited_at = None
    for marker in root.select("i.pstatus"):
        m = EDIT_MARKER.search(marker.get_text())
        if m:
            edited_by, edited_at = m.group(1), m.group(2)
        marker.decompose()
    full_root = BeautifulSoup(str(root), "lxml").find("div", id="__m")
    assert isinstance(full_root, Tag)
    for quote in root.select("div.quote, div.reply_wrap, blockquote"):
        quote.decompose()
    text, full = _text_of(root), _text_of(full_root)
    if edited_by is None:  # a marker left as text (an API copy of an old post, a printable view)
        m = EDIT_MARKER.search(text)
        if m:
            edited_by, edited_at = m.group(1), m.group(2)
            text = EDIT_MARKER.sub("", text, count=1).strip()
            full = EDIT_MARKER.sub("", full, count=1).strip()
    return Body(text, full, edited_by, edited_at)


def bbcode_text(body: str) -> str:
    """What a BBCode body reads as once shown (tags dropped), for comparing a post we sent
    with what the board shows."""
    return re.sub(r"\[/?(?:b|i|u|s|quote|code|table|tr|td|th|size|color|font|align|url|hr|list|\*)(?:=[^\]]*)?\]",
                  "", body, flags=re.I)


def same_text(a: str, b: str) -> bool:
    """Equal once whitespace is ignored (the board reflows lines and trims)."""
    def squash(s: str) -> str:
        return re.sub(r"\s+", "", htmlmod.unescape(s).replace("\u3000", ""))
    return squash(a) == squash(b)


# ---- thread pages --------------------------------------------------------------------------

_FLOOR_NAMES = {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4}


@dataclass
class RawPost:
    pid: int
    position: int
    author: str
    author_uid: int
    posted: Interval  # UTC
    body: Body


@dataclass
class ThreadPage:
    posts: list[RawPost]
    page: int
    pages: int
    subject: str = ""
    per_page: int | None = None  # posts per page, when the page says


def _page_numbers(soup: BeautifulSoup, text: str) -> tuple[int, int]:
    pages, page = 1, 1
    m = re.search(r'title="共 (\d+) 页"', text)
    if m:
        pages = int(m.group(1))
    pg = soup.find("div", class_="pg")
    if isinstance(pg, Tag):
        strong = pg.find("strong")
        if strong and strong.get_text().strip().isdigit():
            page = int(strong.get_text().strip())
        for a in pg.find_all("a"):
            label = a.get_text().strip().lstrip(".").strip()
            if label.isdigit():
                pages = max(pages, int(label))
        pages = max(pages, page)
    return page, pages


def thread_page(text: str, tz: timezone) -> ThreadPage:
    """A PC thread page (`forum.php?mod=viewthread&tid=…&page=…`)."""
    soup = BeautifulSoup(text, "lxml")
    posts: list[RawPost] = []
    for table in soup.find_all("table", id=re.compile(r"^pid\d+$")):
        assert isinstance(table, Tag)
        pid = int(str(table["id"])[3:])
        author, uid = "", 0
        authi = table.select_one("div.authi a.xw1") or table.select_one("div.authi a[href*='uid=']")
        if authi is not None:
            author = authi.get_text().strip()
            m = re.search(r"uid=(\d+)", str(authi.get("href") or ""))
            uid = int(m.group(1)) if m else 0
        em = table.find("em", id=f"authorposton{pid}")
        posted: Interval | None = None
        if isinstance(em, Tag):
            span = em.find("span", title=True)
            posted = board_time(str(span["title"]), tz) if isinstance(span, Tag) else None
            if posted is None:
                posted = board_time(em.get_text(), tz)
        num = table.find("a", id=f"postnum{pid}")
        position = 0
        if isinstance(num, Tag):
            label = num.get_text().strip()
            digits = num.find("em")
            if isinstance(digits, Tag) and digits.get_text().strip().isdigit():
                position = int(digits.get_text().strip())
            elif label.rstrip("#").isdigit():
                position = int(label.rstrip("#"))
            else:
                position = _FLOOR_NAMES.get(label, 0)
        td = table.find("td", id=f"postmessage_{pid}")
        body = message_body(td.decode_contents()) if isinstance(td, Tag) else Body("", "")
        if posted is None:
            posted = (datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC))
        posts.append(RawPost(pid, position, author, uid, posted, body))
    page, pages = _page_numbers(soup, text)
    if any(p.position == 0 for p in posts):  # custom floor names: count on from the page's first
        known = [p.position for p in posts if p.position]
        start = (known[0] - posts.index(next(p for p in posts if p.position))) if known else 1
        for i, p in enumerate(posts):
            p.position = p.position or start + i
    subject = ""
    h1 = soup.find("span", id="thread_subject")
    if isinstance(h1, Tag):
        subject = h1.get_text().strip()
    return ThreadPage(posts, page, pages, subject)


def api_thread(variables: dict[str, Any]) -> ThreadPage:
    """The mobile API's `viewthread` (exact `dbdateline`; no edit markers: the API strips them)."""
    thread = variables.get("thread") or {}
    ppp = int(variables.get("ppp") or 10)
    total = int(thread.get("maxposition") or 0) or int(thread.get("replies") or 0) + 1
    posts = []
    for p in variables.get("postlist") or []:
        t = datetime.fromtimestamp(int(p.get("dbdateline") or 0), UTC)
        posts.append(RawPost(int(p["pid"]), int(p.get("position") or p.get("number") or 0), str(p.get("author") or ""),
                             int(p.get("authorid") or 0), (t, t), message_body(str(p.get("message") or ""))))
    pages = max(1, -(-total // ppp))
    page = int(variables.get("page") or 0) or 0
    return ThreadPage(posts, page, pages, str(thread.get("subject") or ""), ppp)


# ---- the PM pages ------------------------------------------------------------------------------


@dataclass
class Conversation:
    plid: int
    other_uid: int  # the player's uid (touid)
    other_name: str
    unread: bool
    last_from_uid: int = 0
    last_text: str = ""
    last_time: str = ""  # as shown


@dataclass
class PmMessage:
    pmid: int
    sender_uid: int  # 0 when the page says 您 (the GM) and shows no uid
    sender: str
    text: str
    when: Interval | None
    plid: int = 0
    subject: str = ""


def _uid_of(tag: Tag | None) -> int:
    if tag is None:
        return 0
    m = re.search(r"[?&;]uid=(\d+)", str(tag.get("href") or ""))
    return int(m.group(1)) if m else 0


def pm_list(text: str) -> tuple[list[Conversation], int, int]:
    """The PC inbox (`home.php?mod=space&do=pm`): conversations, page, pages."""
    soup = BeautifulSoup(text, "lxml")
    out = []
    for dl in soup.find_all("dl", id=re.compile(r"^pmlist_\d+$")):
        assert isinstance(dl, Tag)
        plid = int(str(dl["id"])[7:])
        classes = dl.get("class") or []
        reply = dl.find("a", id=f"pmlist_{plid}_a")
        m = re.search(r"touid=(\d+)", str(reply.get("href") if isinstance(reply, Tag) else ""))
        other_uid = int(m.group(1)) if m else 0
        pm_c = dl.find("dd", class_="pm_c")
        other_name, last_from = "", 0
        if isinstance(pm_c, Tag):
            for a in pm_c.find_all("a", href=re.compile(r"[?&;]uid=\d+")):
                if isinstance(a, Tag) and _uid_of(a) == other_uid:
                    other_name = a.get_text().strip()
                    if "xw1" in (a.get("class") or []):
                        last_from = other_uid
        when = ""
        span = dl.select_one("span.xg1 span[title]")
        if isinstance(span, Tag):
            when = str(span["title"])
        last_text = ""
        if isinstance(pm_c, Tag):
            copy = BeautifulSoup(pm_c.decode_contents(), "lxml")
            for junk in copy.select("span.xg1, span.pm_o, div.o"):
                junk.decompose()
            flat = copy.body or copy
            last_text = _text_of(flat).split("说 :", 1)[-1].strip() if isinstance(flat, Tag) else ""
        out.append(Conversation(plid, other_uid, other_name, "newpm" in classes, last_from, last_text, when))
    soup_pg = _page_numbers(soup, text)
    return out, soup_pg[0], soup_pg[1]


def pm_view(text: str, tz: timezone, me_uid: int, me_name: str, plid: int = 0) -> tuple[list[PmMessage], int, int]:
    """One PC conversation page (`…&subop=view&touid=N[&page=N]`): messages, page, pages."""
    soup = BeautifulSoup(text, "lxml")
    out = []
    ul = soup.find("div", id="pm_ul") or soup
    for dl in ul.find_all("dl", id=re.compile(r"^pmlist_\d+$")):
        assert isinstance(dl, Tag)
        pmid = int(str(dl["id"])[7:])
        dd = dl.find("dd", class_="ptm")
        if not isinstance(dd, Tag):
            continue
        who = dd.find("a", class_="xw1")
        if isinstance(who, Tag):
            sender, sender_uid = who.get_text().strip(), _uid_of(who)
            who.decompose()
        else:
            sender, sender_uid = me_name, me_uid
            you = dd.find("span", class_="xw1")
            if isinstance(you, Tag):
                you.decompose()
        when: Interval | None = None
        stamp = dd.find("span", class_="xg1")
        if isinstance(stamp, Tag):
            span = stamp.find("span", title=True)
            when = board_time(str(span["title"]) if isinstance(span, Tag) else stamp.get_text(), tz)
            stamp.decompose()
        body = message_body(dd.decode_contents())
        out.append(PmMessage(pmid, sender_uid, sender, body.full_text, when, plid))
    page, pages = _page_numbers(soup, text)
    return out, page, pages


def api_pm_list(variables: dict[str, Any]) -> tuple[list[Conversation], int, int]:
    out = []
    for c in variables.get("list") or []:
        out.append(Conversation(int(c.get("plid") or 0), int(c.get("touid") or 0), str(c.get("tousername") or ""),
                                str(c.get("isnew") or "0") == "1", int(c.get("msgfromid") or 0),
                                str(c.get("message") or ""), str(c.get("vdateline") or "")))
    count, perpage = int(variables.get("count") or 0), int(variables.get("perpage") or 15) or 15
    return out, int(variables.get("page") or 1), max(1, -(-count // perpage))


def api_pm_view(variables: dict[str, Any], now: datetime, tz: timezone) -> tuple[list[PmMessage], int, int]:
    out = []
    for m in variables.get("list") or []:
        body = message_body(str(m.get("message") or ""))
        out.append(PmMessage(int(m["pmid"]), int(m.get("msgfromid") or 0), str(m.get("msgfrom") or ""), body.full_text,
                             time_interval(str(m.get("vdateline") or ""), now, tz), int(m.get("plid") or 0),
                             str(m.get("subject") or "")))
    count, perpage = int(variables.get("count") or 0), int(variables.get("perpage") or 10) or 10
    return out, int(variables.get("page") or 1), max(1, -(-count // perpage))


# ---- board lists -------------------------------------------------------------------------------


@dataclass
class ThreadRow:
    tid: int
    subject: str
    author: str
    author_uid: int
    created: Interval | None
    replies: int = 0
    last_post: str = ""  # what the list shows of the last post (replies, time, poster): changes with it
    sticky: bool = False  # 置顶: heads the list whatever its last post


def forum_threads(text: str, tz: timezone) -> list[ThreadRow]:
    """The PC board list (`forum.php?mod=forumdisplay&fid=…`)."""
    soup = BeautifulSoup(text, "lxml")
    rows = []
    for tbody in soup.find_all("tbody", id=re.compile(r"^(?:normal|stick)thread_\d+$")):
        assert isinstance(tbody, Tag)
        kind, tid_text = str(tbody["id"]).split("_")
        tid = int(tid_text)
        a = tbody.find("a", class_="xst")
        by = tbody.select("td.by")
        cite = tbody.select_one("td.by cite a") or tbody.find("cite")
        author = cite.get_text().strip() if isinstance(cite, Tag) else ""
        uid = _uid_of(cite if isinstance(cite, Tag) and cite.name == "a" else None)
        span = tbody.select_one("td.by em span[title]")
        created = board_time(str(span["title"]), tz) if isinstance(span, Tag) else None
        count = tbody.select_one("td.num a")
        replies = int(count.get_text().strip()) if count is not None and count.get_text().strip().isdigit() else 0
        last_post = ""
        if len(by) > 1:
            poster = by[-1].find("cite")
            em = by[-1].find("em")
            when = em.find("span", title=True) if isinstance(em, Tag) else None
            shown = str(when["title"]) if isinstance(when, Tag) else (em.get_text().strip() if isinstance(em, Tag)
                                                                      else "")
            last_post = f"{replies}|{shown}|{poster.get_text().strip() if isinstance(poster, Tag) else ''}"
        rows.append(ThreadRow(tid, a.get_text().strip() if isinstance(a, Tag) else "", author, uid, created,
                              replies, last_post, kind == "stickthread"))
    return rows


def forum_pages(text: str) -> tuple[int, int]:
    """(this page, number of pages) of a PC board list."""
    return _page_numbers(BeautifulSoup(text, "lxml"), text)


def api_forum_threads(variables: dict[str, Any]) -> list[ThreadRow]:
    rows = []
    for t in variables.get("forum_threadlist") or []:
        ts = datetime.fromtimestamp(int(t.get("dbdateline") or 0), UTC)
        replies = int(t.get("replies") or 0)
        last_post = f"{replies}|{t.get('dblastpost') or t.get('lastpost') or ''}|{t.get('lastposter') or ''}"
        rows.append(ThreadRow(int(t["tid"]), htmlmod.unescape(str(t.get("subject") or "")), str(t.get("author") or ""),
                              int(t.get("authorid") or 0), (ts, ts), replies, last_post,
                              int(t.get("displayorder") or 0) > 0))
    return rows


def api_forum_pages(variables: dict[str, Any]) -> tuple[int, int]:
    """(this page, number of pages) of the mobile API's board list."""
    forum = variables.get("forum") or {}
    count = int(forum.get("threadcount") or forum.get("threads") or 0)
    tpp = int(variables.get("tpp") or 20) or 20
    return int(variables.get("page") or 1), max(1, -(-count // tpp))


def redirect_pid_page(location: str) -> int | None:
    """The page number in a `findpost` redirect (`…viewthread&tid=1&page=2#pid13`)."""
    q = parse_qs(urlsplit(location).query)
    page = (q.get("page") or [""])[0]
    return int(page) if page.isdigit() else None


def location_ids(location: str) -> dict[str, int]:
    q = parse_qs(urlsplit(location.split("#")[0]).query)
    return {k: int(v[0]) for k, v in q.items() if k in ("tid", "pid", "page") and v and v[0].isdigit()}
