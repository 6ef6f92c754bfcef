"""Reading Discuz! X pages: pure functions over decoded text, no HTTP.

Everything here was written against the pages recorded from stock Discuz! X3.5 (UTF-8) and
X3.4 (GBK) boards (`shared/forums/discuz-*`).  Times on Discuz pages are in *board time* (the
GM account's time offset, shown in the footer as `GMT+8`); the functions take that offset
and return timezone-aware UTC datetimes.  Where a page shows a time only approximately
(`3 分钟前`, `2026-12-2 21:24`), the functions return the interval `(lo, hi)` it stands for,
and the adapter picks the best estimate inside it.

Pages are parsed with selectolax (the lexbor HTML5 parser): one parse per page, and post
bodies are read from the page's own nodes rather than parsed again.
"""

from __future__ import annotations

import html as htmlmod
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import parse_qs, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

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
    doc = LexborHTMLParser(re.sub(r"^\s*<\?xml[^>]*>", "", text))
    for bad in doc.css("style, script"):
        bad.decompose()
    root = doc.root
    flat = re.sub(r"\s+", " ", root.text(separator=" ") if root is not None else "")
    m = re.search(r"BackTraceID: \w+ (.*?)(?: PHP Debug|$)", flat)
    if m:
        return m.group(1).strip()[:300]
    m = re.search(r"System Error (.*?)(?: PHP Debug|$)", flat)
    return (m.group(1).strip() if m else flat.strip())[:300]


# ---- nodes -----------------------------------------------------------------------------------


def _attr(node: LexborNode, name: str) -> str:
    """An attribute's value, "" when it is missing or has none."""
    return node.attrs.get(name) or ""


def _has_class(node: LexborNode, name: str) -> bool:
    return name in _attr(node, "class").split()


def _text(node: LexborNode | None) -> str:
    """All the text inside `node`, as it stands in the page."""
    return node.text(deep=True) if node is not None else ""


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
    form = LexborHTMLParser(text).css_first('form[name="login"]')
    if form is None:
        return None
    fields = {}
    for inp in form.css("input"):
        if inp.attrs.get("type") == "hidden" and _attr(inp, "name"):
            fields[_attr(inp, "name")] = _attr(inp, "value")
    captcha = bool(re.search(r"\b(?:update)?seccode\(|secqaa\(|updatesecqaa\(|name=\"seccodeverify\"", text))
    return LoginForm(htmlmod.unescape(_attr(form, "action")), fields, captcha)


# ---- post bodies ------------------------------------------------------------------------------

EDIT_MARKER = re.compile(r"本帖最后由\s*(.+?)\s*于\s*(\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?)\s*编辑")


@dataclass
class Body:
    text: str  # without quotes and without the edit marker: what a vote is read from
    full_text: str  # with quoted text, without the edit marker
    edited_by: str | None = None
    edited_at_text: str | None = None  # board time, minute precision


_BLOCKS = frozenset({"p", "div", "li", "tr", "blockquote"})  # a line break after each
_UNSEEN = frozenset({"script", "style", "template"})  # elements whose text no reader sees
_KEEP, _DROP, _QUOTE, _MARKER = range(4)  # what `_flatten` does with an element
_Classify = Callable[[LexborNode], int]


def _flatten(node: LexborNode, text: list[str] | None, full: list[str], markers: list[str],
             classify: _Classify) -> None:
    """The text inside `node` as a reader sees it, appended in pieces to `full`, and to `text`
    unless it is quoted (`text` is None inside a quote).  Source line ends are HTML
    whitespace and go; `<br>` and the end of a block make the line breaks.  Edit markers
    go too; their text is appended to `markers`."""
    child = node.first_child
    while child is not None:
        tag = child.tag
        if tag == "-text":
            piece = (child.text_content or "").replace("\r", "").replace("\n", "")
            full.append(piece)
            if text is not None:
                text.append(piece)
        elif tag == "br":
            full.append("\n")
            if text is not None:
                text.append("\n")
        elif tag[0] != "-" and tag not in _UNSEEN:
            kind = classify(child)
            if kind == _MARKER:
                markers.append(_text(child))
            elif kind != _DROP:
                inner = None if kind == _QUOTE else text
                _flatten(child, inner, full, markers, classify)
                if tag in _BLOCKS:
                    full.append("\n")
                    if inner is not None:
                        inner.append("\n")
        child = child.next


def _lines(parts: list[str]) -> str:
    """Flattened pieces as text: no-break spaces made plain, lines right-trimmed, the whole
    trimmed, at most one empty line in a row."""
    text = "".join(parts).replace("\xa0", " ").replace("\r", "")
    out = "\n".join(line.rstrip() for line in text.split("\n")).strip()
    return re.sub(r"\n{3,}", "\n\n", out)


def _post_element(node: LexborNode) -> int:
    """What a post body holds: hidden text (`jammer` noise, `display:none`), the edit marker
    (`i.pstatus`), quotes (`div.quote` on PC pages, `div.reply_wrap` in the mobile API)."""
    classes = _attr(node, "class").split()
    style = _attr(node, "style")
    if "jammer" in classes or "display:none" in style or "display: none" in style:
        return _DROP
    tag = node.tag
    if tag == "i" and "pstatus" in classes:
        return _MARKER
    if tag == "blockquote" or (tag == "div" and ("quote" in classes or "reply_wrap" in classes)):
        return _QUOTE
    return _KEEP


def _dropping(ids: set[int], classify: _Classify) -> _Classify:
    """`classify`, with the elements whose `mem_id` is in `ids` dropped as well."""
    def dropping(node: LexborNode) -> int:
        return _DROP if node.mem_id in ids else classify(node)
    return dropping


def _body_of(node: LexborNode, classify: _Classify = _post_element) -> Body:
    """The body inside `node` (a post's `td.t_f`, a PM's `dd`, a parsed API message)."""
    text_parts: list[str] = []
    full_parts: list[str] = []
    markers: list[str] = []
    _flatten(node, text_parts, full_parts, markers, classify)
    edited_by = edited_at = None
    for marker in markers:
        m = EDIT_MARKER.search(marker)
        if m:
            edited_by, edited_at = m.group(1), m.group(2)
    text, full = _lines(text_parts), _lines(full_parts)
    if edited_by is None:  # a marker left as text (an API copy of an old post, a printable view)
        m = EDIT_MARKER.search(text)
        if m:
            edited_by, edited_at = m.group(1), m.group(2)
            text = EDIT_MARKER.sub("", text, count=1).strip()
            full = EDIT_MARKER.sub("", full, count=1).strip()
    return Body(text, full, edited_by, edited_at)


def message_body(fragment: str) -> Body:
    """A post or PM body (the HTML Discuz made of its BBCode) as plain text.

    Quotes (`div.quote` on PC pages, `div.reply_wrap` in the mobile API) are dropped from
    `text` and kept in `full_text`; the edit marker 「本帖最后由 X 于 … 编辑」 is taken out of
    both and returned apart.  Text hidden from readers (`jammer` noise, `display:none`) is
    dropped."""
    root = LexborHTMLParser(fragment).root  # all of it: a stray `</div>` loses nothing
    return _body_of(root) if root is not None else Body("", "")


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


def _page_numbers(doc: LexborHTMLParser, text: str) -> tuple[int, int]:
    pages, page = 1, 1
    m = re.search(r'title="共 (\d+) 页"', text)
    if m:
        pages = int(m.group(1))
    pg = doc.css_first("div.pg")
    if pg is not None:
        strong = _text(pg.css_first("strong")).strip()
        if strong.isdigit():
            page = int(strong)
        for a in pg.css("a"):
            label = _text(a).strip().lstrip(".").strip()
            if label.isdigit():
                pages = max(pages, int(label))
        pages = max(pages, page)
    return page, pages


def _author(table: LexborNode) -> tuple[str, int]:
    authi = table.css_first("div.authi a.xw1") or table.css_first("div.authi a[href*='uid=']")
    if authi is None:
        return "", 0
    m = re.search(r"uid=(\d+)", _attr(authi, "href"))
    return _text(authi).strip(), int(m.group(1)) if m else 0


def _posted(table: LexborNode, pid: int, tz: timezone) -> Interval:
    """The post time: the exact `title` of the span (posts of the last 7 days), else the text."""
    posted: Interval | None = None
    em = table.css_first(f"em#authorposton{pid}")
    if em is not None:
        span = em.css_first("span[title]")
        posted = board_time(_attr(span, "title"), tz) if span is not None else None
        if posted is None:
            posted = board_time(_text(em), tz)
    return posted or (datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC))


def _floor(table: LexborNode, pid: int) -> int:
    """The floor (`楼主` … `地板`, `<em>5</em><sup>#</sup>`); 0 when the board names it otherwise."""
    num = table.css_first(f"a#postnum{pid}")
    if num is None:
        return 0
    label = _text(num).strip()
    digits = _text(num.css_first("em")).strip()
    if digits.isdigit():
        return int(digits)
    if label.rstrip("#").isdigit():
        return int(label.rstrip("#"))
    return _FLOOR_NAMES.get(label, 0)


def _post(table: LexborNode, pid: int, tz: timezone) -> RawPost:
    author, uid = _author(table)
    td = table.css_first(f"td#postmessage_{pid}")
    body = _body_of(td) if td is not None else Body("", "")
    return RawPost(pid, _floor(table, pid), author, uid, _posted(table, pid, tz), body)


def thread_page(text: str, tz: timezone) -> ThreadPage:
    """A PC thread page (`forum.php?mod=viewthread&tid=…&page=…`)."""
    doc = LexborHTMLParser(text)
    posts: list[RawPost] = []
    for pid, table in _numbered(doc, 'table[id^="pid"]', "pid"):
        posts.append(_post(table, pid, tz))
    page, pages = _page_numbers(doc, text)
    if any(p.position == 0 for p in posts):  # custom floor names: count on from the page's first
        known = [p.position for p in posts if p.position]
        start = (known[0] - posts.index(next(p for p in posts if p.position))) if known else 1
        for i, p in enumerate(posts):
            p.position = p.position or start + i
    subject = _text(doc.css_first("span#thread_subject")).strip()
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


def _uid_of(node: LexborNode | None) -> int:
    if node is None:
        return 0
    m = re.search(r"[?&;]uid=(\d+)", _attr(node, "href"))
    return int(m.group(1)) if m else 0


def _numbered(root: LexborNode | LexborHTMLParser, selector: str, prefix: str) -> list[tuple[int, LexborNode]]:
    """The elements `selector` finds whose id is `prefix` and a number, with the number."""
    pattern = re.compile(re.escape(prefix) + r"(\d+)")
    out = []
    for node in root.css(selector):
        m = pattern.fullmatch(_attr(node, "id"))
        if m:
            out.append((int(m.group(1)), node))
    return out


def _keep(node: LexborNode) -> int:
    return _KEEP


def _conversation(dl: LexborNode, plid: int) -> Conversation:
    reply = dl.css_first(f"a#pmlist_{plid}_a")
    m = re.search(r"touid=(\d+)", _attr(reply, "href") if reply is not None else "")
    other_uid = int(m.group(1)) if m else 0
    pm_c = dl.css_first("dd.pm_c")
    other_name, last_from, last_text = "", 0, ""
    if pm_c is not None:
        for a in pm_c.css("a[href]"):
            if re.search(r"[?&;]uid=\d+", _attr(a, "href")) and _uid_of(a) == other_uid:
                other_name = _text(a).strip()
                if _has_class(a, "xw1"):
                    last_from = other_uid
        shown: list[str] = []
        aside = {node.mem_id for node in pm_c.css("span.xg1, span.pm_o, div.o")}
        _flatten(pm_c, None, shown, [], _dropping(aside, _keep))
        last_text = _lines(shown).split("说 :", 1)[-1].strip()
    span = dl.css_first("span.xg1 span[title]")
    when = _attr(span, "title") if span is not None else ""
    unread = _has_class(dl, "newpm")
    return Conversation(plid, other_uid, other_name, unread, last_from, last_text, when)


def pm_list(text: str) -> tuple[list[Conversation], int, int]:
    """The PC inbox (`home.php?mod=space&do=pm`): conversations, page, pages."""
    doc = LexborHTMLParser(text)
    out = [_conversation(dl, plid) for plid, dl in _numbered(doc, 'dl[id^="pmlist_"]', "pmlist_")]
    page, pages = _page_numbers(doc, text)
    return out, page, pages


def _pm_message(dd: LexborNode, pmid: int, tz: timezone, me_uid: int, me_name: str, plid: int) -> PmMessage:
    aside: set[int] = set()
    who = dd.css_first("a.xw1")
    if who is not None:
        sender, sender_uid = _text(who).strip(), _uid_of(who)
        aside.add(who.mem_id)
    else:
        sender, sender_uid = me_name, me_uid
        you = dd.css_first("span.xw1")
        if you is not None:
            aside.add(you.mem_id)
    when: Interval | None = None
    stamp = next((n for n in dd.css("span.xg1") if n.mem_id not in aside), None)
    if stamp is not None:
        span = stamp.css_first("span[title]")
        when = board_time(_attr(span, "title") if span is not None else _text(stamp), tz)
        aside.add(stamp.mem_id)
    body = _body_of(dd, _dropping(aside, _post_element))
    return PmMessage(pmid, sender_uid, sender, body.full_text, when, plid)


def pm_view(text: str, tz: timezone, me_uid: int, me_name: str, plid: int = 0) -> tuple[list[PmMessage], int, int]:
    """One PC conversation page (`…&subop=view&touid=N[&page=N]`): messages, page, pages."""
    doc = LexborHTMLParser(text)
    out = []
    ul = doc.css_first("div#pm_ul")
    for pmid, dl in _numbered(ul if ul is not None else doc, 'dl[id^="pmlist_"]', "pmlist_"):
        dd = dl.css_first("dd.ptm")
        if dd is not None:
            out.append(_pm_message(dd, pmid, tz, me_uid, me_name, plid))
    page, pages = _page_numbers(doc, text)
    return out, page, pages


def pm_view_count(text: str) -> int:
    """How many messages a PC conversation page says it holds (「共有 3 条与 X 的交谈记录」),
    0 when it does not say."""
    m = re.search(r'id="membernum"[^>]*>\s*(\d+)', text)
    return int(m.group(1)) if m else 0


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


def api_pm_count(variables: dict[str, Any]) -> int:
    """How many messages the board says the conversation holds (0 when it does not say)."""
    return int(variables.get("count") or 0)


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


_THREAD_ROW = re.compile(r"(normal|stick)thread_(\d+)")


def _last_post(by: LexborNode, replies: int) -> str:
    """What the last `td.by` shows of the last post: replies, time, poster."""
    poster = by.css_first("cite")
    em = by.css_first("em")
    when = em.css_first("span[title]") if em is not None else None
    shown = _attr(when, "title") if when is not None else _text(em).strip()
    return f"{replies}|{shown}|{_text(poster).strip()}"


def _thread_row(tbody: LexborNode, kind: str, tid: int, tz: timezone) -> ThreadRow:
    a = tbody.css_first("a.xst")
    by = tbody.css("td.by")
    cite = tbody.css_first("td.by cite a") or tbody.css_first("cite")
    uid = _uid_of(cite if cite is not None and cite.tag == "a" else None)
    span = tbody.css_first("td.by em span[title]")
    created = board_time(_attr(span, "title"), tz) if span is not None else None
    count = _text(tbody.css_first("td.num a")).strip()
    replies = int(count) if count.isdigit() else 0
    last_post = _last_post(by[-1], replies) if len(by) > 1 else ""
    return ThreadRow(tid, _text(a).strip(), _text(cite).strip(), uid, created, replies, last_post,
                     kind == "stick")


def forum_threads(text: str, tz: timezone) -> list[ThreadRow]:
    """The PC board list (`forum.php?mod=forumdisplay&fid=…`)."""
    rows = []
    for tbody in LexborHTMLParser(text).css('tbody[id*="thread_"]'):
        m = _THREAD_ROW.fullmatch(_attr(tbody, "id"))
        if m:
            rows.append(_thread_row(tbody, m.group(1), int(m.group(2)), tz))
    return rows


def forum_pages(text: str) -> tuple[int, int]:
    """(this page, number of pages) of a PC board list."""
    return _page_numbers(LexborHTMLParser(text), text)


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
