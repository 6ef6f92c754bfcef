"""The phase clock shared by every ruleset: when each phase and each vote window ends.

All times are computed from the announcement that opened the phase (DECISIONS §0.1: the
GM's posts are the phase boundaries) and the ruleset's `Timing` data; nothing here reads a
real clock.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tianshen.core.spec import Timing

if TYPE_CHECKING:
    from tianshen.core.model import GameState

# ---- the display time zone (issue 23 item 1) --------------------------------------------
#
# Every time a player, the GM, the admin CLI or the web pages are shown goes through `show`,
# in the game's display zone.  The zone is data: it is fixed when the game is signed up
# (GameSetup.zone, copied into GameState.zone by the deal), so a replay shows the same text.
# A state stored before the zone existed reads as DEFAULT_ZONE.

DEFAULT_ZONE = "Asia/Shanghai"  # the zone of these forums (Discuz's default timeoffset, +8)
# Zones whose local time is 北京时间; a fixed +08:00 (a Discuz board's timeoffset) is too.
_BEIJING = {"Asia/Shanghai", "Asia/Chongqing", "Asia/Chungking", "Asia/Harbin", "PRC", "+08:00"}
_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)
ZONE_FORMS = "an IANA zone name such as Asia/Shanghai, or an offset such as +08:00"


@lru_cache(maxsize=64)
def check_zone(name: str) -> str:
    """`name` in its stored form (an IANA name, or an offset written ±HH:MM); ValueError
    naming the accepted forms when it is neither."""
    name = name.strip()
    m = _OFFSET.match(name)
    if m:
        hours, minutes = int(m.group(2)), int(m.group(3) or 0)
        if hours > 14 or minutes >= 60:
            raise ValueError(f"time zone '{name}': an offset is at most ±14:00")
        return f"{m.group(1)}{hours:02d}:{minutes:02d}"
    if name.upper() in ("UTC", "Z", "GMT"):
        return "UTC"
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone '{name}'; accepted: {ZONE_FORMS}") from None
    return name


@lru_cache(maxsize=64)
def zone_info(name: str) -> tzinfo:
    """The tzinfo of a zone in its stored form (check_zone); UTC for ''."""
    name = check_zone(name) if name else "UTC"
    if name == "UTC":
        return UTC
    m = _OFFSET.match(name)
    if m:
        sign = -1 if m.group(1) == "-" else 1
        return timezone(sign * timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0)))
    return ZoneInfo(name)


def zone_label(local: datetime, name: str) -> str:
    """What the zone is called next to a time: 北京时间, UTC, UTC+9, UTC-3:30."""
    offset = local.utcoffset() or timedelta(0)
    if name in _BEIJING and offset == timedelta(hours=8):
        return "北京时间"
    minutes = int(offset.total_seconds() // 60)
    if minutes == 0:
        return "UTC"
    sign, minutes = ("+" if minutes > 0 else "-"), abs(minutes)
    return f"UTC{sign}{minutes // 60}" + (f":{minutes % 60:02d}" if minutes % 60 else "")


def localize(t: datetime, zone: str = DEFAULT_ZONE) -> datetime:
    """A time written without an offset (a config's `start`) read in `zone`; an aware time as is."""
    return t.replace(tzinfo=zone_info(zone)) if t.tzinfo is None else t


def show(t: datetime | None, zone: str = DEFAULT_ZONE, *, seconds: bool = False, year: bool = False) -> str:
    """The one way a time is shown: `12月5日 20:00（北京时间）` in the game's zone (— for
    None).  `year` puts the year in front (the CLI's lists), `seconds` the seconds after."""
    if t is None:
        return "—"
    return _show(t, zone, seconds, year)


_PARSED: dict[str, datetime] = {}


def parse(text: str) -> datetime:
    """A time a state keeps as ISO text (`data`'s deadlines, ballots): a game reads its few
    deadlines again at every input (issue 37), so each is parsed once (a datetime never
    changes; the table is emptied when it grows large)."""
    at = _PARSED.get(text)
    if at is None:
        if len(_PARSED) >= 4096:
            _PARSED.clear()
        at = _PARSED[text] = datetime.fromisoformat(text)
    return at


@lru_cache(maxsize=4096)
def iso(at: datetime, offset: timedelta | None) -> str:
    """`at.isoformat()`, called as `iso(at, at.utcoffset())`: a vote's time is written as text
    (issue 37), and a run's games fall on a few moments.  The offset is part of the key: one
    instant in two zones (or one wall time on both sides of a clock change) is one key for a
    datetime alone, but two texts; the moment and its offset are all the text is made of."""
    return at.isoformat()


_LAST_ISO: tuple[datetime | None, str] = (None, "")


def iso_of(at: datetime) -> str:
    """`iso(at, at.utcoffset())`, the last moment's text kept by identity (a vote post's time:
    the posts read together are stamped with one datetime object, the same value and offset;
    one tuple, written at once)."""
    global _LAST_ISO
    last = _LAST_ISO
    if last[0] is at:
        return last[1]
    text = iso(at, at.utcoffset())
    _LAST_ISO = (at, text)
    return text


@lru_cache(maxsize=1024)
def _show(t: datetime, zone: str, seconds: bool, year: bool) -> str:
    """`show` of a time: a game shows its few deadlines many times (issue 37), so the texts
    are kept (equal times are the same moment, and show the same in one zone)."""
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)  # every time inside tianshen is UTC; a naive one is too
    name = zone or DEFAULT_ZONE
    local = t.astimezone(zone_info(name))
    clock = f"{local:%H:%M:%S}" if seconds else f"{local:%H:%M}"
    day = f"{local.year}年{local.month}月{local.day}日" if year else f"{local.month}月{local.day}日"
    return f"{day} {clock}（{zone_label(local, check_zone(name))}）"


def show_for(state: GameState, t: datetime | None) -> str:
    """A time in a game's text: in the game's display zone (`show`, issue 23 item 1)."""
    return show(t, state.zone)


def duration(d: timedelta) -> str:
    """The one way a length of time is said to players, as people say it: 「40秒」,
    「约1分半钟」, 「11分钟」, 「2小时15分」, 「27小时」.  Under ten minutes to the half minute,
    then to the minute; 约 in front when that rounding dropped something."""
    seconds = max(0, round(d.total_seconds()))
    if seconds < 60:
        return f"{seconds}秒"
    if seconds < 600:
        halves = round(seconds / 30)
        about = "约" if halves * 30 != seconds else ""
        return f"{about}{halves // 2}分半钟" if halves % 2 else f"{about}{halves // 2}分钟"
    minutes = round(seconds / 60)
    about = "约" if minutes * 60 != seconds else ""
    hours, minutes = divmod(minutes, 60)
    if not hours:
        return f"{about}{minutes}分钟"
    return f"{about}{hours}小时" + (f"{minutes}分" if minutes else "")


def whole_minute(t: datetime) -> datetime:
    """`t`, or the next whole minute when `t` falls between two (issue 31 item 7)."""
    if not t.second and not t.microsecond:  # (on a minute already: no `replace`, whose keywords cost)
        return t
    return t.replace(second=0, microsecond=0) + _MINUTE


_MINUTE = timedelta(minutes=1)
# each length of `ends_after` as a timedelta, and whether it is a whole number of minutes: a
# game asks for a few lengths (its timing) again and again; `timedelta(hours=…)` parses its
# keywords each time (emptied when it grows large)
_SPANS: dict[float, tuple[timedelta, bool]] = {}


def ends_after(t: datetime, hours: float) -> datetime:
    """The end of a phase (or a window) of `hours` that starts at `t`: on a whole minute of the
    clock, rounded up, when the length is a whole number of minutes (a phase started or
    resumed between two minutes, e.g. a deal or a GM advance, still ends on a minute that the
    texts can show, issue 31 item 7); the tests' lengths in seconds are kept exact."""
    span = _SPANS.get(hours)
    if span is None:
        if len(_SPANS) >= 256:
            _SPANS.clear()
        span = _SPANS[hours] = (timedelta(hours=hours), abs(hours * 60 - round(hours * 60)) < 1e-9)
    end = t + span[0]
    return whole_minute(end) if span[1] else end


class DaySchedule(NamedTuple):
    """A day opened by the dawn post: the vote thread at `vote_opens`, votes until `vote_ends`
    (a named tuple: a frozen dataclass set each field through `object.__setattr__`, ~5 k
    instructions a dawn)."""

    dawn: datetime
    vote_opens: datetime
    vote_ends: datetime


class PhaseClock:
    def __init__(self, timing: Timing) -> None:
        self.timing = timing

    def night_ends(self, dusk: datetime) -> datetime:
        """A night lasts `night_hours` from the player list or the dusk post."""
        return ends_after(dusk, self.timing.night_hours)

    def day(self, dawn: datetime) -> DaySchedule:
        """002 Part II: the vote thread in the 13th hour; voting to the end of the day."""
        t = self.timing
        return DaySchedule(dawn, ends_after(dawn, t.vote_opens_hour), ends_after(dawn, t.day_hours))

    def extended_day_ends(self, vote_ends: datetime) -> datetime:
        """生死投票 and 招魂 extend the day (002 Part II: +24 h)."""
        return ends_after(vote_ends, self.timing.ld_extension_hours)

    def ld_ends(self, start: datetime) -> datetime:
        return ends_after(start, self.timing.ld_hours)

    def summon_round_ends(self, start: datetime) -> datetime:
        return ends_after(start, self.timing.summon_round_hours)

    def summon_rounds(self) -> int:
        """How many summoning rounds fit in the extension after the life-death vote."""
        t = self.timing
        return int((t.ld_extension_hours - t.ld_hours) // t.summon_round_hours)
