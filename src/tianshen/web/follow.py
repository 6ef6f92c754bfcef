"""A view per game that follows its event log by sequence number (issue 38, fast under many
games): what the public pages and the GM page read of the log, folded up to the event `seq`.
A request folds only the events after that seq, so each new event is folded once, however
many readers and pages ask; the pages made from it are byte for byte a full refold's.

Pure: the app reads the events after `seq` from the database and hands them in.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import takewhile
from typing import Any

from tianshen.core.fold import StoredEvent, fold, steps
from tianshen.core.model import GameState, GmIn
from tianshen.core.ruleset import Ruleset
from tianshen.web import views


class AskedLinks(views.PostLinks):
    """PostLinks that remember each thread key the fold looked up and what it found: the
    fold made with them holds for new links that find the same (a thread opened since
    changes no link folded before it)."""

    def __init__(self, links: views.PostLinks) -> None:
        super().__init__((links.post_template, links.thread_template), dict(links.threads))
        self.asked: dict[str, str | None] = {}

    def post(self, key: str, post_id: str) -> str | None:
        self.asked[key] = self.threads.get(key)
        return super().post(key, post_id)

    def thread(self, key: str) -> str | None:
        self.asked[key] = self.threads.get(key)
        return super().thread(key)

    def holds_for(self, links: views.PostLinks) -> bool:
        return (links.post_template, links.thread_template) == (self.post_template, self.thread_template) \
            and all(links.threads.get(k) == v for k, v in self.asked.items())


@dataclass
class PhaseView:
    """A public page at the end of one phase: the state just after the event that closed
    it, and the counts as they were then."""

    end: views.PhaseEnd
    state: GameState
    counts: dict[int, views.DayCount]


AT_ENDS_KEPT = 4  # phase pages of a game kept (each holds a state)


class PublicFold:
    """The public pages' fold of one game up to `seq`: the state, each day's count, the
    phases that ended (and the pages of those last asked for)."""

    def __init__(self, ruleset: Ruleset, links: views.PostLinks) -> None:
        self.ruleset = ruleset
        self.links = AskedLinks(links)
        self.seq = 0  # the last event folded
        self.state: GameState | None = None
        self.days: dict[int, views.DayCount] = {}  # carried on event by event (views.vote_counts)
        self.counts: dict[int, views.DayCount] = {}  # as the page shows them at seq
        self.phases: list[views.PhaseEnd] = []
        self.at_ends: OrderedDict[int, PhaseView] = OrderedDict()  # by end event, the last asked

    def holds_for(self, ruleset: Ruleset, links: views.PostLinks, upto: int) -> bool:
        """Whether folding on from here gives what a full fold up to `upto` would."""
        return ruleset is self.ruleset and self.seq <= upto and self.links.holds_for(links)

    def add(self, events: Iterable[StoredEvent], links: views.PostLinks) -> None:
        """Fold the events after `seq`, in order (once each)."""
        self.links.threads = dict(links.threads)
        events = [e for e in events if e.seq > self.seq]
        if self.state is None and events and events[0].kind == "setup":  # no input folded yet
            self.state, self.seq = fold(self.ruleset, events[:1]), events[0].seq
        for step in steps(self.ruleset, events, self.state, self.seq):
            self.state, self.seq = step.outcome.state, step.seq
            self.counts = views.vote_counts(self.ruleset, [step], self.links, days=self.days)
            self.phases += views.phase_ends(self.ruleset, [step])

    def at_end(self, end: views.PhaseEnd, events: Iterable[StoredEvent]) -> PhaseView:
        """The phase's page: folded from the events up to the one that closed it the first
        time it is asked for (the log before it does not change; its links are asked as the
        fold's), and kept for the last few phases asked for."""
        view = self.at_ends.get(end.end_event)
        if view is None:
            folded = list(takewhile(lambda step: step.seq <= end.end_event, steps(self.ruleset, events)))
            view = PhaseView(end, folded[-1].outcome.state, views.vote_counts(self.ruleset, folded, self.links))
            self.at_ends[end.end_event] = view
            while len(self.at_ends) > AT_ENDS_KEPT:
                self.at_ends.popitem(last=False)
        self.at_ends.move_to_end(end.end_event)
        return view

    def timeline(self) -> list[views.PhaseEnd]:
        return list(self.phases)

    def newest_first(self, counts: dict[int, views.DayCount] | None = None) -> list[views.DayCount]:
        return sorted((self.counts if counts is None else counts).values(), key=lambda d: d.number, reverse=True)


class GmFold:
    """The GM page's fold of one game up to `seq`: every GM input, refused ones too."""

    def __init__(self) -> None:
        self.seq = 0
        self.overrides: list[GmIn] = []

    def add(self, events: Iterable[StoredEvent]) -> None:
        for e in events:
            if e.seq <= self.seq:
                continue
            if e.kind == "gm":
                self.overrides.append(GmIn.model_validate(json.loads(e.payload_json)))
            self.seq = e.seq


class GameFold:
    """One game's folds; `lock` is held while a request folds them and renders from them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.public: PublicFold | None = None
        self.gm = GmFold()
        self.preview: tuple[Any, Any] | None = None  # the GM page's preview with its key (step seq, rulesets)


class Folds:
    """Each game's folds; the least recently asked game goes first when `size` are kept."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self.games: OrderedDict[Any, GameFold] = OrderedDict()
        self.lock = threading.Lock()

    def of(self, key: Any) -> GameFold:
        with self.lock:
            found = self.games.get(key)
            if found is None:
                found = self.games[key] = GameFold()
            self.games.move_to_end(key)
            while len(self.games) > self.size:
                self.games.popitem(last=False)
            return found
