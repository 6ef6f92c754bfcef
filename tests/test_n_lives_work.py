"""猫有n条命's per-card look-ups (issue 37): how often a whole 7-player Monte Carlo game calls
into `rules/n_lives/cards.py`, counted by cProfile (deterministic: the same seeds play the
same games).  A hand is read in place where it is only read, a card's name comes from one
table, and a command finds its card from one pass over the hand."""

from __future__ import annotations

import cProfile
import pstats

from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def _calls_into(fragment: str, games: range) -> float:
    ruleset = load_ruleset("n_lives")
    profile = cProfile.Profile()
    profile.enable()
    for seed in games:
        Game(ruleset, seed, 7).play()
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return sum(row[1] for (path, _, _), row in stats.items() if path.replace("\\", "/").endswith(fragment)) / len(games)


def test_card_look_ups_per_game() -> None:
    # 3,040 a game before (card_type 905, hand 517, name_of 246, card_types 276 …); 1,880 now
    calls = _calls_into("rules/n_lives/cards.py", range(1, 4))
    assert calls < 2_200, calls


def test_role_pms_read_each_card_types_powers_once_per_spec() -> None:
    """What a card can do (its role-PM line's list of privileges and costs) is worked out once
    per variant, not for every card of every role PM (28 a 7-player deal)."""
    from tianshen.core.ruleset import GameSetup
    from tianshen.sim.rehearsal import DEFAULT_START, default_seats

    ruleset = load_ruleset("n_lives")
    ruleset.setup(GameSetup(seats=default_seats(7), seed=0, start=DEFAULT_START))
    profile = cProfile.Profile()
    profile.enable()
    for seed in range(1, 6):
        ruleset.setup(GameSetup(seats=default_seats(7), seed=seed, start=DEFAULT_START))
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    tables = sum(row[1] for (path, _, name), row in stats.items()
                 if path.replace("\\", "/").endswith("rules/n_lives/abilities.py") and name == "abilities")
    assert tables == 0, tables


def test_the_deal_draws_without_a_call_a_draw(monkeypatch) -> None:
    """A try of the deal hashes its draws in its own loop (as `rng.shuffled` does), not
    through `rng.below`, a call and a write of the state's counter a draw (about 250 a 7p deal)."""
    from tianshen.core import rng
    from tianshen.core.ruleset import GameSetup
    from tianshen.sim.seats import DEFAULT_START, default_seats

    ruleset = load_ruleset("n_lives")
    calls: list[int] = []
    real = rng.below
    monkeypatch.setattr(rng, "below", lambda state, n: calls.append(n) or real(state, n))
    for seed in range(5):
        ruleset.setup(GameSetup(seats=default_seats(7), seed=seed, start=DEFAULT_START))
    assert len(calls) < 5, len(calls)
