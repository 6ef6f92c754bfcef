"""An input's deaths from the players' `alive` writes (issue 37): `apply_in_place` lists the
living before and after a fold only when the fold wrote `alive`, and the deaths are what
comparing the two lists always gave — a death and a revival in one fold are none."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tianshen.core import model
from tianshen.core import ruleset as core_ruleset
from tianshen.core.deaths import deaths_since
from tianshen.core.model import DeadlineIn, Player, alive_before, watch_alive
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.specs import available_variants, load_spec


class _Checked(Game):
    """Each fold's deaths checked against the living listed before and after it."""

    deaths = 0

    def fold(self, event):  # type: ignore[no-untyped-def]
        before = [p.alive for p in self.state.players]
        outcome = self.ruleset.apply_in_place(self.state, event)
        changed = before != [p.alive for p in outcome.state.players]
        assert outcome.deaths == (deaths_since(before, outcome.state) if changed else [])
        _Checked.deaths += len(outcome.deaths)
        self.state = self._took(outcome)


@pytest.mark.parametrize(("variant", "players"), [(v, n) for v in available_variants()
                                                  for n in (load_spec(v).player_counts or [None])])
def test_deaths_are_those_of_the_lists_of_the_living(variant: str, players: int | None) -> None:
    _Checked.deaths = 0
    rs = load_ruleset(variant)
    for seed in range(3):
        _Checked(rs, seed, players or rs.spec.players).play()
    assert _Checked.deaths > 0


def test_a_fold_that_writes_no_alive_lists_no_living(monkeypatch: pytest.MonkeyPatch) -> None:
    looks = []

    def counting(p: Player) -> bool:
        looks.append(p)
        return p.alive

    monkeypatch.setattr(core_ruleset, "_ALIVE", counting)
    rs = load_ruleset("classic_10")
    game = Game(rs, 1, 10)
    game.play()
    died = [o for o in game.outcomes if o.deaths]
    # (in place the list of players stays the same: the deaths come from the log alone, no
    # list of the living is made even for a fold that writes `alive`)
    assert died and not looks


def test_a_death_and_a_revival_in_one_log_are_no_change() -> None:
    a, b = Player(name="甲", forum_name="a", seat=1), Player(name="乙", forum_name="b", seat=2)
    log, token = watch_alive()
    a.alive = False
    a.alive = True
    b.alive = False
    assert alive_before(log, token, [a, b]) == [True, True]
    assert model.WRITES.get() is None


def test_an_inner_log_reaches_the_outer_one() -> None:
    a = Player(name="甲", forum_name="a", seat=1)
    outer, token = watch_alive()
    inner, inner_token = watch_alive()
    a.alive = False
    assert alive_before(inner, inner_token, [a]) == [True]
    assert alive_before(outer, token, [a]) == [True]


def test_a_failed_fold_ends_its_log(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game(load_ruleset("classic_10"), 1, 10)

    def failing(*args: object) -> None:
        game.state.players[0].alive = False
        raise RuntimeError("boom")

    monkeypatch.setattr(game.ruleset, "_fold", failing)
    with pytest.raises(RuntimeError):
        game.ruleset.apply_in_place(game.state, DeadlineIn(id="x", at=datetime(2026, 1, 1, tzinfo=UTC), kind="k"))
    assert model.WRITES.get() is None
