"""A Monte Carlo game's setup is the table's kept setup with the game's seed, made without
pydantic's copy (issue 37): what `model_copy(update=…)` made, and the kept one unchanged."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tianshen.core.ruleset import GameSetup
from tianshen.sim.montecarlo import DEFAULT_START, _seeded, _setup


@pytest.mark.parametrize("players", [5, 8, 10, 13])
def test_a_seeded_setup_is_pydantics_copy(players: int) -> None:
    kept = _setup(players, DEFAULT_START)
    before = kept.model_dump_json()
    for seed in (0, 1, 7, 2**40):
        mine, theirs = _seeded(kept, seed), kept.model_copy(update={"seed": seed})
        assert type(mine) is GameSetup and mine == theirs and mine.seed == seed
        assert mine.model_dump_json() == theirs.model_dump_json()
        assert mine.model_fields_set == theirs.model_fields_set
        assert mine.__pydantic_extra__ == theirs.__pydantic_extra__
        assert mine.__pydantic_private__ == theirs.__pydantic_private__
        assert mine.seats == kept.seats and mine.start == kept.start
    assert kept.model_dump_json() == before and kept.seed == 0


def test_a_setup_with_its_own_fields_set_keeps_them() -> None:
    kept = GameSetup(seats=_setup(5, DEFAULT_START).seats, seed=3, start=datetime(2026, 2, 1, tzinfo=UTC),
                     zone="UTC", fixed_roles={"白狐": "killer"}, setup={"x": 1})
    mine, theirs = _seeded(kept, 9), kept.model_copy(update={"seed": 9})
    assert mine == theirs and mine.model_fields_set == theirs.model_fields_set
    assert mine.model_dump_json() == theirs.model_dump_json()
    mine.fixed_roles["青竹"] = "binder"  # shallow, as pydantic's copy
    assert theirs.fixed_roles == mine.fixed_roles
