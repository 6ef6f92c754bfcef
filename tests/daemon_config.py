"""The config of a daemon test on the memory board: one classic_8 game of eight players
under their own accounts, no simulated players (the test writes the inputs)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
NAMES = ["白狐", "青竹", "夜莺", "孤舟", "寒梅", "石榴", "墨鱼", "飞燕"]


def memory_config(tmp_path: Path, name: str, poll_seconds: float, game_extra: str = "") -> Path:
    """config.toml in `tmp_path` (its database beside it), game `name` at START."""
    path = tmp_path / "config.toml"
    players = ", ".join(f'{{ name = "{n}", forum_name = "{n}" }}' for n in NAMES)
    path.write_text(f"""
[database]
url = "sqlite:///{tmp_path / 'd.db'}"

[forum]
kind = "memory"

[run]
simulate = false
poll_seconds = {poll_seconds}

[game]
name = "{name}"
ruleset = "classic_8"
seed = 5
start = {START.isoformat().replace("+00:00", "Z")}
players = [{players}]
{game_extra}""", encoding="utf-8")
    return path


class HandClock:
    """The daemon's clock in a test that ticks by hand: `at` is moved by the test, and no
    scheduler job ever comes due by itself."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def real_at(self, game_time: datetime) -> datetime:
        return datetime(2100, 1, 1, tzinfo=UTC)
