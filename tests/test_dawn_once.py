"""The classic dawn (issue 37): what it works out from the roles and the living is worked out
once — the living commoners listed once a dawn (the prayer threshold and the prayers), each
guard's holders' groups once while the roles stay as they are — and the night resolves as
the plain definitions say (the goldens and tests/test_classic_rules.py pin what it says)."""

from __future__ import annotations

import pytest

from tianshen.core.model import DeadlineIn, GameState
from tianshen.rules import load_ruleset
from tianshen.rules.classic import night
from tianshen.rules.common import actions, roles
from tianshen.sim.montecarlo import Game


def _counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str, calls: list[str]) -> None:
    real = getattr(module, name)

    def counted(*args):  # type: ignore[no-untyped-def]
        calls.append(name)
        return real(*args)

    monkeypatch.setattr(module, name, counted)


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13"])
def test_a_dawn_lists_the_living_commoners_once(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = load_ruleset(variant)
    calls: list[str] = []
    dawns = 0

    class Counted(Game):
        def fold(self, event):  # type: ignore[no-untyped-def]
            nonlocal dawns
            if isinstance(event, DeadlineIn) and event.kind == "night_end":
                calls.clear()
                super().fold(event)
                dawns += 1
                assert calls.count("living_commoners") <= 1, calls
            else:
                super().fold(event)

    for module in (night, actions):
        _counting(monkeypatch, module, "living_commoners", calls)
    for seed in range(3):
        Counted(ruleset, seed, ruleset.spec.players).play()
    assert dawns >= 3


def test_the_prayers_count_only_when_someone_prayed(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_ruleset("classic_10").spec
    game = Game(load_ruleset("classic_10"), 1, 10)
    state: GameState = game.state
    calls: list[str] = []
    _counting(monkeypatch, actions, "living_commoners", calls)
    assert not state.data["subs"].get("pray")
    assert actions.protected(spec, state, 2) == set()
    assert calls == []  # nobody prayed: nobody listed
    commoners = [p for p in state.players if p.role == "commoner"]
    state.data["subs"]["pray"] = {commoners[0].name: "x", commoners[1].name: "x"}
    assert actions.protected(spec, state, 2) == {"x"}
    assert calls == ["living_commoners"]
    assert actions.protected(spec, state, 2, roles.living_commoners(state)) == {"x"}
