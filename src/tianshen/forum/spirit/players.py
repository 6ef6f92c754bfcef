"""The players' side on a Spirit forum (`SpiritPlayers`): simulated players and tests act through it."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable

import httpx
from bs4 import BeautifulSoup

from tianshen.forum.base import (
    ForumError,
    ForumPm,
    ForumPost,
)
from tianshen.forum.spirit.client import _Account
from tianshen.forum.spirit.forum import SpiritForum, _PmTopic, _received_pms
from tianshen.forum.spirit.parse import (
    _TOPIC_PATH,
    content_hash,
    html_to_text,
    parse_form_errors,
    parse_spirit_date,
    pm_topic_title,
)


class SpiritPlayers:
    """Players on a Spirit forum, each logged in as themselves (implements `forum.base.PlayerSide`)."""

    def __init__(self, base_url: str, passwords: dict[str, str], gm_account: str, *,
                 client_factory: Callable[[], httpx.Client] | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.base_url = base_url.rstrip("/")
        self._passwords = dict(passwords)
        self.gm_account = gm_account
        self._client_factory = client_factory
        self._sleep = sleep
        self._sessions: dict[str, _Account] = {}
        self._gm_topic: dict[str, int] = {}
        self._reader: _Account | None = None
        self._inbox_cache: dict[str, dict[int, _PmTopic]] = {}

    def __repr__(self) -> str:
        return f"<SpiritPlayers {len(self._passwords)} accounts at {self.base_url}>"

    @property
    def names(self) -> Iterable[str]:
        return self._passwords.keys()

    def session(self, user: str) -> _Account:
        acc = self._sessions.get(user)
        if acc is None:
            if user not in self._passwords:
                raise ForumError(f"no password for the player account {user!r}")
            client = self._client_factory() if self._client_factory else None
            acc = _Account(self.base_url, user, self._passwords[user], client=client, sleep=self._sleep)
            self._sessions[user] = acc
        acc.ensure_login()
        return acc

    def pm(self, sender: str, to: str, text: str, subject: str = "") -> int:
        acc = self.session(sender)
        topic_id = self._topic_with(sender, to)
        if topic_id is not None:  # a reply has no subject of its own: the topic's title is the subject
            location = acc.publish(f"/comment/{topic_id}/publish/",
                                   {"comment": text, "comment_hash": uuid.uuid4().hex}, what=f"PM to {to}")
            pk = acc.comment_location(location)
            if pk is None:
                raise ForumError(f"PM by {sender} to {to}: unexpected answer {location!r}")
            return pk
        location = acc.publish("/topic/private/publish/", {
            "title": subject or f"{sender}的私信", "users": to, "comment": text,
            "topic_hash": uuid.uuid4().hex, "comment_hash": uuid.uuid4().hex}, what=f"PM to {to}")
        m = _TOPIC_PATH.match(httpx.URL(location).path)
        if m is None or "/topic/private/" not in location:
            raise ForumError(f"PM by {sender} to {to}: unexpected answer {location!r}")
        rows = acc.read_topic(int(m.group(1)), None, private=True)
        if not rows:
            raise ForumError(f"PM by {sender} to {to}: the new private topic is empty")
        return rows[0].pk

    def _topic_with(self, sender: str, to: str) -> int | None:
        """The private topic the GM opened with `sender`, when `to` is the GM."""
        if to.casefold() != self.gm_account.casefold():
            return None
        if sender in self._gm_topic:
            return self._gm_topic[sender]
        acc = self.session(sender)
        title = pm_topic_title(self.gm_account, sender)
        for t in acc.private_topics():
            if t.title == title:
                names, opener = acc.participants(t.id)
                if opener == self.gm_account and {n.casefold() for n in names} == \
                        {sender.casefold(), self.gm_account.casefold()}:
                    self._gm_topic[sender] = t.id
                    return t.id
        return None

    def post(self, author: str, thread_id: str, text: str) -> int:
        acc = self.session(author)
        location = acc.publish(f"/comment/{int(thread_id)}/publish/",
                               {"comment": text, "comment_hash": uuid.uuid4().hex},
                               what=f"post by {author} in thread {thread_id}")
        pk = acc.comment_location(location)
        if pk is None:
            raise ForumError(f"post by {author}: unexpected answer {location!r}")
        return pk

    def edit(self, post_id: int, author: str, new_text: str) -> None:
        acc = self.session(author)
        r = acc.post_form(f"/comment/{int(post_id)}/update/", {"comment": new_text})
        if r.status_code not in (301, 302, 303):
            errors = parse_form_errors(BeautifulSoup(r.text, "lxml")) if r.status_code == 200 else ""
            raise ForumError(f"{author} may not edit comment {post_id} (HTTP {r.status_code}) {errors}".strip())

    def inbox(self, user: str) -> list[ForumPm]:
        return _received_pms(self.session(user), self._inbox_cache.setdefault(user, {}), user, None)

    def thread_posts(self, thread_id: str) -> list[ForumPost]:
        if self._reader is None:
            self._reader = self.session(next(iter(self._passwords)))
        acc = self._reader
        out = []
        for r in acc.read_topic(int(thread_id), None):
            original = acc.history_first(r.pk) if r.edited else None
            out.append(ForumPost(r.pk, str(thread_id), r.author, r.at, r.text, r.edited, r.number, original))
        return out

    def close(self) -> None:
        for acc in self._sessions.values():
            acc.client.close()


__all__ = ["SpiritForum", "SpiritPlayers", "content_hash", "html_to_text", "parse_spirit_date",
           "pm_topic_title"]
