"""The classic sims' night reads a player's acting group, whether he acts alone and his
ability's forms (once known) inline from the night's tables (issue 37): no method call a player for
them once known.  The draws themselves are pinned by the golden games."""

from __future__ import annotations

import pytest

from tianshen.rules import load_ruleset
from tianshen.sim import montecarlo
from tianshen.sim.classic import ClassicSims


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13"])
def test_a_night_asks_no_group_alone_or_forms_call_a_player(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = load_ruleset(variant)
    known = montecarlo.Game(ruleset, 1, ruleset.spec.players)
    known.play()  # the forms of the variant's roles written down
    calls: list[str] = []
    for name in ("group", "alone", "forms"):
        real = getattr(ClassicSims, name)
        monkeypatch.setattr(ClassicSims, name, lambda self, *a, _n=name, _f=real: (calls.append(_n), _f(self, *a))[1])
    game = montecarlo.Game(ruleset, 1, ruleset.spec.players)
    game.sims._forms.update(known.sims._forms)
    powers = []
    real_power = ClassicSims._power
    monkeypatch.setattr(ClassicSims, "_power", lambda self, *a: (powers.append(a[1].name), real_power(self, *a))[1])
    game.play()
    assert powers, "the game had powers to use"
    assert calls == []
