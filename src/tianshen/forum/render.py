"""Announcement markup per forum.

The rules core writes plain text with three markers: `**bold**` (within one line), lines
starting with `> ` (a quote; consecutive such lines form one quote block) and lines
`| a | b |` (table rows; consecutive rows form one table, the first row its header).  The
core escapes nothing, so `render_post` escapes the *whole* body for the target markup
first — player text included — and only then turns the two markers into markup.  A player
who writes `**x**` gets bold text, which is harmless; nothing a player writes can open a
link, an image or close a quote.
"""

from __future__ import annotations

import re
from typing import Protocol

_BOLD = re.compile(r"\*\*(.+?)\*\*")
# Not `( ) < = &`: Spirit's renderer escapes HTML itself, shows `\<`, `\=`, `\&` with the
# backslash and reads `\(…\)` as maths (checked on a live django-spirit 0.14.3); links
# cannot open without `[`.
_MD_SPECIALS = re.compile(r"([\\`*_{}\[\]#+\-.!|>~])")


def escape_bbcode(text: str) -> str:
    """Make player text inert in a BBCode (Discuz) post.

    Discuz has no escape for `[`: every tag starts with it, so `[` and `]` are replaced
    by the full-width forms `［` and `］`, which Discuz shows literally and which read the
    same to a player.  `<` and `>` are left alone: Discuz escapes HTML itself.
    """
    return text.replace("[", "［").replace("]", "］")


def escape_markdown(text: str) -> str:
    r"""Backslash-escape the Markdown specials (every one is a legal CommonMark escape),
    so `*`, `_`, `[`, `#`, `>`, `` ` ``, list and heading markers show literally."""
    return _MD_SPECIALS.sub(r"\\\1", text)


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


def renderer_for(markup: str) -> Renderer:
    if markup == "bbcode":
        return BBCodeRenderer()
    if markup == "markdown":
        return MarkdownRenderer()
    if markup == "plain":
        return PlainRenderer()
    raise ValueError(f"unknown markup {markup!r}")


def _inline(line: str, r: Renderer) -> str:
    """Escape one raw line and turn its `**bold**` spans into the renderer's bold."""
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
    out = ""
    for i, line in enumerate(lines):
        out += line
        if i + 1 < len(lines):
            out += r.line_break if line.strip() and lines[i + 1].strip() else "\n"
    return out


def _is_quote(line: str) -> bool:
    return line.startswith("> ") or line == ">"


def _is_row(line: str) -> bool:
    return len(line) > 1 and line.startswith("|") and line.endswith("|")


def _kind(line: str) -> str:
    return "quote" if _is_quote(line) else "table" if _is_row(line) else "plain"


def _table(rows: list[str], r: Renderer) -> str:
    cells = [[_inline(c.strip(), r) for c in row[1:-1].split("|")] for row in rows]
    if isinstance(r, BBCodeRenderer):
        body = "".join("[tr]" + "".join(f"[td]{c}[/td]" for c in row) + "[/tr]" for row in cells)
        return f"[table]{body}[/table]"
    if isinstance(r, MarkdownRenderer):
        lines = ["| " + " | ".join(row) + " |" for row in cells]
        lines.insert(1, "|" + " --- |" * len(cells[0]))
        return "\n".join(lines)
    return "\n".join("  ".join(c for c in row if c) for row in cells)


def render_post(body: str, markup: str) -> str:
    """Convert the core's minimal markup to `markup`: `**bold**`, `> ` quote lines, and
    table rows (`| a | b |` lines; the first row of a table is its header)."""
    r = renderer_for(markup)
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out = ""
    i = 0
    previous = ""
    while i < len(lines):
        kind = _kind(lines[i])
        block: list[str] = []
        while i < len(lines) and _kind(lines[i]) == kind:
            block.append(lines[i])
            i += 1
        # Markdown would swallow a line right after a quote or a table into it.
        if out and isinstance(r, MarkdownRenderer) and previous != "plain" and block[0].strip():
            out += "\n"
        if kind == "quote":
            out += r.quote(_join([_inline(line[2:], r) for line in block], r))
        elif kind == "table":
            if out and isinstance(r, MarkdownRenderer) and previous == "plain" and not out.endswith("\n\n"):
                out += "\n"  # a Markdown table needs a blank line before it
            out += _table(block, r)
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
            cut = max_chars // 2  # escaping at most doubles a character
            prefix = "> " if line.startswith("> ") else ""
            out.append(line[:cut])
            line = prefix + line[cut:]
        out.append(line)
    return out
