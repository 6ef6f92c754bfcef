"""Spacing the GM's writes by the forum's flood interval, and learning that interval.

A forum's flood control counts from its last *accepted* write (Discuz's `lastpost`; Spirit's
rate-limit windows), so a write is due `interval` seconds after the answer to the last accepted
one came back — timed from the answer, a board that stamps whole seconds still sees the full
interval.  A refusal costs a request, never a second wait: the retry is due at the same moment
(with the interval learned from the refusal), or, when the write was already on time (another
write the pacer does not know of reset the board's clock), one interval after the refusal.

What the interval is:
- configured (`flood_interval_s`, 0 allowed): the start;
- otherwise the adapter's start (0 on Discuz: learned from the first refusal, which names it);
- a refusal that names a number (「间隔少于 30 秒」, "wait 10s") sets it to at least that;
- a refusal without one doubles it (from `numberless_start_s` when it was 0), up to `cap_s` —
  when it came early, or on time twice running: a single on-time refusal is taken for another
  write from the account (a human GM), so the retry is one interval after it.
`note_last_write` places the last write of an earlier process (wall-clock time) on this one's
monotonic clock, so a restart does not write too early either.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

log = logging.getLogger(__name__)


class Pacer:
    def __init__(self, interval_s: float, *, sleep: Callable[[float], None], monotonic: Callable[[], float],
                 wall: Callable[[], datetime] | None = None, numberless_start_s: float = 15.0,
                 cap_s: float = 600.0) -> None:
        self.interval_s = max(0.0, float(interval_s))
        self.sleep, self.monotonic = sleep, monotonic
        self.wall = wall or (lambda: datetime.now(UTC))
        self.numberless_start_s = numberless_start_s
        self.cap_s = cap_s
        self.last_ok: float | None = None  # monotonic end of the last accepted write
        self._not_before: float | None = None
        self._on_time_refusals = 0  # numberless refusals of writes sent on time, since one went through at once

    def due(self) -> float:
        """The monotonic time the next write is due (now or earlier: at once)."""
        due = self.monotonic() if self.last_ok is None else self.last_ok + self.interval_s
        return max(due, self._not_before or due)

    def wait_turn(self) -> None:
        wait = self.due() - self.monotonic()
        if wait > 0:
            self.sleep(wait)

    def accepted(self) -> None:
        if self._not_before is None:
            self._on_time_refusals = 0  # through at the first try
        self.last_ok = self.monotonic()
        self._not_before = None

    def refused(self, named_s: float | None = None, wait_s: float | None = None) -> None:
        """The forum said "too soon".  `named_s`: the interval the refusal names; `wait_s`: how
        long the forum says to wait from now."""
        now = self.monotonic()
        on_time = self.last_ok is None or now - self.last_ok >= self.interval_s
        if named_s is not None and named_s > 0:
            self.interval_s = min(self.cap_s, max(self.interval_s, float(named_s)))
        else:
            self._on_time_refusals += on_time
            if self.interval_s <= 0 or not on_time or self._on_time_refusals >= 2:
                grown = self.interval_s * 2 if self.interval_s > 0 else self.numberless_start_s
                self.interval_s = min(self.cap_s, max(grown, self.interval_s))
                self._on_time_refusals = 0
        if wait_s is not None:
            self._not_before = now + wait_s
        elif on_time and (self.last_ok is None or now - self.last_ok >= self.interval_s):
            self._not_before = now + self.interval_s  # the board's clock is not ours: from the refusal
        log.info("flood control: interval now %.0f s, next write in %.0f s", self.interval_s,
                 max(0.0, self.due() - now))

    def note_last_write(self, at: datetime) -> None:
        """The last write (of this or an earlier process) went out at `at` (wall clock, aware)."""
        ago = (self.wall() - at.astimezone(UTC)).total_seconds()
        placed = self.monotonic() - max(0.0, ago)
        if self.last_ok is None or placed > self.last_ok:
            self.last_ok = placed
