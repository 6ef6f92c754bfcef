"""Helpers over Discuz! pages that `parse.py` does not have (and that need none of its internals).

`thread_digest` tells whether a PC thread page says anything new since it was last parsed:
a full re-read of a vote thread before each count then parses only the pages that changed.
"""

from __future__ import annotations

import hashlib
import re

_POSTS = re.compile(r'<div id="post_\d+".*<div id="postlistreply"', re.S)
_PAGER = re.compile(r'<div class="pg">.*?</div>', re.S)
_SUBJECT = re.compile(r'<span id="thread_subject">.*?</span>', re.S)
_RELATIVE = re.compile(r'(<span title="[^"]*">)[^<]*(</span>)')  # 「3 分钟前」: the title holds the time


def thread_digest(text: str) -> str | None:
    """A digest of what a thread page says about its posts (ids, floors, authors, exact times,
    bodies and edit markers, the page numbers, the subject), blind to what changes with the
    clock alone (relative times); None when the page has not the expected layout."""
    posts = _POSTS.search(text)
    if posts is None:
        return None
    parts = [_RELATIVE.sub(r"\1\2", posts.group(0))]
    parts += [m.group(0) for m in _PAGER.finditer(text[:posts.start()])]
    subject = _SUBJECT.search(text)
    parts.append(subject.group(0) if subject else "")
    return hashlib.sha1("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
