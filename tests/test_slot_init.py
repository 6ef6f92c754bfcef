"""`core.frozen.slot_init` (issue 37): the frozen slotted dataclasses made for every death,
event and vote's count set their slots directly; each is what the dataclass's own `__init__`
makes — the same parameters, defaults and values, still frozen, equal and hashed alike (a
vote's `Tally` holds dicts: never hashed)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from tianshen.core.frozen import slot_init
from tianshen.core.model import Death, Event
from tianshen.core.tally import DayTally, TallyBallot, TallyRow
from tianshen.core.votes import Tally

ROW = TallyRow("甲", 2, 3, "+1")
BALLOT = TallyBallot("乙", "甲", 2, "pm", False)
MADE = [
    (Death, ("甲", "killed", "night 1"), {}),
    (Event, ("kill", "a line"), {}),
    (Event, ("tally", "", DayTally(1, "main", (), ())), {}),
    (TallyBallot, ("乙", "甲"), {}),
    (TallyBallot, ("乙", "甲", 2, "pm", False), {}),
    (TallyRow, ("甲", 2, 3), {"modifier": "+1"}),
    (DayTally, (1, "main", (BALLOT,), (ROW,)), {}),
    (DayTally, (2, "ld", (BALLOT,), (ROW,), ("丙",), ("丁",), ("甲",), "punished"), {}),
    (Tally, ({"甲": 2},), {"raw": {"甲": 1}}),
    (DayTally, (), {"day": 3, "ballot": "main", "ballots": (), "rows": (ROW,), "executed": ("",)}),
]


def _plain(cls: type) -> type:
    """The same fields as a dataclass with the dataclass's own `__init__`."""
    return dataclasses.make_dataclass(cls.__name__, [(f.name, f.type, f) for f in dataclasses.fields(cls)],
                                      frozen=True, slots=True)


@pytest.mark.parametrize(("cls", "args", "kwargs"), MADE)
def test_made_as_the_dataclass_makes_it(cls: type, args: tuple, kwargs: dict) -> None:  # type: ignore[type-arg]
    made, plain = cls(*args, **kwargs), _plain(cls)(*args, **kwargs)
    assert dataclasses.astuple(made) == dataclasses.astuple(plain)
    assert made == cls(*args, **kwargs)
    if cls is not Tally:  # (its counts are dicts)
        assert hash(made) == hash(cls(*args, **kwargs))
    assert dataclasses.replace(made) == made
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.__setattr__(dataclasses.fields(cls)[0].name, "x")


@pytest.mark.parametrize("cls", [Death, Event, TallyBallot, TallyRow, DayTally, Tally])
def test_the_same_parameters_and_defaults(cls: type) -> None:
    got = inspect.signature(cls.__init__).parameters  # type: ignore[misc]
    want = inspect.signature(_plain(cls).__init__).parameters  # type: ignore[misc]
    assert [(p.name, p.default, p.kind) for p in got.values()] == [(p.name, p.default, p.kind) for p in want.values()]
    with pytest.raises(TypeError):
        cls()


def test_only_plain_fields() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Listed:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError):
        slot_init(Listed)
