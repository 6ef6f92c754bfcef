"""A PM's fold (issue 37): the sender is looked up once (`answer_pm`); `_fold_pm` asks
whether he is a substitute first, and finds him only then (a substitute answering the call)."""

from __future__ import annotations

import pytest

from tianshen.core.model import GameState, PmIn
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


@pytest.mark.parametrize("variant", ["classic_10", "game_ten", "n_lives"])
def test_a_pm_finds_its_sender_once(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = load_ruleset(variant)
    asked: list[str] = []
    real = GameState.find

    def find(self: GameState, name: str):  # type: ignore[no-untyped-def]
        asked.append(name)
        return real(self, name)

    monkeypatch.setattr(GameState, "find", find)
    pms = 0

    class Counted(Game):
        def fold(self, event):  # type: ignore[no-untyped-def]
            nonlocal pms
            asked.clear()
            super().fold(event)
            if isinstance(event, PmIn) and real(self.state, event.sender) is not None:
                pms += 1
                assert asked.count(event.sender) == 1, (event, asked)

    for seed in range(3):
        Counted(ruleset, seed, ruleset.spec.players).play()
    assert pms > 20


def test_a_pm_goes_straight_to_its_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    """`apply_in_place` hands a PM to `_fold_pm` itself, a post to `_fold_post` (`_fold`
    would only hand them on)."""
    from tianshen.core.ruleset import Ruleset

    kinds: list[str] = []
    real = Ruleset._fold

    def fold(self, state, event, *args):  # type: ignore[no-untyped-def]
        kinds.append(type(event).__name__)
        return real(self, state, event, *args)

    monkeypatch.setattr(Ruleset, "_fold", fold)
    game = Game(load_ruleset("classic_10"), 1, 10)
    game.play()
    assert game.state.winner and "DeadlineIn" in kinds and "PmIn" not in kinds and "PostIn" not in kinds


def test_a_pms_commands_are_made_from_the_rows_without_the_class_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """`answer_pm` makes each `Command` as `Command(*row)` would (its four fields), without the
    dataclass's `__init__` (a class call a command)."""
    from tianshen.core.grammar import Command

    seen: list[Command] = []
    ruleset = load_ruleset("classic_10")
    real = type(ruleset).pm_command

    def pm_command(self, state, p, cmd, at, out):  # type: ignore[no-untyped-def]
        seen.append(cmd)
        return real(self, state, p, cmd, at, out)

    def no_call(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a Command made through its __init__")

    monkeypatch.setattr(type(ruleset), "pm_command", pm_command)
    monkeypatch.setattr(Command, "__init__", no_call)
    Game(ruleset, 1, ruleset.spec.players).play()
    assert len(seen) > 20 and all(type(c) is Command and c.verb and c.line for c in seen)
