"""The classic sims' night reads a player's acting group, whether he acts alone and his
ability's forms (once known) inline from the night's tables (issue 37): no method call a player for
them once known.  The draws themselves are pinned by the golden games."""

from __future__ import annotations

import random

import pytest

from tianshen.rules import load_ruleset
from tianshen.sim import montecarlo, pick
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


def _old_choose_vote(p, candidates, counts, state, rng, killer_names):  # type: ignore[no-untyped-def]
    """The vote's choice as it was written before (a list of options a voter)."""
    options = [c for c in candidates if c != p.name] or candidates
    if counts and rng.random() < 0.5:
        leader = max(counts, key=counts.__getitem__)
        if leader in options:
            return leader
    civilians = [c for c in options if c not in killer_names]
    killers = [c for c in options if c in killer_names]
    if p.faction == "killers":
        return pick(rng, civilians or options)
    if killers and rng.random() < 0.3:
        return pick(rng, killers)
    return pick(rng, options)


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13"])
def test_a_vote_chooses_and_draws_as_the_list_of_options_did(variant: str) -> None:
    ruleset = load_ruleset(variant)
    state = montecarlo.Game(ruleset, 2, ruleset.spec.players).state
    sims = ClassicSims(montecarlo.CoreBoard([montecarlo.DEFAULT_START]), "神的使者", 2)
    names = [q.name for q in state.players]
    killer_names = {q.name for q in state.players if q.faction == "killers"}
    for trial in range(400):
        shape = random.Random(trial)
        candidates = shape.sample(names, shape.randint(1, len(names)))
        counts = {c: shape.randint(1, 3) for c in shape.sample(names, shape.randint(0, 3))}
        p = shape.choice(state.players)
        sims._killers = killer_names
        sims._sides = (candidates, [c for c in candidates if c not in killer_names],
                       [c for c in candidates if c in killer_names])
        mine, old = random.Random(trial), random.Random(trial)
        got = sims._choose_vote(p, candidates, counts, state, mine)
        assert got == _old_choose_vote(p, candidates, counts, state, old, killer_names)
        assert mine.getstate() == old.getstate()


def test_the_games_of_one_ruleset_share_their_roles_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = load_ruleset("classic_10")
    first = montecarlo.Game(ruleset, 1, 10)
    first.play()
    calls: list[str] = []
    real = ClassicSims.forms
    monkeypatch.setattr(ClassicSims, "forms", lambda self, *a: (calls.append("forms"), real(self, *a))[1])
    montecarlo.Game(ruleset, 2, 10).play()
    assert calls == []  # the first game's forms, written down once for this spec
    other = load_ruleset("classic_8")
    montecarlo.Game(other, 2, 8).play()
    assert calls  # another spec's forms are its own
