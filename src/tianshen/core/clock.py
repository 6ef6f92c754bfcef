"""The phase clock shared by every ruleset: when each phase and each vote window ends.

All times are computed from the announcement that opened the phase (DECISIONS §0.1: the
GM's posts are the phase boundaries) and the ruleset's `Timing` data; nothing here reads a
real clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from tianshen.core.spec import Timing


def after(t: datetime, hours: float) -> datetime:
    return t + timedelta(hours=hours)


@dataclass(frozen=True)
class DaySchedule:
    """A day opened by the dawn post: the vote thread at `vote_opens`, votes until `vote_ends`."""

    dawn: datetime
    vote_opens: datetime
    vote_ends: datetime


class PhaseClock:
    def __init__(self, timing: Timing) -> None:
        self.timing = timing

    def night_ends(self, dusk: datetime) -> datetime:
        """A night lasts `night_hours` from the player list or the dusk post."""
        return after(dusk, self.timing.night_hours)

    def day(self, dawn: datetime) -> DaySchedule:
        """002 Part II: the vote thread in the 13th hour; voting to the end of the day."""
        t = self.timing
        return DaySchedule(dawn, after(dawn, t.vote_opens_hour), after(dawn, t.day_hours))

    def extended_day_ends(self, vote_ends: datetime) -> datetime:
        """生死投票 and 招魂 extend the day (002 Part II: +24 h)."""
        return after(vote_ends, self.timing.ld_extension_hours)

    def ld_ends(self, start: datetime) -> datetime:
        return after(start, self.timing.ld_hours)

    def summon_round_ends(self, start: datetime) -> datetime:
        return after(start, self.timing.summon_round_hours)

    def summon_rounds(self) -> int:
        """How many summoning rounds fit in the extension after the life-death vote."""
        t = self.timing
        return int((t.ld_extension_hours - t.ld_hours) // t.summon_round_hours)
