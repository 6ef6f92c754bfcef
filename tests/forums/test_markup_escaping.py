"""Player text stays text: what `render` makes of URLs, images, mentions, headings and tags
(the live Spirit check is in test_spirit_exactly_once.py)."""

from __future__ import annotations

import pytest

from tianshen.forum.render import escape_bbcode, escape_markdown, render_parts, render_post
from tianshen.forum.text import storable

HOSTILE = [
    "https://2130706433/",
    "http://evil.example/cat.png",
    "see http://x.org and <http://y.org> <mailto:a@b.c>",
    "@白狐 @alice",
    "标题\n===",
    "标题\n---",
    ":smile: :+1:",
    "&#64;alice &lt;b&gt;",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_escapes_leave_nothing_spirit_turns_into_markup(text: str) -> None:
    out = render_post(text, "markdown")
    assert "://" not in out  # no bare URL or URL line (link, image, video embed)
    assert "@" not in out and "<" not in out  # no mention, no autolink
    assert not any(line.strip() and set(line.strip()) <= {"=", "-"} for line in out.split("\n"))
    assert ":smile:" not in out and ":+1:" not in out  # no emoji
    if "&#64;" in text:  # a typed entity shows as typed, not as the character
        assert "&#64;alice" not in out and "&amp;lt;b" in out


def test_markdown_escapes_keep_ordinary_text_readable() -> None:
    assert escape_markdown("投票截止 20:00，a=b") == "投票截止 20:00，a=b"
    assert escape_markdown("https://x.org") == r"https&#58;//x\.org"
    assert escape_markdown("@bob") == "&#64;bob"
    assert escape_markdown("===") == "&#61;=="


def test_bbcode_escapes_tags_and_mentions() -> None:
    for tag in ("[url]http://x[/url]", "[img]x.png[/img]", "[attach]1[/attach]", "[hide]x[/hide]",
                "[quote]x[/quote]", "[url=http://x]y[/url]"):
        assert "[" not in escape_bbcode(tag) and "]" not in escape_bbcode(tag)
    assert escape_bbcode("@白狐") == "＠白狐"
    assert render_post("**第1天** [img]x[/img]", "bbcode") == "[b]第1天[/b] ［img］x［/img］"


def test_a_line_of_specials_is_split_under_the_cap() -> None:
    line = ":" * 10 + "@" * 3000  # every character escapes to an entity of 5
    parts = render_parts(line, "markdown", 3000)
    assert all(len(p) <= 3000 for p in parts) and len(parts) >= 5


@pytest.mark.parametrize(("text", "charset", "stored"), [
    ("a\x00b\x07c\td\ne", "utf-8", "abc\td\ne"),
    ("投票 😀", "utf-8", "投票 😀"),
    ("投票 😀 €5 ａ", "gbk", "投票 ? EUR5 ａ"),
    ("broken \ud800 surrogate", "utf-8", "broken \ufffd surrogate"),
    ("", "gbk", ""),
])
def test_storable_text(text: str, charset: str, stored: str) -> None:
    assert storable(text, charset) == stored
    stored.encode("gbk" if charset == "gbk" else "utf-8")  # encodes without an error
