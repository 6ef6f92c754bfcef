"""A vote's time written as text once per moment and offset (`core.clock.iso`, issue 37)."""
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from tianshen.core.clock import iso


def test_same_moment_is_one_text():
    at = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    first = iso(at, at.utcoffset())
    again = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    assert iso(again, again.utcoffset()) is first
    assert first == at.isoformat()


def test_one_instant_in_two_zones_is_two_texts():
    at = datetime(2026, 5, 2, 12, 0, tzinfo=UTC)
    there = at.astimezone(ZoneInfo("Asia/Shanghai"))
    fixed = at.astimezone(timezone(timedelta(hours=-5)))
    assert at == there == fixed  # one key for the datetime alone
    for t in (at, there, fixed, at):
        assert iso(t, t.utcoffset()) == t.isoformat()


def test_one_wall_time_both_sides_of_a_clock_change():
    zone = ZoneInfo("America/New_York")
    first = datetime(2026, 11, 1, 1, 30, tzinfo=zone)
    second = first.replace(fold=1)  # the hour again, after the clocks went back
    assert first == second and hash(first) == hash(second)
    assert first.isoformat() != second.isoformat()
    for t in (first, second, first):
        assert iso(t, t.utcoffset()) == t.isoformat()


def test_a_vote_keeps_its_own_zone():
    """`cast_vote` writes the vote's time through `iso`: the text of its own moment."""
    import inspect

    from tianshen.rules.common import day

    assert "iso(at, at.utcoffset())" in inspect.getsource(day.cast_vote)
