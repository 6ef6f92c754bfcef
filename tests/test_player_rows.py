"""Issue 37: a step's players' rows are compared as tuples and made only when written
(`service.driver._changed_players`); what it hands the store is what the rows say."""

from __future__ import annotations

from datetime import UTC, datetime

from tianshen.core.ruleset import GameSetup
from tianshen.rules import game_ruleset
from tianshen.service.driver import _changed_players, _player_rows
from tianshen.sim.seats import default_seats

ROW = ("name", "forum_name", "seat", "role", "faction", "alive")


def _dealt():
    setup = GameSetup(seats=default_seats(10), seed=3, start=datetime(2026, 1, 1, 20, tzinfo=UTC))
    return game_ruleset("classic_10", {}).setup(setup).state


def test_the_rows_are_the_players_fields_in_the_stores_order() -> None:
    state = _dealt()
    rows = _player_rows(state)
    assert [list(r) for r in rows] == [list(ROW)] * len(state.players)
    assert rows == [{k: getattr(p, k) for k in ROW} for p in state.players]


def test_unchanged_players_write_nothing() -> None:
    state = _dealt()
    assert _changed_players(state, state.copy()) == (None, None)


def test_each_field_of_a_row_counts_and_only_the_changed_seats_are_named() -> None:
    for field in ROW[1:]:
        old = _dealt()
        new = old.copy()
        value = getattr(new.players[2], field)
        setattr(new.players[2], field, (not value) if isinstance(value, bool) else
                value + 1 if isinstance(value, int) else f"{value}x")
        rows, changed = _changed_players(old, new)
        assert rows == _player_rows(new), field
        assert changed == [new.players[2].name], field


def test_other_seats_write_every_row() -> None:
    old = _dealt()
    new = old.copy()
    new.players[0].name = "新人"
    assert _changed_players(old, new) == (_player_rows(new), None)
    new = old.copy()
    new.players.pop()
    assert _changed_players(old, new) == (_player_rows(new), None)
