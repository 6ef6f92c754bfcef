"""Typed events out of resolution (issue 24): what the rules did that the balance report
counts (a kill survived, a forfeited kill, a dig…), given as a kind beside the GM's log
line, so nobody reads them back out of free text with regexes.

Resolution code writes `note(log, line, kind…)`: the line goes to the GM log as before; when
`log` is the outcome's `EventLog` (core.outbox.Messages.log), the kinds are kept with it and
end in `Outcome.events`.
"""

from __future__ import annotations

from tianshen.core.model import Event
from tianshen.core.tally import DayTally


class EventLog(list[str]):
    """GM log lines, and the typed events noted with them (`events`, made with the first
    one: most inputs note none, and an outcome is made for every input)."""

    # None (the class's) until the first event: read without a caught AttributeError, which
    # an unset slot raised at every outcome (issue 37)
    events: list[Event] | None = None

    def noted(self) -> list[Event]:
        """The events noted so far (a new list)."""
        events = self.events
        return list(events) if events else []

    def add(self, event: Event) -> None:
        events = self.events
        if events is None:
            self.events = [event]
        else:
            events.append(event)


def note(log: list[str], line: str, *kinds: str) -> None:
    """Log `line`; record one event of each kind (none when `kinds` is empty)."""
    log.append(line)
    if isinstance(log, EventLog):
        for kind in kinds:
            log.add(Event(kind, line))


def record_tally(log: list[str], line: str | None, tally: DayTally) -> None:
    """Log `line` (the count as the GM log has always said it; None: no line) with the
    vote's tally: the one count the result post and the web pages share (issue 34)."""
    if line is not None:
        log.append(line)
    if isinstance(log, EventLog):
        log.add(Event("tally", line or "", tally))


def tallies(events: list[Event]) -> list[DayTally]:
    """The tallies among an outcome's events, in order."""
    return [e.tally for e in events if e.tally is not None]


__all__ = ["Event", "EventLog", "note", "record_tally", "tallies"]
