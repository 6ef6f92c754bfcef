"""Collecting what one input says, then turning it into an Outcome."""

from __future__ import annotations

from tianshen.core.events import EventLog
from tianshen.core.model import GameState, Outcome, PrivateMessage, PublicPost, Refusal
from tianshen.core.spec import Body


class Messages:
    """What one input says so far (a plain slotted class: several are made for every input).
    A text may be given unrendered (`RulesetSpec.later`, `Lines`): it is rendered when read."""

    __slots__ = ("posts", "pms", "refusals", "log", "notes")

    def __init__(self) -> None:
        self.posts: list[PublicPost] = []
        self.pms: list[PrivateMessage] = []
        self.refusals: list[Refusal] = []
        self.log: list[str] = EventLog()
        self.notes: list[str] = []  # for the human GM (sent to his contact account)

    def post(self, thread: str, body: Body, title: str | None = None) -> None:
        self.posts.append(PublicPost(thread, body, title))

    def pm(self, to: str, subject: str, body: Body) -> None:
        self.pms.append(PrivateMessage(to, subject, body))

    def refuse(self, sender: str, text: str, reason: Body, reply_to: str | None = None, subject: str = "") -> None:
        """Record a refusal and answer the sender (when there is one to answer)."""
        self.refusals.append(Refusal(sender, text, reason))
        if reply_to:
            self.pm(reply_to, subject or "天神回复：未能接受", reason)

    def outcome(self, state: GameState) -> Outcome:
        """The Outcome of these messages, with no deaths (built without the keyword call: one
        is made for every input)."""
        log = self.log
        events = log.events if type(log) is EventLog else None
        o = _new(Outcome)
        o.state, o.posts, o.pms, o.refusals, o.log, o.notes, o.deaths, o.events = (
            state, self.posts, self.pms, self.refusals, log, self.notes, [], list(events) if events else [])
        return o


_new = object.__new__

