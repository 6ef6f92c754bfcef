"""One log of the player writes a fold makes (issue 37): `apply`'s (`fold_sharing_players`,
to put its shared players back) and the fold's deaths (`apply_in_place`'s `alive` writes).
`apply`'s fold writes into `fold_sharing_players`' log (its copy is marked `logged`), no log
of its own begun; any other fold begins its own and hands the writes on to an enclosing one.
Either way its deaths are those of its own writes."""

from __future__ import annotations

from typing import Any

import pytest

from tianshen.core import model
from tianshen.core import ruleset as core_ruleset
from tianshen.core.deaths import die
from tianshen.core.model import GameState, PmIn, alive_before, watch_alive
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def _killing(monkeypatch: pytest.MonkeyPatch, seat: int) -> Any:
    """The classic_10 ruleset whose `on_pm` kills the player of `seat` (index) first."""
    ruleset = load_ruleset("classic_10")
    real = type(ruleset).on_pm

    def killing(self, st: GameState, pm: PmIn):  # type: ignore[no-untyped-def]
        die(st, st.players[seat], "test")
        return real(self, st, pm)

    monkeypatch.setattr(type(ruleset), "on_pm", killing)
    return ruleset


def _pm(state: GameState, i: str) -> PmIn:
    return PmIn(id=i, sender=state.players[5].name, at=state.phase.started_at, text="你好")  # type: ignore[arg-type]


def test_a_fold_inside_a_log_lists_its_own_deaths_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A death written before the fold, in the enclosing log, is not the fold's; the fold's
    own is, and the enclosing log ends with both."""
    ruleset = _killing(monkeypatch, 2)
    state = Game(ruleset, 2, 10).state
    log, token = watch_alive()
    try:
        state.players[0].alive = False  # before the fold: not its death
        outcome = ruleset.apply_in_place(state, _pm(state, "1"))
    finally:
        before = alive_before(log, token, state.players)
    assert [d.name for d in outcome.deaths] == [state.players[2].name]
    assert before is not None and before[:3] == [True, True, True]
    assert model._writes.get() is None


@pytest.mark.parametrize("way", ["apply", "apply_in_place"])
def test_a_fold_lists_its_deaths_by_apply_as_in_place(monkeypatch: pytest.MonkeyPatch, way: str) -> None:
    ruleset = _killing(monkeypatch, 3)
    state = Game(ruleset, 2, 10).state
    outcome = getattr(ruleset, way)(state, _pm(state, "1"))
    assert [(d.name, d.cause) for d in outcome.deaths] == [(state.players[3].name, "test")]
    again = getattr(ruleset, way)(outcome.state, _pm(outcome.state, "2"))  # already dead: no death
    assert again.deaths == []
    assert model._writes.get() is None


def test_apply_begins_one_log_a_fold_and_in_place_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """`apply`'s fold writes into `fold_sharing_players`' log: `apply_in_place` begins none
    of its own then; alone, it begins one (and ends it)."""
    sets: list[object] = []

    class Counting:
        def get(self) -> Any:
            return model._writes.get()

        def set(self, log: Any) -> Any:
            sets.append(log)
            return model._writes.set(log)

        def reset(self, token: Any) -> None:
            model._writes.reset(token)

    monkeypatch.setattr(core_ruleset, "WRITES", Counting())
    ruleset = _killing(monkeypatch, 4)
    state = Game(ruleset, 2, 10).state
    outcome = ruleset.apply(state, _pm(state, "1"))
    assert sets == [] and [d.name for d in outcome.deaths] == [state.players[4].name]
    assert state.players[4].alive and not outcome.state.players[4].alive
    ruleset.apply_in_place(outcome.state, _pm(outcome.state, "2"))
    assert len(sets) == 1 and model._writes.get() is None


def test_a_stale_logged_mark_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """`logged` is a hint: a state marked without a log running folds in place as any other,
    and `apply` leaves neither state marked, even when the fold fails."""
    ruleset = _killing(monkeypatch, 1)
    state = Game(ruleset, 2, 10).state
    outcome = ruleset.apply(state, _pm(state, "1"))
    assert not state.logged and not outcome.state.logged
    outcome.state.logged = True
    again = ruleset.apply_in_place(outcome.state, _pm(outcome.state, "2"))
    assert again.deaths == [] and model._writes.get() is None
    monkeypatch.setattr(type(ruleset), "on_pm", lambda *args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        ruleset.apply(state, _pm(state, "3"))
    assert not state.logged and model._writes.get() is None
