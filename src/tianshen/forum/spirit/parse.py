"""Parsing Spirit's pages: dates, comment rows, pagination, form errors, topic lists."""

from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

import httpx
from bs4 import BeautifulSoup, NavigableString, Tag

from tianshen.forum.base import (
    ForumError,
)

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


def own_text(el: Tag) -> str:
    """`html_to_text` without the quotes: what the poster wrote himself, the text a vote is
    read from.  A Markdown quote's paragraph runs on over the next lines (lazy
    continuation), so a page cannot tell a line typed after a quote from a quoted one: a
    vote inside a quote never counts (Discuz drops its quotes the same way)."""
    own = copy.copy(el)
    for quote in own.find_all("blockquote"):
        quote.decompose()
    return html_to_text(own)


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
    own_text: str = ""  # the text without its quotes (`own_text`)


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
            text=html_to_text(body), edited=history is not None, edits=int(count or 0), own_text=own_text(body)))
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
