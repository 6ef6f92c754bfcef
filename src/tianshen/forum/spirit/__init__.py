"""The django-spirit adapter (Spirit 0.14), over plain HTTP with httpx and BeautifulSoup.

Spirit has no private messages as such: a *private topic* is a topic that only its
participants see, so the GM's PMs are private topics.  The GM keeps one private topic per
player ("神的使者 ↔ 白狐") and replies in it; a player may also open a private topic with the
GM.  Every comment has a global, growing id (`data-pk`), which is the PM id and the post id.

What the forum does that an adapter must know (see the evaluation notes of issue 3):

* Forms need the CSRF token; POSTs are not followed, the `Location` header is the answer.
* A user's post whose hash equals that user's *last* post is silently dropped (302 as if
  it had been posted).  Every write sends `comment_hash`/`topic_hash` = md5(idempotency key),
  so a retry of the same intent is dropped by the forum instead of doubled.
* Rate limits (1 post / 10 s per user, in windows aligned to the epoch): the answer is 200
  with "Too many submissions, wait 10s."; the adapter waits for the next window and retries
  with the same hash.  It also spaces its own writes by `min_write_interval_s`.
* Bodies are Markdown (mistune, hard line wraps); the plain text is recovered from the
  HTML (`<br>` and paragraphs become line breaks, quotes become `> ` lines).
* Timestamps only in `title=` attributes: ISO 8601 with a format module, otherwise
  "Dec. 2, 2026, 1:45 p.m." (minute precision) in the viewer's profile timezone.
* Moderation rows ("closed this") and removed comments sit in the comment list with their
  own class and are skipped.

Passwords never appear in exceptions or logs.
"""

from __future__ import annotations

from tianshen.forum.spirit.forum import SpiritForum
from tianshen.forum.spirit.parse import (
    Row,
    TopicListing,
    content_hash,
    field_errors,
    html_to_text,
    parse_form_errors,
    parse_pages,
    parse_rows,
    parse_spirit_date,
    parse_topic_list,
    pm_topic_title,
)
from tianshen.forum.spirit.players import SpiritPlayers

__all__ = [
    "Row", "SpiritForum", "SpiritPlayers", "TopicListing", "content_hash", "field_errors",
    "html_to_text", "parse_form_errors", "parse_pages", "parse_rows", "parse_spirit_date",
    "parse_topic_list", "pm_topic_title"
]
