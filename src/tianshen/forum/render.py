"""Announcement markup per forum.

The rules core writes plain text with three markers: `**bold**` (within one line), lines
starting with `> ` (a quote; consecutive such lines form one quote block) and lines
`| a | b |` (table rows; consecutive rows form one table, the first row its header).  The
core escapes nothing, so `render_post` escapes the *whole* body for the target markup
first — player text included — and only then turns the two markers into markup.  A player
who writes `**x**` gets bold text, which is harmless; nothing a player writes can open a
link, an image, a mention, a heading or close a quote.

What the forums turn into markup by themselves, and how it is defused (both checked on the
real forums: django-spirit 0.14.3's mistune renderer, the Discuz recordings):
- Spirit links every bare `http(s)://` (even `https://2130706433/`), shows a line that is an
  image URL as an image and embeds video and audio URLs, notifies `@name`, draws `:smile:`,
  reads `<…:…>` as a link and a line of `===` or `---` under text as a heading.  Backslash
  escapes work only for mistune's own set; for the rest the renderer keeps HTML entities
  (`&#58;`, `&#64;`, `&lt;`, `&amp;`) as they are, and the browser shows the character.  So
  `@`, `<`, a scheme's or an emoji's `:`, an entity's `&` and a `=` underline go out as
  entities, the other specials with a backslash.
- Discuz: every tag starts with `[` (`[url]`, `[img]`, `[attach]`, `[hide]`, `[quote]`), so `[`
  and `]` become full-width; `@name` notifies, so `@` becomes `＠`.  Bare URLs and smilies are
  switched off per post by the adapter (`parseurloff=1`, `smileyoff=1`).
"""

from __future__ import annotations

import re
from typing import Protocol

_BOLD = re.compile(r"\*\*(.+?)\*\*")
# mistune's own backslash escapes (`\<`, `\=`, `\&`, `\:` would show the backslash)
_MD_SPECIALS = re.compile(r"([\\`*_{}\[\]#+\-.!|>~])")
# entities Spirit's renderer keeps (smart `&`), the browser shows the character: `&` that
# starts an entity, `<` (autolinks), `@` (mentions), `:` of a URL scheme or an emoji
_MD_ENTITIES = re.compile(r"&(?=#?\w+;)|<|@|:(?=//|[A-Za-z0-9_+\-]+:)")
_ENTITY = {"&": "&amp;", "<": "&lt;", "@": "&#64;", ":": "&#58;"}
_SETEXT = re.compile(r"^(\s*)(=+\s*)$")  # a line of `=` under text makes it a heading


def escape_bbcode(text: str) -> str:
    """Make player text inert in a BBCode (Discuz) post.

    Discuz has no escape for `[`: every tag starts with it, so `[` and `]` are replaced
    by the full-width forms `［` and `］`, which Discuz shows literally and which read the
    same to a player.  `<` and `>` are left alone: Discuz escapes HTML itself.
    """
    return text.replace("[", "［").replace("]", "］").replace("@", "＠")


def escape_markdown(text: str) -> str:
    r"""Make player text inert in a Markdown (Spirit) post: `*`, `_`, `[`, `#`, `>`, `` ` ``,
    list and heading markers are backslash-escaped; `<`, `@` (mentions), the `:` of a URL
    scheme or an emoji, and an `&` that starts an entity become entities, and so does a line
    of `=` (a heading underline)."""
    out = _MD_SPECIALS.sub(r"\\\1", text)
    out = _MD_ENTITIES.sub(lambda m: _ENTITY[m.group(0)], out)
    return _SETEXT.sub(lambda m: m.group(1) + "&#61;" + m.group(2)[1:], out)


class Renderer(Protocol):
    line_break: str  # what ends a line that must break (inside a paragraph)

    def bold(self, s: str) -> str: ...

    def quote(self, s: str) -> str: ...

    def escape(self, s: str) -> str: ...


class BBCodeRenderer:
    line_break = "\n"

    def bold(self, s: str) -> str:
        return f"[b]{s}[/b]"

    def quote(self, s: str) -> str:
        return f"[quote]{s}[/quote]"

    def escape(self, s: str) -> str:
        return escape_bbcode(s)


class MarkdownRenderer:
    line_break = "  \n"  # two trailing spaces: a hard break on any CommonMark renderer

    def bold(self, s: str) -> str:
        return f"**{s}**"

    def quote(self, s: str) -> str:
        return "\n".join(f"> {line}" if line else ">" for line in s.split("\n"))

    def escape(self, s: str) -> str:
        return escape_markdown(s)


class PlainRenderer:
    line_break = "\n"

    def bold(self, s: str) -> str:
        return s

    def quote(self, s: str) -> str:
        return s

    def escape(self, s: str) -> str:
        return s


# the renderers keep nothing between texts: one of each serves every text (issue 37)
_RENDERERS: dict[str, Renderer] = {"bbcode": BBCodeRenderer(), "markdown": MarkdownRenderer(),
                                   "plain": PlainRenderer()}


def renderer_for(markup: str) -> Renderer:
    r = _RENDERERS.get(markup)
    if r is None:
        raise ValueError(f"unknown markup {markup!r}")
    return r


def _inline(line: str, r: Renderer) -> str:
    """Escape one raw line and turn its `**bold**` spans into the renderer's bold."""
    if "**" not in line:  # (most lines) no bold
        return r.escape(line)
    out: list[str] = []
    pos = 0
    for m in _BOLD.finditer(line):
        out.append(r.escape(line[pos:m.start()]))
        out.append(r.bold(r.escape(m.group(1))))
        pos = m.end()
    out.append(r.escape(line[pos:]))
    return "".join(out)


def _join(lines: list[str], r: Renderer) -> str:
    """Join lines; consecutive non-blank lines get the renderer's hard line break."""
    out = [lines[0]] if lines else []
    for before, line in zip(lines, lines[1:], strict=False):
        out.append(r.line_break if before.strip() and line.strip() else "\n")
        out.append(line)
    return "".join(out)


def _table(rows: list[str], r: Renderer) -> str:
    if isinstance(r, _AT_ONCE):  # (a vote count's tables: most of a day's rendering)
        cells = _cells_at_once(rows, r)
    else:
        cells = [[_inline(c.strip(), r) for c in row[1:-1].split("|")] for row in rows]
    if isinstance(r, BBCodeRenderer):
        body = "".join(["[tr][td]" + "[/td][td]".join(row) + "[/td][/tr]" for row in cells])
        return f"[table]{body}[/table]"
    if isinstance(r, MarkdownRenderer):
        lines = ["| " + " | ".join(row) + " |" for row in cells]
        lines.insert(1, "|" + " --- |" * len(cells[0]))
        return "\n".join(lines)
    return "\n".join("  ".join(c for c in row if c) for row in cells)


def _cells_at_once(rows: list[str], r: Renderer) -> list[list[str]]:
    """A table's cells as `_inline` makes them, the whole table escaped in one pass first
    (an `_AT_ONCE` escape changes no `|`, `*`, space or line end, so the rows split the same
    after it) and each cell's bold spans made in the cell (a span never crosses a `|`)."""
    out = []
    for row in r.escape("\n".join(rows)).split("\n"):
        cells = [c.strip() for c in row[1:-1].split("|")]
        if "**" in row:  # (most rows have no bold: their cells are not looked at again)
            cells = [_BOLD.sub(lambda m: r.bold(m.group(1)), c) if "**" in c else c for c in cells]
        out.append(cells)
    return out


def render_post(body: str, markup: str) -> str:
    """Convert the core's minimal markup to `markup`: `**bold**`, `> ` quote lines, and
    table rows (`| a | b |` lines; the first row of a table is its header)."""
    r = renderer_for(markup)
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    if isinstance(r, _AT_ONCE) and ">" not in body and "|" not in body:
        return _render_at_once(body, r)
    return _render_lines(body, r)


# renderers whose escape changes no marker (`*`, `>`, `|`, a space, a line end) and whose
# lines join with a plain "\n": a text without quotes or tables renders at once
_AT_ONCE = (BBCodeRenderer, PlainRenderer)


def _render_at_once(body: str, r: Renderer) -> str:
    """`_render_lines` of a text of plain and bold lines, with one escape of the whole text
    and one pass for its bold spans (a span never crosses a line end), not a pass a line:
    the same text (issue 37: most texts a game posts or sends)."""
    out = r.escape(body)
    return _BOLD.sub(lambda m: r.bold(m.group(1)), out) if "**" in out else out


def _render_lines(body: str, r: Renderer) -> str:
    """`render_post` block by block (quotes, tables, plain lines), each line escaped alone."""
    lines = body.split("\n")
    # each line's kind: a quote line (`> `), a table row (`|…|`) or a plain line
    kinds = ["quote" if line[:2] == "> " or line == ">" else "table" if len(line) > 1 and line[0] == "|"
             and line[-1] == "|" else "plain" for line in lines]
    out = ""
    i = 0
    previous = ""
    while i < len(lines):
        kind = kinds[i]
        start = i
        while i < len(lines) and kinds[i] == kind:
            i += 1
        block = lines[start:i]
        # Markdown would swallow a line right after a quote or a table into it.
        if out and isinstance(r, MarkdownRenderer) and previous != "plain" and block[0].strip():
            out += "\n"
        if kind == "quote":
            out += r.quote(_join([_inline(line[2:], r) for line in block], r))
        elif kind == "table":
            if out and isinstance(r, MarkdownRenderer) and previous == "plain" and not out.endswith("\n\n"):
                out += "\n"  # a Markdown table needs a blank line before it
            out += _table(block, r)
        elif isinstance(r, _AT_ONCE):  # (the lines between a vote count's tables)
            out += _render_at_once("\n".join(block), r)
        else:
            out += _join([_inline(line, r) for line in block], r)
        previous = kind
        if i < len(lines):
            out += "\n"
    return out


def render_parts(body: str, markup: str, max_chars: int | None) -> list[str]:
    """`body` rendered for the forum, split at line ends into parts under `max_chars`.

    The split is made on the core text, before rendering, so every part is well formed on
    its own (a quote is never cut between its open and close tags); a single line too long
    for one part is cut by characters.
    """
    if max_chars is None:
        return [render_post(body, markup)]
    parts: list[str] = []
    current: list[str] = []
    for line in _fitting_lines(body.split("\n"), markup, max_chars):
        candidate = current + [line]
        if current and len(render_post("\n".join(candidate), markup)) > max_chars:
            parts.append(render_post("\n".join(current), markup))
            current = [line]
        else:
            current = candidate
    if current:
        parts.append(render_post("\n".join(current), markup))
    return parts


def _fitting_lines(lines: list[str], markup: str, max_chars: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        while len(render_post(line, markup)) > max_chars:
            cut = _longest_prefix(line, markup, max_chars)
            prefix = "> " if line.startswith("> ") else ""
            out.append(line[:cut])
            line = prefix + line[cut:]
        out.append(line)
    return out


def _longest_prefix(line: str, markup: str, max_chars: int) -> int:
    """The longest prefix of `line` that renders within `max_chars` (at least 1 character;
    an escape can make one character up to 6)."""
    lo, hi = 1, len(line)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(render_post(line[:mid], markup)) <= max_chars:
            lo = mid
        else:
            hi = mid - 1
    return lo
