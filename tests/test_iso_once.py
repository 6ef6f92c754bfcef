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
    """`cast_vote` writes each vote's time as the text of its own moment and zone: one instant
    voted in UTC and in UTC+8 keeps two texts."""
    from classic_helpers import Game
    from tianshen.core.model import PostIn

    g = Game(10)
    g.dawn()
    g.advance("vote_open")
    at = g.at(1)
    there = at.astimezone(ZoneInfo("Asia/Shanghai"))
    g._apply(PostIn(id="z1", thread="vote:1", author="丙", at=at, text="投票 甲"))
    g._apply(PostIn(id="z2", thread="vote:1", author="丁", at=there, text="投票 甲"))
    cast = g.state.data["day"]["ballots"]["main"]
    assert cast["丙"]["at"] == at.isoformat() and cast["丁"]["at"] == there.isoformat()
    assert cast["丙"]["at"] != cast["丁"]["at"]


def test_iso_of_keeps_the_last_moment_by_identity_only() -> None:
    """`clock.iso_of`: the last datetime object's text; an equal moment in another zone (or a
    new object) is written afresh."""
    from datetime import UTC, datetime, timedelta, timezone

    from tianshen.core import clock

    utc = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    east = utc.astimezone(timezone(timedelta(hours=8)))
    assert utc == east
    for at in (utc, utc, east, east, utc):
        assert clock.iso_of(at) == at.isoformat()
    assert clock.iso_of(east) is clock.iso_of(east)
