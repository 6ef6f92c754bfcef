"""Issue 37: a driver keeps the players' rows of the state it last compared
(`GameDriver._player_changes`), and uses them only for that very state object."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from tianshen.core.ruleset import GameSetup
from tianshen.rules import game_ruleset
from tianshen.service.driver import GameDriver, _changed_players, _rows_of
from tianshen.sim.seats import default_seats


def _dealt():
    setup = GameSetup(seats=default_seats(10), seed=3, start=datetime(2026, 1, 1, 20, tzinfo=UTC))
    return game_ruleset("classic_10", {}).setup(setup).state


def test_rows_kept_for_another_state_are_not_used() -> None:
    old = _dealt()
    new, other = old.copy(), old.copy()
    new.players[2].alive = other.players[2].alive = False  # `other`: as if `old` had changed since
    driver = SimpleNamespace(_rows=(other, _rows_of(other)))
    assert GameDriver._player_changes(driver, old, new) == _changed_players(old, new) != (None, None)
    assert driver._rows[0] is new


def test_the_next_step_compares_with_the_rows_kept() -> None:
    old = _dealt()
    driver = SimpleNamespace(_rows=None)
    new = old.copy()
    new.players[4].alive = False
    assert GameDriver._player_changes(driver, old, new) == _changed_players(old, new)
    kept = driver._rows[1]
    newer = new.copy()
    newer.players[5].role = "警察"
    assert GameDriver._player_changes(driver, new, newer) == _changed_players(new, newer)
    assert driver._rows[1] is not kept and GameDriver._player_changes(driver, newer, newer.copy()) == (None, None)
