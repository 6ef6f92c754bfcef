"""`core.model.frozen` (issue 37): a frozen dataclass made without its `__init__` (which writes
each field through `object.__setattr__`) is the same value, as frozen; the fold's deaths, the
events, the day's tally, the count and the night's guards are made so."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from tianshen.core.clock import DaySchedule
from tianshen.core.events import EventLog, note
from tianshen.core.model import Death, Event, frozen
from tianshen.core.protection import Guard
from tianshen.core.tally import DayTally
from tianshen.core.votes import Tally
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game

T = datetime(2026, 1, 1, tzinfo=UTC)
CASES = [
    (Death, ("甲", "killed", "night 1")),
    (Event, ("kind", "a line", None)),
    (DayTally, (1, "main", (), (), ("乙",), (), ("甲",), "executed")),
    (DaySchedule, (T, T, T)),  # (not slotted: its instance dict set at once)
    (Tally, ({"甲": 2}, {"甲": 1})),
]


@pytest.mark.parametrize(("cls", "values"), CASES)
def test_made_without_init_is_the_same_frozen_value(cls: type, values: tuple) -> None:
    made, called = frozen(cls, *values), cls(*values)
    assert type(made) is cls and made == called and repr(made) == repr(called)
    if cls is not Tally:  # (a count's dicts: not hashable either way)
        assert hash(made) == hash(called)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, dataclasses.fields(cls)[0].name, values[0])
    with pytest.raises(TypeError):
        frozen(cls, *values[:-1])


def test_a_guard_too() -> None:
    assert frozen(Guard, *(v := ("bind", "甲", "乙", "bind"))) == Guard(*v)


def test_deaths_events_and_tallies_are_made_without_the_class_call(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_call(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError(f"{type(self).__name__} made through its __init__")

    for cls in (Death, Event, DayTally, Tally, Guard):
        monkeypatch.setattr(cls, "__init__", no_call)
    log = EventLog()
    note(log, "line", "kind")
    assert [e.kind for e in log.events or []] == ["kind"]
    rs = load_ruleset("classic_10")
    game = Game(rs, 1, 10)
    game.play()
    assert any(o.deaths for o in game.outcomes) and any(o.events for o in game.outcomes)
