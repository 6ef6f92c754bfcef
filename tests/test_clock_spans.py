"""`clock.ends_after` keeps each length's timedelta (`_SPANS`, by the hours alone: all the
value is made of) and rounds up to a minute without `replace` when the end is on one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from tianshen.core import clock


def _reference(t: datetime, hours: float) -> datetime:
    """`ends_after` as it was written before the table (issue 31 item 7)."""
    end = t + timedelta(hours=hours)
    if abs(hours * 60 - round(hours * 60)) < 1e-9:
        floor = end.replace(second=0, microsecond=0)
        return floor if floor == end else floor + timedelta(minutes=1)
    return end


TIMES = [
    datetime(2026, 1, 1, 20, 0, tzinfo=UTC),
    datetime(2026, 1, 1, 20, 0, 30, tzinfo=UTC),
    datetime(2026, 1, 1, 20, 59, 59, 999999, tzinfo=UTC),
    datetime(2026, 3, 8, 1, 30, 15, tzinfo=ZoneInfo("America/New_York")),  # a clock change within the span
    datetime(2026, 11, 1, 1, 30, tzinfo=ZoneInfo("America/New_York"), fold=1),
    datetime(2026, 1, 1, 20, 0, 1, tzinfo=timezone(timedelta(hours=8))),
]
HOURS = [24, 24.0, 12.5, 0.5, 1 / 60, 1 / 7200, 36, 0.25, 47.999]


@pytest.mark.parametrize("hours", HOURS)
def test_every_length_ends_where_it_ended_before_the_table(hours: float) -> None:
    for t in TIMES:
        for _ in range(2):  # (made, then read from the table)
            got = clock.ends_after(t, hours)
            want = _reference(t, hours)
            assert (got, got.tzinfo, got.fold, got.utcoffset()) == (want, want.tzinfo, want.fold, want.utcoffset())


def test_a_length_is_kept_by_its_hours_and_a_whole_minute_alone_rounds() -> None:
    clock._SPANS.clear()
    t = datetime(2026, 1, 1, 20, 0, 30, tzinfo=UTC)
    assert clock.ends_after(t, 1 / 7200) == t + timedelta(seconds=0.5)  # not a whole minute: exact
    assert clock.ends_after(t, 1) == datetime(2026, 1, 1, 21, 1, tzinfo=UTC)  # rounded up
    assert clock.ends_after(t, 1.0) == datetime(2026, 1, 1, 21, 1, tzinfo=UTC)
    assert set(clock._SPANS) == {1 / 7200, 1}
    assert clock._SPANS[1] == (timedelta(hours=1), True) and clock._SPANS[1 / 7200][1] is False


def test_whole_minute_keeps_a_time_on_a_minute_and_rounds_the_others_up() -> None:
    on = datetime(2026, 1, 1, 20, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert clock.whole_minute(on) is on
    off = on + timedelta(microseconds=1)
    assert clock.whole_minute(off) == on + timedelta(minutes=1) and clock.whole_minute(off).tzinfo is on.tzinfo
