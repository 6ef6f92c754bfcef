"""The selectolax parser reads what the BeautifulSoup one read (a frozen copy of it is in
`bench/_discuz_parse_bs4.py`): on every recorded page of both boards, through every page
reader, and on the 500-post thread made from the recordings.  Speed itself is measured by
`bench/discuz_parse.py`, not here."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from forums.discuz_fixtures import GM, X34, X35, needs_recordings
from tianshen.forum.discuz import parse

pytestmark = needs_recordings
CST = timezone(timedelta(hours=8))
NOW = datetime(2026, 12, 2, 14, 0, tzinfo=UTC)
BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_discuz_parse", BENCH / "discuz_parse.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_discuz_parse", module)
    spec.loader.exec_module(module)
    return module


bench = _bench()
old = bench.old_parser()


def outcome(fn: Callable[..., Any], *args: Any) -> Any:
    """What `fn` gives, comparable across the two parsers; an exception by its type."""
    try:
        return bench.plain(fn(*args))
    except Exception as e:  # noqa: BLE001 - both parsers must fail alike too
        return ("raised", type(e).__name__)


def recorded(folder: Path) -> list[str]:
    if not folder.is_dir():  # a clone without ../shared: the module is skipped (needs_recordings)
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.endswith(".headers.txt")
                  and p.suffix in (".html", ".xml", ".json", ".txt"))


PAGES = [("x3.5", n) for n in recorded(X35)] + [("x3.4", n) for n in recorded(X34)]


def text_of(version: str, name: str) -> str:
    raw = ((X35 if version == "x3.5" else X34) / name).read_bytes()
    return parse.decode(raw, "gbk" if version == "x3.4" else "utf-8")


def html_readers(version: str) -> dict[str, Callable[[ModuleType, str], Any]]:
    me_name, me_uid, _ = GM[version]
    return {
        "thread_page": lambda m, t: m.thread_page(t, CST),
        "pm_list": lambda m, t: m.pm_list(t),
        "pm_view": lambda m, t: m.pm_view(t, CST, me_uid, me_name, 7),
        "forum_threads": lambda m, t: m.forum_threads(t, CST),
        "forum_pages": lambda m, t: m.forum_pages(t),
        "login_form": lambda m, t: m.login_form(t),
        "read_answer": lambda m, t: m.read_answer(t),
        "system_error_text": lambda m, t: m.system_error_text(t),
    }


API_READERS: dict[str, Callable[[ModuleType, dict[str, Any]], Any]] = {
    "api_thread": lambda m, v: m.api_thread(v),
    "api_pm_list": lambda m, v: m.api_pm_list(v),
    "api_pm_view": lambda m, v: m.api_pm_view(v, NOW, CST),
    "api_forum_threads": lambda m, v: m.api_forum_threads(v),
    "api_forum_pages": lambda m, v: m.api_forum_pages(v),
}


@pytest.mark.parametrize("version,name", PAGES)
def test_every_recorded_page_reads_the_same_as_with_beautifulsoup(version: str, name: str) -> None:
    text = text_of(version, name)
    for reader, read in html_readers(version).items():
        assert outcome(read, parse, text) == outcome(read, old, text), reader
    if text.lstrip().startswith("{"):
        variables = (json.loads(text).get("Variables") or {}) if text.strip() else {}
        for reader, read in API_READERS.items():
            assert outcome(read, parse, variables) == outcome(read, old, variables), reader


def test_the_readers_find_what_the_pages_hold() -> None:
    """The comparison above compares something: the recorded pages do give posts, PMs, rows."""
    assert len(parse.thread_page(text_of("x3.4", "html-viewthread-tid1-page1.html"), CST).posts) == 10
    assert parse.pm_list(text_of("x3.5", "html-pm-list.html"))[0]
    assert parse.pm_view(text_of("x3.4", "html-pm-view-touid3-player1.html"), CST, 2, "mafiagm", 0)[0]
    assert parse.forum_threads(text_of("x3.4", "html-forumdisplay-fid36.html"), CST)
    assert parse.login_form(text_of("x3.4", "html-login-page.html")) is not None


BODIES = [
    "投票 a<br />\r\n投票 b",
    '<div class="quote"><blockquote>q1<div class="quote"><blockquote>q2</blockquote></div></blockquote></div>x',
    '<i class="pstatus"> 本帖最后由 p 于 2026-12-2 21:25 编辑 </i><br /><br />新',
    '<div class="quote"><blockquote><i class="pstatus"> 本帖最后由 q 于 2026-12-2 21:25 编辑 </i>old</blockquote></div>new',
    'a<font class="jammer">noise</font>b<span style="display:none">h</span>c<span style="display: none">h2</span>d',
    '<span class="jammer">j<i class="pstatus"> 本帖最后由 z 于 2026-12-2 21:25 编辑 </i></span>k',
    '<div class="reply_wrap">r</div>v',
    "<p>one</p><p>two</p><ul><li>x</li><li>y</li></ul>tail",
    "<ul><li>1<li>2</ul>",
    "a<!-- e -->c",
    "a<script>var x=1;</script>b<style>.x{}</style>c",
    "&amp;#128512; &nbsp;x&lt;y&gt; &copy",
    "<table><tr><td>c1</td><td>c2</td></tr><tr><td>c3</td></tr></table>after",
    "<font color=red><div>blk</div></font>z",
    "unclosed <b>bold <i>it</b> still</i> end",
    "<p>p1<div>d</div>p2</p>",
    "本帖最后由 x 于 2026-12-2 21:25 编辑\n\n投票 y",
    "<img src=x alt='pic'>text<hr>more",
    "<strong>强</strong>\n\n\n\n<br><br><br><br>end",
    "<blockquote>bq</blockquote>after",
    "<pre>l1\nl2</pre>",
    "",
    '<div align="center">居中</div><font size="5">大</font>',
]


@pytest.mark.parametrize("fragment", BODIES)
def test_made_up_bodies_read_the_same_alone_and_inside_a_thread_page(fragment: str) -> None:
    assert bench.plain(parse.message_body(fragment)) == bench.plain(old.message_body(fragment))
    page = text_of("x3.5", "html-viewthread-tid1-page1.html")
    start = page.index('id="postmessage_2">') + len('id="postmessage_2">')
    page = page[:start] + fragment + page[page.index("</td>", start):]
    assert bench.plain(parse.thread_page(page, CST)) == bench.plain(old.thread_page(page, CST))


@pytest.mark.parametrize("version", ["x3.5", "x3.4"])
def test_a_500_post_thread_reads_the_same_as_with_beautifulsoup(version: str) -> None:
    charset = "gbk" if version == "x3.4" else "utf-8"
    text = parse.decode(bench.synthetic_thread(version, 500), charset)
    new = parse.thread_page(text, CST)
    assert [p.position for p in new.posts] == list(range(1, 501))
    assert [p.pid for p in new.posts] == list(range(1, 501))
    assert sum(p.body.edited_by is not None for p in new.posts) == 100  # 2 edited posts in every 10
    assert bench.plain(new) == bench.plain(old.thread_page(text, CST))


@pytest.mark.parametrize("version", ["x3.5", "x3.4"])
def test_a_500_post_api_thread_reads_the_same_as_with_beautifulsoup(version: str) -> None:
    variables = bench.synthetic_api_thread(version, 500)
    new = parse.api_thread(variables)
    assert len(new.posts) == 500
    assert bench.plain(new) == bench.plain(old.api_thread(variables))
