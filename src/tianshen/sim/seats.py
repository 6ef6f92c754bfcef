"""The simulated players' seats and the virtual start of their games, apart from
sim/rehearsal.py so a Monte Carlo run does not import the driver and the store."""

from __future__ import annotations

from datetime import UTC, datetime

from tianshen.core.ruleset import Seat

VESTS = ("白狐", "青竹", "夜莺", "孤舟", "寒梅", "石榴", "墨鱼", "飞燕", "老槐", "山雀", "灯笼", "雨伞",
         "铜铃", "纸鸢", "松鼠", "茶壶")
DEFAULT_START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
MAX_STEPS = 500


def default_seats(n: int) -> list[Seat]:
    if n > len(VESTS):
        raise ValueError(f"at most {len(VESTS)} simulated players")
    return [Seat(name=VESTS[i], forum_name=f"玩家{i + 1:02d}") for i in range(n)]
