"""Collecting what one input says, then turning it into an Outcome."""

from __future__ import annotations

from tianshen.core.events import EventLog
from tianshen.core.model import GameState, Outcome, PrivateMessage, PublicPost, Refusal
from tianshen.core.spec import Body


class Messages(Outcome):
    """What one input says so far (a slotted class: several are made for every input).
    A text may be given unrendered (`RulesetSpec.later`, `Lines`): it is rendered when read.
    It has an `Outcome`'s slots, and becomes that outcome (`outcome`): no second object a fold."""

    __slots__ = ()  # (an Outcome's: `state`, `deaths` and `events` set by `outcome`)

    def __init__(self) -> None:
        self.posts: list[PublicPost] = []
        self.pms: list[PrivateMessage] = []
        self.refusals: list[Refusal] = []
        self.log: list[str] = EventLog()
        self.notes: list[str] = []  # for the human GM (sent to his contact account)

    # (each message made as its `__init__` would, without the class call: ~60 a game)

    def post(self, thread: str, body: Body, title: str | None = None) -> None:
        m = _new(PublicPost)
        m.thread, m.title = thread, title
        if type(body) is str:
            m._body, m.source = body, None
        else:
            m._body, m.source = None, body
        self.posts.append(m)

    def pm(self, to: str, subject: str, body: Body) -> None:
        m = _new(PrivateMessage)
        m.to, m.subject = to, subject
        if type(body) is str:
            m._body, m.source = body, None
        else:
            m._body, m.source = None, body
        self.pms.append(m)

    def refuse(self, sender: str, text: str, reason: Body, reply_to: str | None = None, subject: str = "") -> None:
        """Record a refusal and answer the sender (when there is one to answer)."""
        m = _new(Refusal)
        m.sender, m.text = sender, text
        if type(reason) is str:
            m._reason, m.source = reason, None
        else:
            m._reason, m.source = None, reason
        self.refusals.append(m)
        if reply_to:
            self.pm(reply_to, subject or "天神回复：未能接受", reason)

    def outcome(self, state: GameState) -> Outcome:
        """The Outcome of these messages, with no deaths: this object itself, made an
        `Outcome` (its lists are the outcome's, as they always were; one is made for every
        input: a new object and its eight fields cost more than the class set).  Call it
        once, last: the messages are an `Outcome` after it."""
        log = self.log
        events = log.events if type(log) is EventLog else None
        self.state = state
        self.deaths = []
        self.events = list(events) if events else []
        self.__class__ = Outcome  # type: ignore[assignment]
        return self


_new = object.__new__
