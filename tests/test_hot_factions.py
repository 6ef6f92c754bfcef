"""`Hot.factions` and `Hot.timing` (issue 37): the rules read a death's identity, a day's
schedule and a tally's curse/bless notes from the spec's plain object.  They are the spec's
own (every variant), a `for_gm` copy's are its own, and a dawn and a tally read through the
`Hot` say what they said read from the spec."""

from datetime import UTC, datetime

import pytest

from tianshen.core.model import Player
from tianshen.core.votes import Tally
from tianshen.rules import load_ruleset
from tianshen.rules.common import day as days
from tianshen.sim.montecarlo import Game
from tianshen.specs import available_variants, load_spec


def test_hot_holds_the_specs_own_factions_and_timing() -> None:
    for variant in available_variants():
        spec = load_spec(variant)
        hot = spec.hot()
        assert hot.factions is spec.factions and hot.timing is spec.timing, variant
        other = spec.for_gm("别的天神")
        assert other.hot().factions is other.factions and other.hot().timing is other.timing


@pytest.mark.parametrize("faction", ["killers", "civilians"])
def test_identity_through_hot_is_the_specs(faction: str) -> None:
    spec = load_spec("classic_10")
    p = Player(name="甲", forum_name="甲", seat=1, role="commoner", faction=faction)
    assert days.identity(spec.hot(), p) == days.identity(spec, p) == spec.factions[faction]


def test_a_day_begun_and_counted_through_hot_is_the_specs() -> None:
    ruleset = load_ruleset("classic_10")
    spec = ruleset.spec
    at = datetime(2026, 3, 1, 12, tzinfo=UTC)
    made = []
    for reader in (spec, spec.hot()):
        state = Game(ruleset, 7, 10).state
        days.begin_day(reader, state, at, ["甲"], [], {"乙": 1, "丙": -1})
        votes = {"丁": "乙", "戊": "丙", "己": "乙"}
        result = Tally(counts={"乙": 3, "丙": 0}, raw={"乙": 2, "丙": 1})
        count = days.day_tally(reader, state, "main", votes, result, [], with_modifiers=True)
        made.append((state.model_dump_json(), count))
    assert made[0] == made[1]
    assert any(row.modifier for row in made[0][1].rows)  # a curse or bless note was read
