"""A Monte Carlo game makes its deadline inputs without the class call (issue 37), as its
board makes the PMs and posts: each is what `DeadlineIn(id=…, at=…, kind=…)` makes."""

from __future__ import annotations

from tianshen.core.model import DeadlineIn, PmIn, PostIn
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


class Watched(Game):
    """A game that keeps every input it folds (its own `fold`: the game's other way)."""

    def __init__(self, *args: object) -> None:
        self.inputs: list[PmIn | PostIn | DeadlineIn] = []
        super().__init__(*args)  # type: ignore[arg-type]

    def fold(self, event: PmIn | PostIn | DeadlineIn) -> None:
        self.inputs.append(event)
        super().fold(event)


def test_a_games_deadlines_are_the_class_calls() -> None:
    game = Watched(load_ruleset("classic_10"), 3, 10)
    game.play()
    deadlines = [e for e in game.inputs if type(e) is not PmIn and type(e) is not PostIn]
    assert len(deadlines) > 5
    for e in deadlines:
        made = DeadlineIn(id=e.id, at=e.at, kind=e.kind)
        assert type(e) is DeadlineIn and e == made and e.model_dump_json() == made.model_dump_json()
        assert e.id == f"{e.kind}@{e.at.isoformat()}"
