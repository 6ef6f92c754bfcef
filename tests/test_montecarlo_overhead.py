"""A Monte Carlo game's own setup work is done once per run, not once per game (issue 37):
the seats' `GameSetup` is checked once per table size and the sims' class looked up once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tianshen.rules import load_ruleset
from tianshen.sim import montecarlo


def test_a_run_checks_the_setup_and_finds_the_sims_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    looked: list[str] = []
    setup, sims_class = montecarlo.GameSetup, montecarlo.sims_class

    def counted_setup(**fields):  # type: ignore[no-untyped-def]
        made.append(len(fields["seats"]))
        return setup(**fields)

    def counted_sims_class(family: str, policy: str = "default"):  # type: ignore[no-untyped-def]
        looked.append(family)
        return sims_class(family, policy)

    monkeypatch.setattr(montecarlo, "GameSetup", counted_setup)
    monkeypatch.setattr(montecarlo, "sims_class", counted_sims_class)
    montecarlo._setup.cache_clear()
    montecarlo._sims_class.cache_clear()
    ruleset = load_ruleset("classic_8")
    seeds = [montecarlo.play(ruleset, seed).seed for seed in range(1, 4)]
    assert seeds == [1, 2, 3]
    assert made == [8] and len(looked) == 1
    montecarlo._setup.cache_clear()
    montecarlo._sims_class.cache_clear()


def test_an_unknown_policy_is_still_refused() -> None:
    ruleset = load_ruleset("classic_8")
    with pytest.raises(ValueError, match="unknown policy"):
        montecarlo.Game(ruleset, 1, 8, policy="clever")


@pytest.mark.parametrize("variant", ["classic_10", "game_ten", "butterfly_elder", "n_lives", "hex_survival_12"])
def test_a_game_played_is_freed_without_the_collector(variant: str) -> None:
    """Nothing of a played game is left in a reference cycle: dropped, it is freed at once,
    and a worker's collector finds nothing to do (it walked every game's thousand objects)."""
    import gc

    ruleset = load_ruleset(variant)
    montecarlo.play(ruleset, 0)  # warm: what a variant loads once
    gc.collect()
    gc.disable()
    try:
        for seed in (1, 2):
            game = montecarlo.Game(ruleset, seed, ruleset.spec.players)
            game.play()
            del game
            montecarlo.play(ruleset, seed)
            assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_deadlines_time_is_written_once_per_moment_and_zone() -> None:
    """The loop's deadline inputs are named "kind@time" with the time as `isoformat` writes
    it, formatted once per moment in a process (a run's games share a few dozen deadline
    moments), and one instant in two zones keeps each zone's string."""
    from datetime import UTC, datetime, timedelta, timezone

    from tianshen.sim.montecarlo import _iso

    _iso.cache_clear()
    ruleset = load_ruleset("classic_8")
    for seed in range(1, 21):
        montecarlo.play(ruleset, seed)
    info = _iso.cache_info()
    assert info.hits > 5 * info.misses > 0  # (classic_8, 20 games: 12 moments, 140 deadlines)
    at = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
    there = at.astimezone(timezone(timedelta(hours=8)))
    assert at == there
    assert _iso(at, at.utcoffset()) == at.isoformat() != _iso(there, there.utcoffset()) == there.isoformat()


def test_the_board_stamps_with_the_games_moment_without_a_call() -> None:
    moment = [datetime(2026, 1, 1, 20, 0, tzinfo=UTC)]
    board = montecarlo.CoreBoard(moment)
    board.pm("甲", "神的使者", "守护 乙")
    moment[0] = datetime(2026, 1, 1, 21, 0, tzinfo=UTC)
    board.post("乙", "vote:1", "投票 甲")
    assert [e.at.hour for e in board.take()] == [20, 21]
    assert board.clock() == moment[0]


def test_a_plain_game_folds_without_game_fold_a_subclass_through_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = load_ruleset("classic_10")
    plain = montecarlo.Game(ruleset, 3, 10)
    plain.play()
    seen: list[str] = []

    class Digest(montecarlo.Game):
        def _took(self, outcome):  # type: ignore[no-untyped-def]
            seen.append(outcome)
            return super()._took(outcome)

    mine = Digest(ruleset, 3, 10)
    mine.play()
    said = [(list(o.posts), list(o.pms)) for o in plain.outcomes]
    assert said == [(list(o.posts), list(o.pms)) for o in seen]
    assert seen == mine.outcomes
    assert plain.threads == mine.threads and plain.state.model_dump_json() == mine.state.model_dump_json()
    calls = []
    fold = montecarlo.Game.fold
    monkeypatch.setattr(montecarlo.Game, "fold", lambda self, event: (calls.append(event), fold(self, event)))
    montecarlo.Game(ruleset, 3, 10).play()
    assert calls == []  # the inputs folded inline: two calls an input less


@pytest.mark.parametrize("variant", ["classic_10", "n_lives"])
def test_extract_counts_without_a_counters_missing_key_call(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`extract` counts into a plain dict (a Counter's `+= 1` on a new key called its Python
    `__missing__`: a death, a rule firing, an announcement looked up), with the same counters
    in the same order as a Counter took them."""
    from collections import Counter

    ruleset = load_ruleset(variant)
    game = montecarlo.Game(ruleset, 3, ruleset.spec.players)
    state = game.play()
    missing: list[object] = []
    real = Counter.__missing__
    monkeypatch.setattr(Counter, "__missing__", lambda self, key: missing.append(key) or real(self, key))
    result = montecarlo.extract(ruleset, state, game.outcomes, 3)
    assert missing == []
    assert list(result.counters)[:2] == ["refusals", "GM notes"] and type(result.counters) is dict
    deaths = [k for k in result.counters if k.startswith("death: ")]
    assert sum(result.counters[k] for k in deaths) == sum(not p.alive for p in state.players)


@pytest.mark.parametrize("hooked", [False, True])
def test_inputs_stamped_at_a_due_deadline_fold_before_it_later_ones_after(hooked: bool) -> None:
    """`advance`: an input stamped at the due deadline's moment folds before it, one a minute
    later after it (as the driver reads them), inline or through a subclass's `fold`."""
    from datetime import timedelta

    from tianshen.core.model import PmIn

    class Hooked(montecarlo.Game):
        def fold(self, event) -> None:  # type: ignore[no-untyped-def]
            super().fold(event)

    ruleset = load_ruleset("classic_10")
    game = (Hooked if hooked else montecarlo.Game)(ruleset, 1, 10)
    dl = ruleset.next_deadline(game.state)
    first, second = game.state.players[0], game.state.players[1]
    pending = [PmIn(id="a", sender=first.forum_name, at=dl.at, text="你好"),
               PmIn(id="b", sender=second.forum_name, at=dl.at + timedelta(minutes=1), text="你好")]
    game.now = dl.at + timedelta(hours=1)
    game.advance(pending, dl)
    kinds = ["pm:" + o.pms[0].to if o.pms and not o.posts else "posts" for o in game.outcomes[1:]]
    assert kinds[:3] == ["pm:" + first.forum_name, "posts", "pm:" + second.forum_name], kinds
