"""Typed events out of resolution (issue 24): what the rules did that the balance report
counts (a kill survived, a forfeited kill, a dig…), given as a kind beside the GM's log
line, so nobody reads them back out of free text with regexes.

Resolution code writes `note(log, line, kind…)`: the line goes to the GM log as before; when
`log` is the outcome's `EventLog` (core.outbox.Messages.log), the kinds are kept with it and
end in `Outcome.events`.
"""

from __future__ import annotations

from tianshen.core.model import Event


class EventLog(list[str]):
    """GM log lines, and the typed events noted with them."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Event] = []


def note(log: list[str], line: str, *kinds: str) -> None:
    """Log `line`; record one event of each kind (none when `kinds` is empty)."""
    log.append(line)
    if isinstance(log, EventLog):
        log.events.extend(Event(kind, line) for kind in kinds)


__all__ = ["Event", "EventLog", "note"]
