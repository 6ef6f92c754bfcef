from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tianshen.forum.render import (
    BBCodeRenderer,
    MarkdownRenderer,
    PlainRenderer,
    escape_bbcode,
    escape_markdown,
    render_post,
    renderer_for,
)

EVIL = "[url=http://evil]x[/url] [/quote][img]http://evil/a.png[/img]"


def _md_unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


# ---- escaping -----------------------------------------------------------------------


def test_escape_bbcode_neutralises_brackets_only() -> None:
    out = escape_bbcode(EVIL + " <b>&")
    assert "[" not in out and "]" not in out
    assert out.startswith("［url=http://evil］x［/url］")
    assert out.endswith(" <b>&")  # Discuz escapes HTML itself


def test_escape_markdown_specials() -> None:
    raw = r"*a* _b_ [l](http://x) # h `c` <i> > q 1. - + ! | ~ \ {} ="
    out = escape_markdown(raw)
    bare = re.sub(r"&#?\w+;", "", out)  # issue 13 item 5: `:` of a URL scheme and `<` as entities
    for ch in "*_[]#`>.-+!|~{}":
        assert re.search(r"(?<!\\)" + re.escape(ch), bare) is None, ch
    for ch in "()<=":  # Spirit escapes HTML itself and shows `\<`, `\=` literally, `\(` as maths
        assert "\\" + ch not in out, ch
    assert html.unescape(_md_unescape(out)) == raw  # shows literally: nothing lost
    assert escape_markdown("纯文本 abc 123") == "纯文本 abc 123"


def test_renderer_for() -> None:
    assert isinstance(renderer_for("bbcode"), BBCodeRenderer)
    assert isinstance(renderer_for("markdown"), MarkdownRenderer)
    assert isinstance(renderer_for("plain"), PlainRenderer)
    with pytest.raises(ValueError):
        renderer_for("html")


# ---- BBCode ---------------------------------------------------------------------------


def test_bbcode_bold_and_quote() -> None:
    body = "**第1天** 投票结果\n> 我是预言家\n> 昨晚验了 **小明**\n以上"
    assert render_post(body, "bbcode") == (
        "[b]第1天[/b] 投票结果\n[quote]我是预言家\n昨晚验了 [b]小明[/b][/quote]\n以上"
    )


def test_bbcode_separate_quote_blocks() -> None:
    out = render_post("> a\n中间\n> b", "bbcode")
    assert out == "[quote]a[/quote]\n中间\n[quote]b[/quote]"


def test_bbcode_injection_inside_quote_cannot_break_out() -> None:
    out = render_post(f"遗言：\n> {EVIL}\n> [b]ok", "bbcode")
    assert out.count("[quote]") == 1 and out.count("[/quote]") == 1
    assert out.endswith("[/quote]")
    assert "[url" not in out and "[img" not in out and "[b]" not in out
    assert "［url=http://evil］x［/url］ ［/quote］" in out


def test_bbcode_injection_outside_quote() -> None:
    out = render_post(f"玩家 {EVIL} 投了票", "bbcode")
    assert "[" not in out and "]" not in out


def test_bbcode_bold_content_is_escaped() -> None:
    out = render_post("**[url=http://evil]x[/url]**", "bbcode")
    assert out == "[b]［url=http://evil］x［/url］[/b]"


def test_unmatched_bold_marker_stays_literal() -> None:
    assert render_post("a ** b", "bbcode") == "a ** b"
    assert render_post("a ** b", "plain") == "a ** b"


def test_gt_not_followed_by_space_is_not_a_quote() -> None:
    assert render_post(">no quote", "bbcode") == ">no quote"
    assert render_post("a > b", "bbcode") == "a > b"


def test_crlf_is_normalised() -> None:
    assert render_post("> a\r\n> b\r\nc", "bbcode") == "[quote]a\nb[/quote]\nc"


# ---- Markdown -------------------------------------------------------------------------


def test_markdown_bold_and_quote_survive_escaping() -> None:
    out = render_post("**第1天**\n> 宣言 *真的*\n> [link](http://evil)\n结束", "markdown")
    lines = out.split("\n")
    assert lines[0] == "**第1天**"  # a quote interrupts the paragraph by itself
    assert lines[1] == r"> 宣言 \*真的\*  "
    assert lines[2] == r"> \[link\](http&#58;//evil)"  # no link: no `[`, and no bare URL either
    assert lines[3] == ""  # blank line: the next line must not be lazily continued into the quote
    assert lines[4] == "结束"


def test_markdown_injection_is_inert() -> None:
    out = render_post("> </blockquote><script>x</script>\n# 标题\n- 列表\n1. 一", "markdown")
    assert re.search(r"(?<!\\)[>#]", out.replace("\n> ", "\n").removeprefix("> ")) is None
    assert r"&lt;script\>" in out  # never a tag, whatever the forum's own escaping
    assert r"\# 标题" in out and r"\- 列表" in out and r"1\. 一" in out


def test_markdown_plain_lines_keep_their_breaks() -> None:
    out = render_post("A 投 B\nC 投 D\n\n合计", "markdown")
    assert out == "A 投 B  \nC 投 D\n\n合计"


# ---- plain ----------------------------------------------------------------------------


def test_plain_strips_markers_and_keeps_text() -> None:
    out = render_post(f"**结果**\n> 宣言 {EVIL}\n> 第二行\n完", "plain")
    assert out == f"结果\n宣言 {EVIL}\n第二行\n完"


@pytest.mark.parametrize("markup", ["bbcode", "markdown", "plain"])
def test_text_without_markers_round_trips_its_words(markup: str) -> None:
    body = "第2夜：无人死亡\n投票截止 20:00"
    out = render_post(body, markup)
    assert _md_unescape(out.replace("  \n", "\n")) == body


def test_render_parts_split_at_line_ends_under_the_cap() -> None:
    from tianshen.forum.render import render_parts

    body = "**第1夜结束**\n" + "\n".join(f"> 宣言第{i}行" + "字" * 40 for i in range(60)) + "\n现在是第1天。"
    for markup in ("bbcode", "markdown"):
        parts = render_parts(body, markup, 500)
        assert len(parts) > 1
        assert all(len(p) <= 500 for p in parts)
        text = "".join(parts)
        assert all(f"宣言第{i}行" in text for i in range(60)) and "现在是第1天" in text
    bb = render_parts(body, "bbcode", 500)
    assert all(p.count("[quote]") == p.count("[/quote]") for p in bb)
    assert render_parts(body, "bbcode", None) == [render_post(body, "bbcode")]
    long_line = render_parts("字" * 1200, "markdown", 500)
    assert all(len(p) <= 500 for p in long_line) and "".join(long_line).count("字") == 1200


def test_vote_count_tables_in_each_markup() -> None:
    """Issue 4: vote counts as a table — Discuz [table], a Markdown table, plain columns; a
    player's name cannot inject markup from inside a cell."""
    body = "**第1天投票结果**\n| 游戏者 | 得票 |\n| 甲[/td][url=x] | 6票 |\n| 乙 | 2票 |\n**甲**被投票处决。"
    bb = render_post(body, "bbcode")
    assert bb.count("[table]") == 1 and bb.count("[tr]") == 3 and bb.count("[td]") == 6
    assert "甲［/td］［url=x］" in bb and "[url" not in bb
    md = render_post(body, "markdown")
    assert "\n\n| 游戏者 | 得票 |\n| --- | --- |\n| 甲\\[/td\\]\\[url=x\\] | 6票 |" in md
    assert "| 乙 | 2票 |\n\n**甲**" in md  # a blank line ends the table
    plain = render_post(body, "plain")
    assert "乙  2票" in plain and "|" not in plain


def test_every_text_is_rendered_by_the_one_renderer_of_its_markup() -> None:
    """The renderers keep nothing between texts: one of each serves every text (issue 37:
    a renderer made per text was a tenth of rendering); an unknown markup is still refused."""
    from tianshen.forum import render

    assert all(render.renderer_for(m) is render.renderer_for(m) for m in ("bbcode", "markdown", "plain"))
    with pytest.raises(ValueError, match="unknown markup"):
        render.renderer_for("html")


_LINE = st.sampled_from(["", " ", "甲", "**", "*", "[b]", "]", "@乙", "> ", ">", "|", " | ", "\r", "\r\n", "x**y**z",
                         "**粗[/b]**", "&amp;", "第1夜", "  ", "\t",
                         "| 甲 | [x]@ |"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_LINE, max_size=5).map("".join), max_size=6).map("\n".join))
def test_a_text_rendered_at_once_is_the_text_rendered_a_line_at_a_time(body: str) -> None:
    """Issue 37: BBCode and plain texts without quotes or tables are escaped whole, not a
    line at a time, and so are the plain lines between a text's tables; the bytes are the
    same as every line escaped alone."""
    from tianshen.forum import render

    for markup in ("bbcode", "plain", "markdown"):
        at_once = render_post(body, markup)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(render, "_AT_ONCE", ())  # every line escaped alone
            assert at_once == render_post(body, markup)


def test_a_plain_bbcode_text_is_escaped_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: a text of plain and bold lines (most of what a game sends) is escaped once,
    not once a line and once a bold span."""
    calls: list[str] = []
    real = BBCodeRenderer.escape
    monkeypatch.setattr(BBCodeRenderer, "escape", lambda self, s: calls.append(s) or real(self, s))
    body = "**第1夜结束**\n" + "\n".join(f"[{i}]号 **@乙** 死亡" for i in range(20)) + "\n现在是第1天。"
    assert render_post(body, "bbcode") == "[b]第1夜结束[/b]\n" + "\n".join(
        f"［{i}］号 [b]＠乙[/b] 死亡" for i in range(20)) + "\n现在是第1天。"
    assert len(calls) == 1


def test_a_bbcode_table_is_escaped_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: a vote count's table is escaped whole, its cells split after (not a cell at
    a time); a cell's bold stays in its cell."""
    calls: list[str] = []
    real = BBCodeRenderer.escape
    monkeypatch.setattr(BBCodeRenderer, "escape", lambda self, s: calls.append(s) or real(self, s))
    body = "| 游戏者 | 得票 |\n" + "\n".join(f"| [{i}]@甲 | **{i}**票 ** | x** |" for i in range(10))
    assert render_post(body, "bbcode") == "[table][tr][td]游戏者[/td][td]得票[/td][/tr]" + "".join(
        f"[tr][td]［{i}］＠甲[/td][td][b]{i}[/b]票 **[/td][td]x**[/td][/tr]" for i in range(10)) + "[/table]"
    assert len(calls) == 1
